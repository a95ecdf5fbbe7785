package a2a

import (
	"context"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
)

// Messages to a task queue: each is accepted at once (in the history and
// saved, its client told whether it fits) and runs after the messages
// before it, one turn at a time, so that a non-blocking message/send (or
// 1.0 SendMessage with returnImmediately) answers without waiting for the
// task's previous turn or a free turn slot. The queue is bounded
// (Limits.MaxQueuedMessages; busy past it). tasks/cancel drops the queued
// messages with the turn; a shutdown drops them with a final
// input-required status, as it interrupts running turns. They stay in the
// history and the store, which keeps the task as running while they wait:
// a restarted server shows it input-required, as a turn cut short by a
// crash (Gemini CLI's server has no queue; the message is kept and the
// client sends again).

// queued is a message accepted for a task whose turn has not started.
type queued struct {
	in  turnInput
	ext bool
	// sub, when set, is subscribed to the task as the turn starts: a
	// stream or a blocking send waits for it.
	sub *subscriber
	// started is closed when the turn starts, or when the message is
	// dropped, err then saying why.
	started chan struct{}
	err     *rpcError
	// unsaved: the message's new task is saved as its turn starts.
	unsaved bool
}

// drop tells whoever waits for q that it will not run.
func (q *queued) drop(why *rpcError) {
	q.err = why
	close(q.started)
}

// errEnded is the error of a message to a task that reached a terminal
// state.
func errEnded(id string, st TaskState) *rpcError {
	return jsonrpc.Errorf(CodeInvalidRequest, "Task %s is in a terminal state (%s) and cannot be modified.", id, st)
}

// startTurn accepts a message for t (enqueue) and, when sub is set, waits
// as long as ctx lasts for its turn to start, sub subscribed to it. A
// client that leaves meanwhile leaves its message queued, unless
// Config.OnDisconnect cancels turns nobody watches; a message so dropped
// never ran and does not count toward Limits.MaxTurnsPerTask.
func (s *Server) startTurn(ctx context.Context, t *task, in turnInput, ext bool, sub *subscriber) *rpcError {
	// With a shared store the task's lease is taken first (waiting for a
	// turn running on another replica) and the task reloaded if it moved
	// on, so that the message joins the task as the store has it.
	t.leaseMu.Lock()
	var e *rpcError
	if err := s.holdLease(ctx, t); err != nil {
		e = jsonrpc.AsError(err)
	} else if in.push != nil {
		e = s.setPush(t, *in.push)
	}
	if e != nil {
		t.leaseMu.Unlock()
		s.releaseLease(t)
		if in.isNew {
			s.host.Remove(t.id)
		}
		return e
	}
	q, e := s.enqueue(t, in, ext, sub)
	t.leaseMu.Unlock()
	if e != nil {
		// Nothing runs: the lease goes back (unless turns queued before
		// hold it).
		s.releaseLease(t)
	}
	if e != nil && in.isNew {
		// A new task whose first message was refused is forgotten.
		s.host.Remove(t.id)
	}
	if e != nil || sub == nil {
		return e
	}
	select {
	case <-q.started:
		return q.err
	case <-ctx.Done():
	}
	t.mu.Lock()
	q.sub = nil
	removed := false
	var stopWait context.CancelFunc
	if s.cfg.OnDisconnect == DisconnectCancel {
		for i, o := range t.queue {
			if o == q {
				t.queue = append(t.queue[:i:i], t.queue[i+1:]...)
				q.drop(errBusy("the client left while the turn waited to run"))
				removed = true
				// It never ran: it does not count toward
				// Limits.MaxTurnsPerTask.
				t.turns--
				if len(t.queue) == 0 {
					// Nothing left to run: the runner gives its place
					// in the queue of turns back now.
					stopWait = t.stopWait
				}
				break
			}
		}
	}
	t.mu.Unlock()
	if stopWait != nil {
		stopWait()
	}
	if removed && in.isNew {
		// The client never learned the new task's id (the first event
		// comes as the turn starts), and it was not saved (enqueue):
		// nothing is left of it.
		s.host.Remove(t.id)
	}
	// The turn may have started meanwhile, with sub subscribed.
	s.clientLeft(t, sub)
	return errBusy("the client left while the turn waited to run")
}

