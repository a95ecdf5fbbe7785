package host

import (
	"context"
	"sync"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
)

// Session is an item's engine session, built on the item's first use in
// this process and given up between turns when the host needs the memory
// (Item.ReleaseSession). What it keeps of the session outlives it: the
// conversation and the calls a paused turn waits on, which the item saves
// (Kept), and from which the next use rebuilds the session with
// agent.Session.Continue, as after a restart.
type Session struct {
	build  BuildFunc
	reason string
	warn   func(error)

	// building lets one build run at a time: two first uses at once
	// (a turn and a metadata request) share one session.
	building sync.Mutex

	mu      sync.Mutex
	sess    *agent.Session
	close   func() error
	history []*genai.Content
	paused  []agent.PendingCall
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
// turn ends: they are what the item saves and what a rebuilt session
// continues. Without a live session it keeps what it had.
func (s *Session) Remember() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != nil {
		s.history, s.paused = s.sess.History(), s.sess.PausedCalls()
	}
}

// Current returns the live session, or nil when none is built.
func (s *Session) Current() *agent.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// Get returns the live session, building it first when there is none:
// the new session continues the kept conversation and pauses again on the
// kept calls.
func (s *Session) Get(ctx context.Context) (*agent.Session, error) {
	if sess := s.Current(); sess != nil {
		return sess, nil
	}
	s.building.Lock()
	defer s.building.Unlock()
	s.mu.Lock()
	sess, history, paused := s.sess, s.history, s.paused
	s.mu.Unlock()
	if sess != nil {
		return sess, nil // built while this call waited
	}
	sess, closeSession, err := s.build(ctx, history)
	if err != nil {
		return nil, err
	}
	if err := sess.Continue(ctx, history, paused, s.reason); err != nil && s.warn != nil {
		s.warn(err)
	}
	s.mu.Lock()
	s.sess, s.close = sess, closeSession
	s.mu.Unlock()
	return sess, nil
}

// Release gives up the live session, keeping what it remembered, and
// returns the function that closes it, which the caller runs outside its
// own locks (closing may wait for MCP servers to stop). The item decides,
// under its lock, that nothing uses the session; the next Get rebuilds
// it.
func (s *Session) Release() (closeSession func()) {
	s.mu.Lock()
	c := s.close
	held := s.sess != nil
	s.sess, s.close = nil, nil
	s.mu.Unlock()
	return func() {
		if held && c != nil {
			c()
		}
	}
}

// Close gives up the live session and closes it at once (Shutdown).
func (s *Session) Close() { s.Release()() }
