package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// recordingObserver writes what it is told as lines.
type recordingObserver struct {
	mu    sync.Mutex
	lines []string
}

type obsKey struct{}

func (o *recordingObserver) add(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lines = append(o.lines, fmt.Sprintf(format, args...))
}

func (o *recordingObserver) TurnStarted(ctx context.Context, t *ObservedTurn) (context.Context, func(TurnEndReason, error)) {
	o.add("turn %s prompt=%q resumed=%v", t.PromptID, t.Prompt, t.Resumed)
	return context.WithValue(ctx, obsKey{}, t.PromptID), func(reason TurnEndReason, err error) {
		o.add("end %s reason=%s err=%v", t.PromptID, reason, err)
	}
}

func (o *recordingObserver) ModelCalled(ctx context.Context, m *ObservedModelCall) {
	var in int32
	if m.Usage != nil {
		in = m.Usage.PromptTokenCount
	}
	o.add("model %s(%v) %s role=%s in=%d text=%q err=%v", m.PromptID, ctx.Value(obsKey{}), m.ResponseModel, m.Role, in, m.ResponseText, m.Err)
}

func (o *recordingObserver) ToolCalled(ctx context.Context, c *ObservedToolCall) {
	o.add("tool %s(%v) %s %s decision=%s", c.Call.PromptID, ctx.Value(obsKey{}), c.Call.Name, c.Call.Status, c.Decision)
}

func (o *recordingObserver) Compressed(_ context.Context, sessionID string, info CompressionInfo) {
	o.add("compressed %s %d->%d %s", sessionID, info.OriginalTokens, info.NewTokens, info.Status)
}

func (o *recordingObserver) Routed(ctx context.Context, r *ObservedRouting) {
	o.add("routed %s(%v) %s by %s %q err=%v", r.PromptID, ctx.Value(obsKey{}), r.Model, r.Source, r.Reasoning, r.Err)
}

// routingModel reports a routing decision on each streamed call, as the
// model router does, then answers as scripted.
type routingModel struct{ *scripted }

func (m routingModel) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	if req.Observe != nil {
		req.Observe(model.Notice{Kind: model.NoticeRouted, Model: "gemini-flash", Source: "agent-router/Classifier", Reasoning: "short"})
	}
	return m.scripted.GenerateContentStream(ctx, req)
}

// TestObserverSeesRouting: a routing decision the model reports reaches
// an Observer that wants it, in the turn's context.
func TestObserverSeesRouting(t *testing.T) {
	obs := &recordingObserver{}
	s := New(Config{Model: routingModel{&scripted{turns: [][]*genai.Part{{{Text: "hi"}}}}}, ModelName: "auto", SessionID: "s1", Observer: obs})
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("x"))); err != nil {
		t.Fatal(err)
	}
	want := `routed s1########1(s1########1) gemini-flash by agent-router/Classifier "short" err=<nil>`
	if !slices.Contains(obs.lines, want) {
		t.Errorf("observed:\n%s\nwant the line %s", strings.Join(obs.lines, "\n"), want)
	}
}

