package a2a

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/castor-dev/castor/a2a/internal/jsonrpc"

	"github.com/castor-dev/castor/agent"
)

// What a server does with a SharedStore (see SharedStore): it keeps the
// version of each task it last saved or loaded (task.version), holds a
// task's lease while it has turns running or queued for it (task.lease),
// reloads a task in memory from the store when the store moved on, and
// claims confirmations before answering them.

// replicaStopped is the status text of a task whose turn ran on a replica
// that stopped (its lease expired).
const replicaStopped = "The server running this task stopped during its turn; send a message to continue."

// fresh returns t as the store has it: when the stored version differs
// from the one t holds and no turn runs in this process, t is refreshed
// in place from the store (its engine session released and rebuilt from
// the stored conversation at its next turn).
func (s *Server) fresh(ctx context.Context, t *task) error {
	if s.shared == nil {
		return nil
	}
	t.mu.Lock()
	busy, v := t.running, t.version
	t.mu.Unlock()
	if busy {
		return nil
	}
	cur, err := s.shared.Version(ctx, t.id)
	if errors.Is(err, ErrNotFound) && v == 0 {
		return nil // new here, not saved yet
	}
	if err != nil {
		return err
	}
	if cur == v {
		return nil
	}
	_, err = s.reload(ctx, t)
	return err
}

// reload replaces what t holds with the stored task, and returns the
// number of the task's last event then (EventLog; 0 without one).
func (s *Server) reload(ctx context.Context, t *task) (int64, error) {
	var st *StoredTask
	var v, cursor int64
	var err error
	if s.events != nil {
		st, v, cursor, err = s.events.LoadWithCursor(ctx, t.id)
	} else {
		st, v, err = s.shared.LoadVersioned(ctx, t.id)
	}
	if err != nil {
		return 0, err
	}
	elsewhere := s.runsElsewhere(ctx, st)
	t.mu.Lock()
	if t.running {
		// A turn started here meanwhile, under the lease: it reloaded.
		t.mu.Unlock()
		return cursor, nil
	}
	release := t.session.Release()
	s.applyStored(t, st, elsewhere)
	t.version = v
	t.mu.Unlock()
	release()
	return cursor, nil
}

// runsElsewhere reports whether a task stored as running has its turn
// running on another replica (which holds its lease) rather than cut
// short by a process that stopped.
func (s *Server) runsElsewhere(ctx context.Context, st *StoredTask) bool {
	if s.shared == nil || st.State.Terminal() || st.State == StateInputRequired {
		return false
	}
	busy, err := s.shared.LeasedElsewhere(ctx, st.ID)
	if err != nil {
		s.log.Warn("a2a: reading a task's lease", "task", st.ID, "error", err)
		return false
	}
	return busy
}

// holdLease takes t's lease for the turns this process is about to run,
// unless it holds it already, waiting as long as ctx lasts while another
// replica runs a turn of the task, and reloads t when the store moved
// on. The caller holds t.leaseMu.
func (s *Server) holdLease(ctx context.Context, t *task) error {
	if s.shared == nil {
		return nil
	}
	if t.lease != nil {
		select {
		case <-t.lease.Lost():
		default:
			return nil
		}
		t.mu.Lock()
		running := t.running
		t.mu.Unlock()
		if running {
			// The queued turns are dropped as they come (drain).
			return errLeaseLost
		}
		t.lease.Release()
		t.lease = nil
	}
	l, err := s.shared.Lease(ctx, t.id)
	if err != nil {
		return errBusy(err.Error())
	}
	t.lease = l
	t.mu.Lock()
	// Shown running here, yet no turn runs here and the lease was free:
	// the replica that ran it stopped. Reloaded, the task is shown
	// interrupted, its paused calls answered as such.
	stopped := !t.running && !t.state.Terminal() && t.state != StateInputRequired && t.state != StateSubmitted
	if stopped {
		t.version = -1
	}
	t.mu.Unlock()
	if err := s.fresh(ctx, t); err != nil {
		t.lease = nil
		l.Release()
		return err
	}
	go s.watchLease(t, l)
	return nil
}

// errLeaseLost ends a turn whose replica could not renew the task's
// lease: another replica may run the task now, and this turn's save would
// fail anyway.
var errLeaseLost = errors.New("this server lost the task's lease (the database did not answer in time); send the message again")

// watchLease cancels the running turn of t when lease l is lost while t
// holds it.
func (s *Server) watchLease(t *task, l Lease) {
	<-l.Lost()
	t.mu.Lock()
	turn := t.turn
	t.mu.Unlock()
	t.leaseMu.Lock()
	held := t.lease == l
	t.leaseMu.Unlock()
	if held && turn != nil {
		s.log.Warn("a2a: lost a task's lease; its turn stops", "task", t.id)
		turn.Cancel(errLeaseLost)
	}
}

