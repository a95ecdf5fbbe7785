package host_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
)

// builder counts the sessions a host.Session builds and closes.
type builder struct {
	mu            sync.Mutex
	built, closed int
	seen          [][]*genai.Content
	fail          error
	answers       []fake.Entry
}

func (b *builder) build(_ context.Context, history []*genai.Content) (*agent.Session, func() error, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return nil, nil, b.fail
	}
	b.built++
	b.seen = append(b.seen, history)
	sess := agent.New(agent.Config{Model: fake.Script(b.answers...), ModelName: "m", History: history})
	return sess, func() error {
		b.mu.Lock()
		b.closed++
		b.mu.Unlock()
		return nil
	}, nil
}

func texts(h []*genai.Content) []string {
	var out []string
	for _, c := range h {
		for _, p := range c.Parts {
			out = append(out, c.Role+":"+p.Text)
		}
	}
	return out
}

// turn runs one prompt through sess to its end.
func turn(t *testing.T, sess *agent.Session, prompt string) {
	t.Helper()
	for _, err := range sess.Send(t.Context(), genai.NewPartFromText(prompt)) {
		if err != nil {
			t.Fatalf("turn: %v", err)
		}
	}
}

func TestSession(t *testing.T) {
	stored := []*genai.Content{genai.NewContentFromText("before", genai.RoleUser), genai.NewContentFromText("earlier answer", genai.RoleModel)}
	tests := []struct {
		name string
		// run drives s; it returns what the test then checks.
		run         func(t *testing.T, s *host.Session)
		restore     []*genai.Content
		fail        error
		wantBuilt   int
		wantClosed  int
		wantHeld    bool
		wantKept    []string
		wantHistory [][]string // the history each build was given
	}{{
		name:        "built once on first use",
		run:         func(t *testing.T, s *host.Session) { get(t, s); get(t, s) },
		wantBuilt:   1,
		wantHeld:    true,
		wantHistory: [][]string{nil},
	}, {
		name:        "a stored conversation is continued",
		restore:     stored,
		run:         func(t *testing.T, s *host.Session) { get(t, s) },
		wantBuilt:   1,
		wantHeld:    true,
		wantKept:    []string{"user:before", "model:earlier answer"},
		wantHistory: [][]string{{"user:before", "model:earlier answer"}},
	}, {
		name: "released between turns and rebuilt from what it remembered",
		run: func(t *testing.T, s *host.Session) {
			turn(t, get(t, s), "hello")
			s.Remember()
			s.Release()()
			if s.Current() != nil {
				t.Error("a released session is still current")
			}
			get(t, s)
		},
		wantBuilt:   2,
		wantClosed:  1,
		wantHeld:    true,
		wantKept:    []string{"user:hello", "model:hi"},
		wantHistory: [][]string{nil, {"user:hello", "model:hi"}},
	}, {
		name: "released without being remembered keeps the restored conversation",
		run: func(t *testing.T, s *host.Session) {
			turn(t, get(t, s), "hello")
			s.Release()()
		},
		restore:     stored,
		wantBuilt:   1,
		wantClosed:  1,
		wantKept:    []string{"user:before", "model:earlier answer"},
		wantHistory: [][]string{{"user:before", "model:earlier answer"}},
	}, {
		name:     "releasing or closing what was never built does nothing",
		run:      func(t *testing.T, s *host.Session) { s.Release()(); s.Close(); s.Remember() },
		restore:  stored,
		wantKept: []string{"user:before", "model:earlier answer"},
	}, {
		name:        "closed at shutdown",
		run:         func(t *testing.T, s *host.Session) { get(t, s); s.Close() },
		wantBuilt:   1,
		wantClosed:  1,
		wantHistory: [][]string{nil},
	}, {
		name: "a failed build leaves no session",
		fail: errors.New("no model"),
		run: func(t *testing.T, s *host.Session) {
			if _, err := s.Get(t.Context()); err == nil || err.Error() != "no model" {
				t.Errorf("Get: %v, want the build's error", err)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builder{fail: tt.fail, answers: []fake.Entry{fake.Text("hi")}}
			s := host.NewSession(b.build, "restarted", nil)
			if tt.restore != nil {
				s.Restore(tt.restore, nil)
			}
			tt.run(t, s)
			if b.built != tt.wantBuilt || b.closed != tt.wantClosed {
				t.Errorf("built %d, closed %d; want %d, %d", b.built, b.closed, tt.wantBuilt, tt.wantClosed)
			}
			if held := s.Current() != nil; held != tt.wantHeld {
				t.Errorf("held %v, want %v", held, tt.wantHeld)
			}
			kept, _ := s.Kept()
			if got := texts(kept); !equal(got, tt.wantKept) {
				t.Errorf("kept %q, want %q", got, tt.wantKept)
			}
			if len(b.seen) != len(tt.wantHistory) {
				t.Fatalf("%d builds seen, want %d", len(b.seen), len(tt.wantHistory))
			}
			for i, h := range b.seen {
				if got := texts(h); !equal(got, tt.wantHistory[i]) {
					t.Errorf("build %d got history %q, want %q", i, got, tt.wantHistory[i])
				}
			}
		})
	}
}

// TestSessionBuildsOnce: first uses at once share one session.
func TestSessionBuildsOnce(t *testing.T) {
	b := &builder{}
	s := host.NewSession(b.build, "restarted", nil)
	var wg sync.WaitGroup
	got := make([]*agent.Session, 8)
	for i := range got {
		wg.Go(func() { got[i] = get(t, s) })
	}
	wg.Wait()
	for _, sess := range got {
		if sess != got[0] {
			t.Fatal("concurrent first uses got different sessions")
		}
	}
	if b.built != 1 {
		t.Errorf("built %d sessions, want 1", b.built)
	}
}

func get(t *testing.T, s *host.Session) *agent.Session {
	t.Helper()
	sess, err := s.Get(t.Context())
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return sess
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
