package a2a

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// pushHeader is what a webhook gets besides the body: the token the
// receiver checks to trust the call (@a2a-js/sdk 0.3's header, or A2A
// 1.0's), and the credentials of the first scheme Castor knows.
func pushHeader(c PushNotificationConfig) http.Header {
	h := http.Header{}
	if c.Token != "" {
		name := "X-A2A-Notification-Token"
		if c.Version == "1.0" {
			name = "A2A-Notification-Token"
		}
		h.Set(name, c.Token)
	}
	if a := c.Authentication; a != nil && a.Credentials != "" {
		for _, s := range a.Schemes {
			if s = strings.ToLower(s); s == "bearer" || s == "basic" {
				h.Set("Authorization", strings.ToUpper(s[:1])+s[1:]+" "+a.Credentials)
				break
			}
		}
	}
	return h
}

// notifyPush schedules delivery of the task's latest snapshot to its
// webhooks. Deliveries are coalesced (webhook.Coalescer), so the last
// state always arrives and a slow webhook cannot pile up work.
func (s *Server) notifyPush(t *task) {
	t.mu.Lock()
	n := len(t.push)
	t.mu.Unlock()
	if n > 0 {
		t.pushDeliver.Trigger(s.wg, func() { s.deliverPush(t) })
	}
}

// deliverPush sends the task as it is now to each of its webhooks, in the
// A2A version of the client that set it.
func (s *Server) deliverPush(t *task) {
	t.mu.Lock()
	snap := t.snapshotLocked(nil)
	cfgs := slices.Clone(t.push)
	t.mu.Unlock()
	body, err := json.Marshal(snap)
	if err != nil {
		return
	}
	var body1 []byte
	for _, c := range cfgs {
		b := body
		if c.Version == "1.0" {
			if body1 == nil {
				body1, _ = pushBody1(snap)
			}
			b = body1
		}
		if err := s.push.Send(s.pushCtx, c.URL, pushHeader(c), b); err != nil {
			s.log.Warn("a2a: push notification failed", "task", t.id, "url", c.URL, "error", err)
		}
	}
}
