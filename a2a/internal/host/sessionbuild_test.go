package host_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/agent"
)

// TestSessionBuildOutlivesItsCaller: a use that gives up (a metadata
// request whose client left) does not cancel the build another use (a
// turn) waits on; the build runs once, and neither waits longer than its
// own context lasts.
func TestSessionBuildOutlivesItsCaller(t *testing.T) {
	b := &builder{}
	release := make(chan struct{})
	var mu sync.Mutex
	var builds int
	var buildCtx context.Context
	s := host.NewSession(func(ctx context.Context, h []*genai.Content) (*agent.Session, func() error, error) {
		mu.Lock()
		builds++
		buildCtx = ctx
		mu.Unlock()
		select {
		case <-release:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return b.build(ctx, h)
	}, "restarted", nil)

	metadata, leave := context.WithCancel(t.Context())
	first := make(chan error, 1)
	go func() { _, err := s.Get(metadata); first <- err }()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return builds == 1 })
	turn := make(chan *agent.Session, 1)
	go func() { sess, _ := s.Get(t.Context()); turn <- sess }()
	leave()
	select {
	case err := <-first:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the request that left: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a use that gave up still waits for the build")
	}
	mu.Lock()
	cancelled := buildCtx.Err()
	mu.Unlock()
	if cancelled != nil {
		t.Errorf("the build was cancelled with its first caller: %v", cancelled)
	}
	close(release)
	var sess *agent.Session
	select {
	case sess = <-turn:
	case <-time.After(20 * time.Second):
		t.Fatal("the turn never got its session")
	}
	if sess == nil || builds != 1 {
		t.Errorf("session %p after %d builds, want one build", sess, builds)
	}
}

// TestSessionBuildPanics: a build that panics fails the use, not the
// process, and the next use builds again.
func TestSessionBuildPanics(t *testing.T) {
	b := &builder{}
	panicked := false
	s := host.NewSession(func(ctx context.Context, h []*genai.Content) (*agent.Session, func() error, error) {
		if !panicked {
			panicked = true
			panic("boom")
		}
		return b.build(ctx, h)
	}, "restarted", nil)
	if _, err := s.Get(t.Context()); err == nil {
		t.Fatal("a panicking build succeeded")
	}
	if sess, err := s.Get(t.Context()); err != nil || sess == nil {
		t.Errorf("the next build: %v", err)
	}
}

// TestSessionClosedWhileBuilding: a session closed (Shutdown) while it is
// being built closes what the build returns.
func TestSessionClosedWhileBuilding(t *testing.T) {
	b := &builder{}
	release := make(chan struct{})
	started := make(chan struct{})
	s := host.NewSession(func(ctx context.Context, h []*genai.Content) (*agent.Session, func() error, error) {
		close(started)
		<-release
		return b.build(ctx, h)
	}, "restarted", nil)
	got := make(chan error, 1)
	go func() { _, err := s.Get(t.Context()); got <- err }()
	<-started
	s.Close()
	close(release)
	if err := <-got; err == nil {
		t.Error("a build after Close handed out its session")
	}
	if b.closed != 1 || s.Current() != nil {
		t.Errorf("closed %d, current %p", b.closed, s.Current())
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition never met")
		}
	}
}

// TestSessionReleasedWhileBuilding: an item released (evicted) while a
// build another use started still runs does not keep what the build makes:
// the evicted item would hold it, its MCP servers running, with nothing
// left to close it. The build closes it, and the next use builds anew.
func TestSessionReleasedWhileBuilding(t *testing.T) {
	b := &builder{}
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	s := host.NewSession(func(ctx context.Context, h []*genai.Content) (*agent.Session, func() error, error) {
		started <- struct{}{}
		<-release
		return b.build(ctx, h)
	}, "restarted", nil)
	metadata, leave := context.WithCancel(t.Context())
	got := make(chan error, 1)
	go func() { _, err := s.Get(metadata); got <- err }()
	<-started
	leave()
	<-got
	s.Release()()
	close(release)
	waitFor(t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.built == 1 && (b.closed == 1 || s.Current() != nil)
	})
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if s.Current() != nil || closed != 1 {
		t.Fatalf("after a release during the build: live session %v, %d closed; want none live, 1 closed", s.Current() != nil, closed)
	}
	// The next use builds again.
	go func() { <-started }()
	sess, err := s.Get(t.Context())
	if err != nil || sess == nil {
		t.Fatalf("the use after the release: %v", err)
	}
}

// TestSessionGetAfterClose: a use that comes after Close (a request
// racing the shutdown) fails at once; it does not build a session (start
// MCP servers) only for the build to close it.
func TestSessionGetAfterClose(t *testing.T) {
	b := &builder{}
	s := host.NewSession(b.build, "restarted", nil)
	s.Close()
	if sess, err := s.Get(t.Context()); err == nil || sess != nil {
		t.Fatalf("Get after Close = %v, %v; want an error", sess, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.built != 0 {
		t.Errorf("Get after Close built %d sessions", b.built)
	}
}