// leaseLost reports whether the lease t's queued turns run under was
// lost (the store could not renew it in time).
func (s *Server) leaseLost(t *task) bool {
	if s.shared == nil {
		return false
	}
	t.leaseMu.Lock()
	l := t.lease
	t.leaseMu.Unlock()
	if l == nil {
		return false
	}
	select {
	case <-l.Lost():
		return true
	default:
		return false
	}
}

// releaseLease gives t's lease back once no turn runs or waits for it in
// this process.
func (s *Server) releaseLease(t *task) {
	if s.shared == nil {
		return
	}
	t.leaseMu.Lock()
	defer t.leaseMu.Unlock()
	t.mu.Lock()
	running := t.running
	t.mu.Unlock()
	if running || t.lease == nil {
		return
	}
	t.lease.Release()
	t.lease = nil
}

// claimAnswers claims, in a shared store, the pending calls the answers
// confirm, and returns those this process may run and an error naming the
// others, which another request (here or on another replica) answered
// first. Without a shared store every answer is returned.
func (s *Server) claimAnswers(ctx context.Context, t *task, answers []agent.Answer) ([]agent.Answer, error) {
	if s.shared == nil || len(answers) == 0 {
		return answers, nil
	}
	var ok []agent.Answer
	var refused []string
	for _, a := range answers {
		claimed, v, err := s.shared.ClaimPending(ctx, t.id, a.CallID)
		if err != nil {
			return ok, err
		}
		if !claimed {
			refused = append(refused, a.CallID)
			continue
		}
		t.mu.Lock()
		t.version = v
		t.mu.Unlock()
		ok = append(ok, a)
	}
	if len(refused) > 0 {
		return ok, fmt.Errorf("tool call %v was already answered; its confirmation was not applied again", refused)
	}
	return ok, nil
}

// withLease runs fn, a change of t outside its turns (a cancellation, a
// push config), under t's lease, on t as the store has it: it waits for a
// turn running on another replica to end, so that the turn's save and
// this change do not overwrite each other. Without a shared store it runs
// fn.
func (s *Server) withLease(ctx context.Context, t *task, fn func() *rpcError) *rpcError {
	if s.shared == nil {
		return fn()
	}
	t.leaseMu.Lock()
	if err := s.holdLease(ctx, t); err != nil {
		t.leaseMu.Unlock()
		return jsonrpc.AsError(err)
	}
	e := fn()
	t.leaseMu.Unlock()
	s.releaseLease(t)
	return e
}

// runningElsewhere reports whether t's turn runs on another replica.
func (s *Server) runningElsewhere(ctx context.Context, t *task) bool {
	if s.shared == nil {
		return false
	}
	t.mu.Lock()
	maybe := !t.running && !t.state.Terminal() && t.state != StateInputRequired
	t.mu.Unlock()
	if !maybe {
		return false
	}
	busy, err := s.shared.LeasedElsewhere(ctx, t.id)
	return err == nil && busy
}

// cancelShared cancels t with a shared store: a turn running on another
// replica is asked to stop (RequestCancel) and waited for; a task idle
// everywhere is cancelled here, under its lease.
func (s *Server) cancelShared(ctx context.Context, t *task) *rpcError {
	if s.runningElsewhere(ctx, t) {
		if err := s.shared.RequestCancel(ctx, t.id); err != nil {
			return jsonrpc.AsError(err)
		}
		if err := s.shared.WaitReleased(ctx, t.id); err != nil {
			return jsonrpc.AsError(err)
		}
		if _, err := s.reload(ctx, t); err != nil {
			return jsonrpc.AsError(err)
		}
		t.mu.Lock()
		st := t.state
		t.mu.Unlock()
		if st == StateCanceled {
			return nil
		}
		// The turn ended otherwise first (or its replica died): the task
		// is cancelled here, as an idle one.
	}
	return s.withLease(ctx, t, func() *rpcError { return s.cancelTask(ctx, t) })
}

// cancelRequested cancels the turn of task id running in this process,
// which another replica asked for (SharedStore.OnCancel).
func (s *Server) cancelRequested(id string) {
	t, ok := s.host.Get(id)
	if !ok {
		return
	}
	t.mu.Lock()
	running := t.running
	t.mu.Unlock()
	if running {
		ctx, cancel := context.WithTimeout(s.host.Context(), time.Minute)
		defer cancel()
		_ = s.cancelTask(ctx, t)
	}
}

// handleHealthz is the liveness probe: the process answers, 503 once it
// is shutting down.
func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	if s.closing.Load() {
		jsonrpc.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "shutting_down"})
		return
	}
	jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

// handleReadyz is the readiness probe: 503 while the server shuts down or
// its shared store (the database) does not answer within two seconds, so
// that a load balancer sends requests to the replicas that can serve
// them.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	if s.closing.Load() {
		jsonrpc.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "shutting_down"})
		return
	}
	if s.shared != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.shared.Ready(ctx); err != nil {
			jsonrpc.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "store_unavailable", "error": err.Error()})
			return
		}
	}
	jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{"status": "ready"})
}
