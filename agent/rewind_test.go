package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// rewindRecorder records the prompts rewound to.
type rewindRecorder struct {
	nopRecorder
	rewound []string
}

func (r *rewindRecorder) RecordRewind(id string) error {
	r.rewound = append(r.rewound, id)
	return nil
}

type nopRecorder struct{}

func (nopRecorder) RecordUser(string, []*genai.Part) {}
func (nopRecorder) RecordModel(*ModelTurn)           {}
func (nopRecorder) RecordError(string)               {}

func TestRewind(t *testing.T) {
	tests := []struct {
		name string
		to   int // index of the prompt rewound to
		// want is the texts of the user prompts left, in order.
		want []string
	}{
		{"last prompt", 2, []string{"one", "two"}},
		{"middle prompt, with its tool calls", 1, []string{"one"}},
		// The environment context goes with the first prompt, and comes
		// back with the next one.
		{"first prompt", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{turns: [][]*genai.Part{
				{{Text: "A1"}},
				{call("echo", map[string]any{"text": "x"})}, {{Text: "A2"}},
				{{Text: "A3"}},
				{{Text: "A4"}},
			}}
			s := newTestSession(m, policy.ModeYolo, false, echoTool{name: "echo", kind: tool.KindRead})
			rec := &rewindRecorder{}
			s.cfg.Recorder = rec
			for _, p := range []string{"one", "two", "three"} {
				if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText(p))); err != nil {
					t.Fatal(err)
				}
			}
			prompts := s.Prompts()
			if len(prompts) != 3 || prompts[1].Text != "two" || prompts[1].ID != "s1########2" {
				t.Fatalf("prompts %+v", prompts)
			}
			got, err := s.Rewind(prompts[tt.to].ID)
			if err != nil || got.Text != prompts[tt.to].Text {
				t.Fatalf("Rewind = %+v, %v", got, err)
			}
			if len(rec.rewound) != 1 || rec.rewound[0] != prompts[tt.to].ID {
				t.Errorf("recorded rewinds %v", rec.rewound)
			}
			if n := len(s.Prompts()); n != tt.to {
				t.Errorf("%d prompts left, want %d", n, tt.to)
			}
			if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("again"))); err != nil {
				t.Fatal(err)
			}
			req := m.reqs[len(m.reqs)-1]
			var users []string
			env := false
			for _, c := range req.Contents {
				for _, p := range c.Parts {
					switch {
					case c.Role == genai.RoleUser && strings.HasPrefix(p.Text, "<session_context>"):
						env = true
					case c.Role == genai.RoleUser && p.Text != "":
						users = append(users, p.Text)
					}
				}
			}
			want := append(append([]string(nil), tt.want...), "again")
			if strings.Join(users, ",") != strings.Join(want, ",") || !env {
				t.Errorf("sent prompts %v (env context %v), want %v", users, env, want)
			}
		})
	}
}

func TestRewindRefusals(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{{Text: "A1"}}}}
	s := newTestSession(m, policy.ModeDefault, false)
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("one"))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rewind("nope"); !errors.Is(err, ErrNoSuchPrompt) {
		t.Errorf("unknown prompt: %v", err)
	}
	id := s.Prompts()[0].ID
	// A replaced history (a checkpoint restore) has none of the prompts.
	if err := s.SetHistory([]*genai.Content{genai.NewContentFromText("other", genai.RoleUser)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rewind(id); !errors.Is(err, ErrNoSuchPrompt) {
		t.Errorf("after SetHistory: %v", err)
	}
}

// TestRewindFirstFails: when the step run before a rewind or a history
// replacement fails (the files could not be restored), the conversation
// is left as it was and the error returned.
func TestRewindFirstFails(t *testing.T) {
	broken := errors.New("checkpoint commit missing")
	for _, tt := range []struct {
		name string
		do   func(s *Session, id string) error
	}{
		{"RewindWith", func(s *Session, id string) error {
			_, err := s.RewindWith(id, func(Prompt) error { return broken })
			return err
		}},
		{"ReplaceHistory", func(s *Session, _ string) error {
			return s.ReplaceHistory(nil, func() error { return broken })
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{turns: [][]*genai.Part{{{Text: "A1"}}, {{Text: "A2"}}}}
			s := newTestSession(m, policy.ModeDefault, false)
			rec := &rewindRecorder{}
			s.cfg.Recorder = rec
			for _, p := range []string{"one", "two"} {
				if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText(p))); err != nil {
					t.Fatal(err)
				}
			}
			before := mustJSON(s.History())
			if err := tt.do(s, s.Prompts()[1].ID); !errors.Is(err, broken) {
				t.Errorf("error %v, want %v", err, broken)
			}
			if got := mustJSON(s.History()); got != before {
				t.Errorf("history changed:\n%s\nwas\n%s", got, before)
			}
			if len(s.Prompts()) != 2 || len(rec.rewound) != 0 {
				t.Errorf("prompts %v, recorded rewinds %v", s.Prompts(), rec.rewound)
			}
		})
	}
}

// TestRewindRestoredHistory: the prompts of a history the session starts
// with (a resume, an A2A task after a restart) can be rewound to, the
// context sent along them left out of their text.
func TestRewindRestoredHistory(t *testing.T) {
	user := func(texts ...string) *genai.Content {
		c := &genai.Content{Role: genai.RoleUser}
		for _, s := range texts {
			c.Parts = append(c.Parts, &genai.Part{Text: s})
		}
		return c
	}
	mdl := func(s string) *genai.Content { return genai.NewContentFromText(s, genai.RoleModel) }
	history := []*genai.Content{
		user("<session_context>env</session_context>"), user("one"), mdl("A1"),
		user("Here is the user's editor context as a JSON object.", "two"), mdl("A2"),
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "x", Response: map[string]any{"output": "y"}}}}},
		mdl("A3"),
	}
	m := &scripted{turns: [][]*genai.Part{{{Text: "A4"}}}}
	s := New(Config{Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1", History: history})
	prompts := s.Prompts()
	var texts []string
	for _, p := range prompts {
		texts = append(texts, p.Text)
		if !p.Time.IsZero() {
			t.Errorf("%q has a time: %v", p.Text, p.Time)
		}
	}
	if strings.Join(texts, "|") != "one|two" {
		t.Fatalf("prompts %q, want one|two", texts)
	}
	if _, err := s.Rewind(prompts[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("three"))); err != nil {
		t.Fatal(err)
	}
	sent := mustJSON(m.reqs[0].Contents)
	if !strings.Contains(sent, `"one"`) || !strings.Contains(sent, "A1") || strings.Contains(sent, `"two"`) || strings.Contains(sent, "A2") {
		t.Errorf("after the rewind the model got %s", sent)
	}
}