// TestObserverSeesTurns checks what an Observer is told of a turn with a
// tool call, a turn paused for approval and resumed, and a failed model
// call: the turn's context reaches the calls' observations.
func TestObserverSeesTurns(t *testing.T) {
	echo := echoTool{name: "echo", kind: tool.KindEdit} // asks in default mode
	tests := []struct {
		name string
		mode policy.Mode
		m    *scripted
		run  func(t *testing.T, s *Session)
		want []string
	}{
		{
			name: "tool call then answer",
			mode: policy.ModeYolo,
			m:    &scripted{turns: [][]*genai.Part{{call("echo", map[string]any{"text": "a"})}, {{Text: "done"}}}},
			run: func(t *testing.T, s *Session) {
				if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("hi"))); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{
				`turn s1########1 prompt="hi" resumed=false`,
				`model s1########1(s1########1) gemini-fake role=main in=10 text="" err=<nil>`,
				`tool s1########1(s1########1) echo success decision=auto_accept`,
				`model s1########1(s1########1) gemini-fake role=main in=10 text="done" err=<nil>`,
				`end s1########1 reason=completed err=<nil>`,
			},
		},
		{
			name: "paused and resumed",
			mode: policy.ModeDefault,
			m:    &scripted{turns: [][]*genai.Part{{call("echo", map[string]any{"text": "a"})}, {{Text: "ok"}}}},
			run: func(t *testing.T, s *Session) {
				if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
					t.Fatal(err)
				}
				if err := s.Answer(s.Pending()[0].ID, tool.Decision{Outcome: tool.ProceedOnce}); err != nil {
					t.Fatal(err)
				}
				if _, err := collect(t, s.Resume(context.Background())); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{
				`turn s1########1 prompt="go" resumed=false`,
				`model s1########1(s1########1) gemini-fake role=main in=10 text="" err=<nil>`,
				`end s1########1 reason=input_required err=<nil>`,
				`turn s1########1 prompt="" resumed=true`,
				`tool s1########1(s1########1) echo success decision=accept`,
				`model s1########1(s1########1) gemini-fake role=main in=10 text="ok" err=<nil>`,
				`end s1########1 reason=completed err=<nil>`,
			},
		},
		{
			name: "model failure",
			mode: policy.ModeYolo,
			m:    &scripted{errs: map[int]error{0: errors.New("boom")}},
			run: func(t *testing.T, s *Session) {
				if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("x"))); err == nil {
					t.Fatal("no error")
				}
			},
			want: []string{
				`turn s1########1 prompt="x" resumed=false`,
				`model s1########1(s1########1) gemini-2.5-pro role=main in=0 text="" err=boom`,
				`end s1########1 reason= err=boom`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := &recordingObserver{}
			s := New(Config{
				Model: tc.m, ModelName: "gemini-2.5-pro", SessionID: "s1",
				Tools:    tool.NewRegistry(echo),
				Policy:   policy.New(policy.Options{Mode: tc.mode, Interactive: tc.mode == policy.ModeDefault}),
				Observer: obs,
			})
			tc.run(t, s)
			if got, want := strings.Join(obs.lines, "\n"), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("observed:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func (o *recordingObserver) LoopFound(_ context.Context, l *ObservedLoop) {
	o.add("loop %s %s count=%d by=%s confidence=%v analysis=%q", l.PromptID, l.Type, l.Count, l.ConfirmedBy, l.Confidence, l.Analysis)
}

func (o *recordingObserver) LoopDetectionDisabled(_ context.Context, sessionID, promptID string) {
	o.add("loop detection disabled %s %s", sessionID, promptID)
}

func (o *recordingObserver) LoopChecked(_ context.Context, c *ObservedLoopCheck) {
	o.add("loop check %s first=%v %s=%v", c.PromptID, c.FirstConfidence, c.DoubleCheckModel, c.DoubleCheckConfidence)
}

// TestObserverSeesLoops: each loop found is told with its type and its
// count in the prompt (the first is told to the model, the second stops
// the prompt), and each model check with both confidences, as Gemini CLI
// logs loop_detected and llm_loop_check.
func TestObserverSeesLoops(t *testing.T) {
	loops := func(lines []string) []string {
		return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return !strings.HasPrefix(l, "loop ") })
	}
	t.Run("tool calls", func(t *testing.T) {
		same := []*genai.Part{call("echo", map[string]any{"text": "same"})}
		obs := &recordingObserver{}
		s := New(Config{Model: &scripted{turns: [][]*genai.Part{same, same, same, same, same, same, same, same, same, same, same}}, ModelName: "gemini-2.5-pro", SessionID: "s1",
			Tools: tool.NewRegistry(echoTool{name: "echo", kind: tool.KindRead}), Policy: policy.New(policy.Options{Mode: policy.ModeYolo}), Observer: obs})
		if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); !errors.Is(err, ErrLoopDetected) {
			t.Fatalf("err = %v", err)
		}
		want := []string{
			`loop s1########1 consecutive_identical_tool_calls count=1 by= confidence=0 analysis=""`,
			`loop s1########1 consecutive_identical_tool_calls count=2 by= confidence=0 analysis=""`,
		}
		if got := loops(obs.lines); !slices.Equal(got, want) {
			t.Errorf("observed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("model check", func(t *testing.T) {
		m := &checked{turns: 100, verdicts: []checkAnswer{verdict(0.5, "fine"), verdict(0.95, "flash says loop"), verdict(0.97, "It keeps echoing numbers.")}}
		obs := &recordingObserver{}
		s := New(Config{Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1", Tools: tool.NewRegistry(echoTool{name: "echo", kind: tool.KindRead}),
			Policy: policy.New(policy.Options{Mode: policy.ModeYolo}), LoopCheck: &LoopCheck{Model: "check-flash", DoubleCheckModel: "check-pro"}, Observer: obs})
		collect(t, s.Send(context.Background(), genai.NewPartFromText("count")))
		got := loops(obs.lines)
		want := []string{
			`loop check s1########1 first=0.5 check-pro=-1`,
			`loop check s1########1 first=0.95 check-pro=0.97`,
			`loop s1########1 llm_detected_loop count=1 by=check-pro confidence=0.9 analysis="It keeps echoing numbers."`,
		}
		if len(got) < 3 || !slices.Equal(got[:3], want) {
			t.Errorf("observed:\n%s\nwant first:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