// enqueue accepts a message for t: it checks the task and the limits,
// puts the message in the history and the queue, saves the task and, when
// no turn runs or waits, starts the task's runner (drain).
func (s *Server) enqueue(t *task, in turnInput, ext bool, sub *subscriber) (*queued, *rpcError) {
	if s.host.Closing() {
		return nil, errBusy("the server is shutting down")
	}
	q := &queued{in: in, ext: ext, sub: sub, started: make(chan struct{})}
	t.mu.Lock()
	var place *host.Place
	switch {
	case t.state.Terminal():
		t.mu.Unlock()
		return nil, errEnded(t.id, t.state)
	case t.turns >= s.cfg.Limits.MaxTurnsPerTask:
		t.mu.Unlock()
		return nil, jsonrpc.Errorf(CodeInvalidRequest, "Task %s reached its limit of %d messages.", t.id, s.cfg.Limits.MaxTurnsPerTask)
	case t.running && len(t.queue) >= s.cfg.Limits.MaxQueuedMessages:
		t.mu.Unlock()
		return nil, errBusy("the task already has messages waiting for its turn")
	case !t.running:
		p, err := s.host.Reserve()
		if err != nil {
			t.mu.Unlock()
			return nil, jsonrpc.AsError(asBusy(err))
		}
		place = p
	}
	t.turns++
	t.queue = append(t.queue, q)
	t.history = append(t.history, t.ownMessage(in.msg))
	start := !t.running
	t.running = true
	t.mu.Unlock()
	// Saved at once, so that a new task is still found, and the message
	// still in the history, when the process dies before its turn ends;
	// but a new task whose client waits for its turn (a stream, a
	// blocking send) is saved as the turn starts (drain): that client
	// learns the task's id only then, and one that leaves first must not
	// leave it in the store.
	if q.unsaved = in.isNew && sub != nil; !q.unsaved {
		// A failure is logged; the turn's end saves again, and says so
		// if that fails too.
		_ = s.save(t)
	}
	if start {
		s.wg.Go(func() { s.drain(t, place) })
	}
	return q, nil
}

// drain runs t's queued messages one after the other, the first on place,
// until none is left, the task ended or the server shuts down; then the
// task's lease goes back.
func (s *Server) drain(t *task, place *host.Place) {
	defer s.releaseLease(t)
	for ran := false; ; ran = true {
		wait, stop := context.WithCancel(context.Background())
		t.mu.Lock()
		if len(t.queue) == 0 {
			// Dropped (tasks/cancel) since the last turn ended.
			t.running = false
			t.mu.Unlock()
			stop()
			place.Drop()
			return
		}
		t.stopWait = stop
		t.mu.Unlock()
		turn, err := s.host.Begin(wait, place, t.gate)
		stop()
		if err == nil && s.leaseLost(t) {
			// Another replica may run the task's turns now: the messages
			// still queued here are dropped, their clients told to send
			// them again, rather than run beside it.
			err = errLeaseLost
		}
		t.mu.Lock()
		t.stopWait = nil
		if err != nil || len(t.queue) == 0 || t.state.Terminal() {
			dropped, st := t.queue, t.state
			t.queue, t.running = nil, false
			t.mu.Unlock()
			if turn != nil {
				turn.End()
			}
			s.dropQueued(t, dropped, st, err, ran)
			return
		}
		q := t.queue[0]
		t.queue = t.queue[1:]
		if q.in.mode != "" {
			t.mode = q.in.mode
		}
		t.ext = q.ext
		t.turn = turn
		t.turnDone = turn.Context().Done()
		if q.sub != nil {
			t.subs[q.sub] = struct{}{}
		}
		t.mu.Unlock()
		if q.unsaved {
			_ = s.save(t)
		}
		t.saving.Lock()
		t.relay = nil // each turn's relayed events render afresh
		t.saving.Unlock()
		close(q.started)
		if !t.runTurn(turn.Context(), q.in) {
			return
		}
		place = s.host.Line()
	}
}

// dropQueued tells the clients waiting for the dropped messages why they
// will not run: the task ended (st), or the server is shutting down
// (err), which ends the task's wait with a final input-required status,
// as it ends running turns (unless a turn of the task just ended so).
func (s *Server) dropQueued(t *task, dropped []*queued, st TaskState, err error, afterTurn bool) {
	if len(dropped) == 0 {
		return
	}
	why := errEnded(t.id, st)
	if !st.Terminal() {
		why = jsonrpc.AsError(asBusy(err))
	}
	for _, q := range dropped {
		q.drop(why)
	}
	if !st.Terminal() && s.host.Closing() && !afterTurn {
		t.publish(&update{kind: uState, state: StateInputRequired, final: true, reason: reasonEnd, text: host.ErrShuttingDown.Error()})
		_ = s.save(t)
	}
}
