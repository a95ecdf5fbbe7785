package a2a

import (
	"cmp"
	"errors"

	"github.com/castor-dev/castor/a2a/internal/host"
)

// hostConfig is how internal/host keeps this server's tasks.
func (s *Server) hostConfig() host.Config {
	// Retention zero is the default; negative keeps tasks forever.
	c := host.Config{Limits: host.Limits(s.cfg.Limits), Retention: cmp.Or(s.cfg.Retention, DefaultRetention), Now: s.now, Log: s.log}
	if p, ok := s.store.(TaskPruner); ok {
		c.Prune = p.Prune
	}
	return c
}

// asBusy turns the host's refusals into the busy error clients know.
func asBusy(err error) error {
	var b *host.Busy
	if errors.As(err, &b) {
		return errBusy(b.What)
	}
	return err
}

// The task is a host.Item.

// ID names the task.
func (t *task) ID() string { return t.id }

// Usage says what uses the task: a turn, a client's stream, a webhook
// delivery.
func (t *task) Usage() host.Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return host.Usage{Running: t.running, Watched: len(t.subs) > 0 || t.pushDeliver.Busy(), Session: t.session.Current() != nil,
		LastActive: t.lastActive, SessionUsed: t.session.LastUsed()}
}

// Save persists the task.
func (t *task) Save() { _ = t.srv.save(t) }

// ReleaseSession closes the task's session between turns; its
// conversation and pending calls are those finishTurn kept from it, from
// which its next turn rebuilds it (host.Session).
func (t *task) ReleaseSession() {
	release := func() {}
	t.mu.Lock()
	if !t.running && len(t.subs) == 0 {
		release = t.session.Release()
	}
	t.mu.Unlock()
	release()
}

// CloseSession closes the task's session at shutdown.
func (t *task) CloseSession() { t.session.Close() }
