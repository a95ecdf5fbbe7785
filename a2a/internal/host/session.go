package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
)

// Session is an item's engine session, built on the item's first use in
// this process and given up between turns when the host needs the memory
// (Item.ReleaseSession). What it keeps of the session outlives it: the
// conversation and the calls a paused turn waits on, which the item saves
// (Kept), and from which the next use rebuilds the session with
// agent.Session.Continue, as after a restart.
//
// A build belongs to no caller: it runs detached from the context of the
// use that started it, and every use waiting for it (a turn, a metadata
// request) waits as long as its own context lasts. A request that gives
// up does not cancel the build another use waits on.
type Session struct {
	build  BuildFunc
	reason string
	warn   func(error)

	mu      sync.Mutex
	sess    *agent.Session
	close   func() error
	history []*genai.Content
	paused  []agent.PendingCall
	// flight is the build in progress; closed is set by Close, after
	// which a build that ends closes what it built.
	flight *flight
	closed bool
	// used is the time of the last use (Get).
	used time.Time
}

// flight is one build, which every use waiting for it shares.
type flight struct {
	done chan struct{}
	sess *agent.Session
	err  error
	// released is set when the item gave the session up (Release) while
	// the build ran: what it builds is closed, not kept, since the item
	// (evicted, say) may never release it again.
	released bool
}

// BuildFunc builds an item's engine session, seeded with history; it
// returns the session and a function releasing what the session holds.
type BuildFunc func(ctx context.Context, history []*genai.Content) (*agent.Session, func() error, error)

// NewSession returns an item's session, which build builds when first
// needed. reason answers the paused calls that cannot wait again after a
// rebuild (agent.Session.Continue), and warn, when set, is told why.
func NewSession(build BuildFunc, reason string, warn func(error)) *Session {
	return &Session{build: build, reason: reason, warn: warn}
}

// Restore sets what the session continues when it is next built: a
// conversation and the calls its last turn paused on, as Kept gave them
// (a stored item's).
func (s *Session) Restore(history []*genai.Content, paused []agent.PendingCall) {
	s.mu.Lock()
	s.history, s.paused = history, paused
	s.mu.Unlock()
}

// Kept returns the conversation and paused calls the session kept when
// last asked to (Remember) or was restored with.
func (s *Session) Kept() ([]*genai.Content, []agent.PendingCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.history, s.paused
}

// Remember keeps the live session's conversation and paused calls, as a
// turn ends or, mid-turn, before the item saves its progress: they are
// what the item saves and what a rebuilt session continues. Without a
// live session it keeps what it had.
func (s *Session) Remember() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != nil {
		s.history, s.paused = s.sess.History(), s.sess.PausedCalls()
	}
}

// LastUsed is the time of the session's last use (Get), which the item
// reports as Usage.SessionUsed.
func (s *Session) LastUsed() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// Current returns the live session, or nil when none is built.
func (s *Session) Current() *agent.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// Get returns the live session, building it first when there is none:
// the new session continues the kept conversation and pauses again on the
// kept calls. It waits for a build as long as ctx lasts; the build goes on
// without it (see Session).
func (s *Session) Get(ctx context.Context) (*agent.Session, error) {
	s.mu.Lock()
	s.used = time.Now()
	if s.sess != nil {
		sess := s.sess
		s.mu.Unlock()
		return sess, nil
	}
	if s.closed {
		// Shut down: a build now would only be closed as it ends.
		s.mu.Unlock()
		return nil, errSessionClosed
	}
	f := s.flight
	if f == nil {
		f = &flight{done: make(chan struct{})}
		s.flight = f
		go s.run(context.WithoutCancel(ctx), f, s.history, s.paused)
	}
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.sess, f.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// errSessionClosed is the error of a use of a session closed (Close) or
// released while it was being built.
var errSessionClosed = errors.New("the session was closed before it could be used")

// run builds the session for flight f. A failed build is not kept: the
// next use tries again.
func (s *Session) run(ctx context.Context, f *flight, history []*genai.Content, paused []agent.PendingCall) {
	defer close(f.done)
	sess, closeSession, err := s.buildSafely(ctx, history)
	if err == nil {
		if cerr := sess.Continue(ctx, history, paused, s.reason); cerr != nil && s.warn != nil {
			s.warn(cerr)
		}
	}
	s.mu.Lock()
	s.flight = nil
	closed := s.closed || f.released
	if err == nil && !closed {
		s.sess, s.close = sess, closeSession
	}
	s.mu.Unlock()
	if err == nil && closed {
		// Shut down or released while building: nothing will close it
		// otherwise.
		if closeSession != nil {
			closeSession()
		}
		sess, err = nil, errSessionClosed
	}
	f.sess, f.err = sess, err
}

// buildSafely runs the build, turning a panic into an error: the build
// runs on its own goroutine, where a panic would end the process.
func (s *Session) buildSafely(ctx context.Context, history []*genai.Content) (sess *agent.Session, closeSession func() error, err error) {
	defer func() {
		if p := recover(); p != nil {
			sess, closeSession, err = nil, nil, fmt.Errorf("building the session panicked: %v", p)
		}
	}()
	return s.build(ctx, history)
}

// Release gives up the live session, keeping what it remembered, and
// returns the function that closes it, which the caller runs outside its
// own locks (closing may wait for MCP servers to stop). The item decides,
// under its lock, that nothing uses the session; the next Get rebuilds
// it. A build under way then closes what it builds.
func (s *Session) Release() (closeSession func()) {
	s.mu.Lock()
	c := s.close
	held := s.sess != nil
	s.sess, s.close = nil, nil
	if s.flight != nil {
		s.flight.released = true
	}
	s.mu.Unlock()
	return func() {
		if held && c != nil {
			c()
		}
	}
}

// Close gives up the live session and closes it at once (Shutdown); a
// build in progress closes what it builds.
func (s *Session) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.Release()()
}
