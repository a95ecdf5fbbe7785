package a2a

import (
	"context"
	"encoding/json"
	"time"
)

// Events across replicas (EventLog): the replica running a turn renders
// each update in the three formats a stream may want (the development-
// tool extension's, Gemini CLI's, a plain client's) and appends them to
// the task's events before sending it; a replica with a client subscribed
// to the task reads the events by number and sends that client the
// format it wants. Only the replica running the turn sends push
// notifications.

// Formats of a relayed update, by renderer.
const (
	formatExt = iota
	formatGemini
	formatPlain
	nFormats
)

// format is the relayed format r renders.
func (r *renderer) format() int {
	switch {
	case r.ext:
		return formatExt
	case r.plain:
		return formatPlain
	}
	return formatGemini
}

// relayed is an update as the event log keeps it.
type relayed struct {
	Final bool                        `json:"final,omitempty"`
	Ev    [nFormats][]json.RawMessage `json:"ev"`
}

// relayRenderers are the renderers of a task's relayed events, one per
// format, started again with each turn.
type relayRenderers struct {
	r [nFormats]*renderer
}

func (t *task) newRelayRenderers() *relayRenderers {
	rr := &relayRenderers{}
	for f := range nFormats {
		rr.r[f] = newRenderer(f == formatExt, t.id, t.contextID)
		rr.r[f].plain = f == formatPlain
	}
	return rr
}

// relayBody encodes u in every format. The caller holds t.saving, which
// orders the renderers' use.
func (t *task) relayBody(u *update) ([]byte, error) {
	if t.relay == nil {
		t.relay = t.newRelayRenderers()
	}
	rel := relayed{Final: u.final}
	for f, r := range t.relay.r {
		for _, ev := range r.render(u) {
			b, err := json.Marshal(ev)
			if err != nil {
				return nil, err
			}
			rel.Ev[f] = append(rel.Ev[f], b)
		}
	}
	return json.Marshal(&rel)
}

// saveEvent saves what u adds before any client is sent it: the text it
// streams into t's history, when the store can save a chunk (TextSaver),
// so that a process killed mid-answer leaves every word a client saw in
// the store; and, with an EventLog, the update itself, for clients
// subscribed on other replicas. It waits for the task's save under way,
// so that a chunk lands after the snapshot a save took before it. A
// failure is logged: the update is sent all the same, and the turn's end
// saves the text again.
func (s *Server) saveEvent(t *task, u *update) {
	ts, saver := s.store.(TextSaver)
	if s.events == nil && (!saver || u.kind != uText) {
		return
	}
	t.saving.Lock()
	defer t.saving.Unlock()
	var chunk *TextChunk
	t.mu.Lock()
	version := t.version
	if i, found := t.textIdx[u.messageID]; u.kind == uText && u.text != "" && found && i < len(t.history) && len(t.history[i].Parts) == 1 {
		msg := t.history[i]
		chunk = &TextChunk{Index: i, Message: &msg, At: len(msg.Parts[0].Text) - len(u.text)}
	}
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	switch {
	case s.events != nil:
		var body []byte
		if body, err = t.relayBody(u); err == nil {
			err = s.events.AppendEvent(ctx, t.id, version, body, chunk)
		}
	case chunk != nil:
		err = ts.SaveText(ctx, t.id, version, *chunk)
	}
	if err != nil {
		s.log.Warn("a2a: saving a streamed event failed", "task", t.id, "error", err)
	}
}

// decodeRelayed decodes an event of the log into the update it relays.
func decodeRelayed(b []byte) (*update, error) {
	var rel relayed
	if err := json.Unmarshal(b, &rel); err != nil {
		return nil, err
	}
	return &update{kind: uRelay, final: rel.Final, relayed: &rel}, nil
}

// followRemote streams to t's subscribers the turn of t running on
// another replica, from the events after cursor (-1: none are read), and
// ends them with its final event; when that replica stops without one
// (it died, its lease expired), the task is reloaded and its state sent
// as the final event. Relayed updates send no push notification: the
// replica running the turn sends those.
func (s *Server) followRemote(t *task, cursor int64) {
	ctx, cancel := context.WithTimeout(s.host.Context(), s.cfg.Limits.TurnTimeout)
	defer cancel()
	defer func() {
		t.mu.Lock()
		t.following = false
		t.mu.Unlock()
	}()
	for last := false; s.events != nil && cursor >= 0; {
		evs, wake, err := s.events.Events(ctx, t.id, cursor)
		if err != nil {
			s.log.Warn("a2a: reading a task's events", "task", t.id, "error", err)
			break
		}
		for _, ev := range evs {
			cursor = ev.Seq
			u, err := decodeRelayed(ev.Body)
			if err != nil {
				s.log.Warn("a2a: a task's event does not decode", "task", t.id, "seq", ev.Seq, "error", err)
				continue
			}
			if u.final {
				if _, err := s.reload(ctx, t); err != nil {
					s.log.Warn("a2a: reloading a task after its remote turn", "task", t.id, "error", err)
				}
				t.fanout(u, t.detachSubs())
				return
			}
			t.fanout(u, t.subscribers())
		}
		if len(evs) > 0 {
			continue
		}
		if last {
			break // the turn's replica let go without a final event
		}
		if busy, err := s.shared.LeasedElsewhere(ctx, t.id); err == nil && !busy {
			last = true // its final event may have come just before
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-time.After(time.Second):
		}
	}
	if err := s.shared.WaitReleased(ctx, t.id); err != nil {
		return
	}
	if _, err := s.reload(ctx, t); err != nil {
		s.log.Warn("a2a: reloading a task after its remote turn", "task", t.id, "error", err)
		return
	}
	t.mu.Lock()
	st := t.status
	t.mu.Unlock()
	text := ""
	if st.Message != nil {
		for _, p := range st.Message.Parts {
			text += p.Text
		}
	}
	t.fanout(&update{kind: uState, state: st.State, final: true, reason: reasonEnd, text: text, time: s.now(), workspace: t.settings.WorkspacePath, follower: true}, t.detachSubs())
}

// subscribers returns the task's subscribers.
func (t *task) subscribers() []*subscriber {
	t.mu.Lock()
	defer t.mu.Unlock()
	subs := make([]*subscriber, 0, len(t.subs))
	for s := range t.subs {
		subs = append(subs, s)
	}
	return subs
}

// detachSubs returns the task's subscribers; the final update ends them.
func (t *task) detachSubs() []*subscriber { return t.subscribers() }
