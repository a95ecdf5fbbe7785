package agent

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// The BenchmarkTurn* benchmarks measure the engine's own cost of one
// Session.Send turn: the model is the in-memory scripted model of
// session_test.go (it answers at once) and the tools are in-memory, so
// what remains is history handling, request building, policy, scheduling,
// events and stats. Every iteration is a steady-state turn (not the
// session's first prompt): the history is cut back to its state before
// the turn once the turn has ended, so it does not grow with b.N.
//
//	go test ./agent -run '^$' -bench BenchmarkTurn -benchmem

// benchTurn runs one prompt per iteration on s, replaying script.
func benchTurn(b *testing.B, s *Session, m *scripted, script [][]*genai.Part) {
	b.Helper()
	ctx := context.Background()
	prompt := genai.NewPartFromText("benchmark prompt")
	// A warm-up turn outside the timing (a new session's first turn also
	// carries the environment context).
	m.turns = script
	if err := drain(s.Send(ctx, prompt)); err != nil {
		b.Fatal(err)
	}
	s.mu.Lock()
	base := len(s.hist)
	s.mu.Unlock()
	events, turns := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		turns++
		m.mu.Lock()
		m.turns = script
		m.reqs = m.reqs[:0]
		m.mu.Unlock()
		for _, err := range s.Send(ctx, prompt) {
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		s.mu.Lock()
		clear(s.hist[base:])
		s.hist = s.hist[:base]
		s.mu.Unlock()
	}
	b.ReportMetric(float64(events)/float64(turns), "events/op")
}

func drain(seq iter.Seq2[*Event, error]) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func newBenchSession(m *scripted, hist []*genai.Content, tools ...tool.Tool) *Session {
	return New(Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "bench",
		SystemInstruction: func() string { return benchSystemPrompt },
		Tools:             tool.NewRegistry(tools...),
		Policy:            policy.New(policy.Options{Mode: policy.ModeDefault}),
		EnvContext:        func() string { return "<session_context>env</session_context>" },
		History:           hist,
	})
}

// benchSystemPrompt stands in for the ~10 KB system prompt.
var benchSystemPrompt = strings.Repeat("You are an interactive CLI agent. ", 300)

// BenchmarkTurnText is a text-only turn: one model call, no tools.
func BenchmarkTurnText(b *testing.B) {
	m := &scripted{}
	s := newBenchSession(m, nil, newFixedTool("echo"))
	benchTurn(b, s, m, [][]*genai.Part{{{Text: "Hello"}, {Text: " world."}}})
}

// BenchmarkTurnTwoParallelTools is a turn where the model asks for two
// read-only calls at once (run in parallel), then answers: two model
// calls, two tool executions.
func BenchmarkTurnTwoParallelTools(b *testing.B) {
	m := &scripted{}
	s := newBenchSession(m, nil, newFixedTool("echo"))
	benchTurn(b, s, m, [][]*genai.Part{
		{{Text: "Let me look."}, call("echo", map[string]any{"text": "one"}), call("echo", map[string]any{"text": "two"})},
		{{Text: "Done."}},
	})
}

// BenchmarkTurnLongHistory is a text-only turn on a session that already
// holds 200 contents (50 exchanges of a question, a function call, its
// response and an answer).
func BenchmarkTurnLongHistory(b *testing.B) {
	m := &scripted{}
	s := newBenchSession(m, longHistory(200), newFixedTool("echo"))
	benchTurn(b, s, m, [][]*genai.Part{{{Text: "Hello"}, {Text: " world."}}})
}

// BenchmarkTurnTextBuiltinTools is BenchmarkTurnText with Castor's 13
// built-in tools registered and declared (yolo mode, as in `castor -y`):
// their declarations are built for every model call.
func BenchmarkTurnTextBuiltinTools(b *testing.B) {
	m := &scripted{}
	env := &builtin.Env{Workspace: tool.NewWorkspace(b.TempDir()), TempDir: b.TempDir(), Model: m, ModelName: "gemini-2.5-pro"}
	s := New(Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "bench",
		SystemInstruction: func() string { return benchSystemPrompt },
		Tools:             tool.NewRegistry(builtin.All(env)...),
		Policy:            policy.New(policy.Options{Mode: policy.ModeYolo}),
	})
	benchTurn(b, s, m, [][]*genai.Part{{{Text: "Hello"}, {Text: " world."}}})
}

// fixedTool is echoTool with its schema built once, so that the turn
// benchmarks measure the engine rather than the tool's Schema method.
type fixedTool struct {
	echoTool
	schema map[string]any
}

func newFixedTool(name string) fixedTool {
	t := echoTool{name: name, kind: tool.KindRead}
	return fixedTool{echoTool: t, schema: t.Schema()}
}

func (t fixedTool) Schema() map[string]any { return t.schema }

// longHistory returns n contents: exchanges of a user question, a model
// function call, its response and the model's answer.
func longHistory(n int) []*genai.Content {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	var h []*genai.Content
	for i := 0; len(h) < n; i++ {
		id := fmt.Sprintf("echo_%d", i)
		h = append(h,
			genai.NewContentFromText(fmt.Sprintf("question %d: %s", i, text), genai.RoleUser),
			&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: "echo", Args: map[string]any{"text": text}}}}},
			&genai.Content{Role: genai.RoleUser, Parts: tool.FunctionResponseParts(id, "echo", tool.Text(text))},
			genai.NewContentFromText(fmt.Sprintf("answer %d: %s", i, text), genai.RoleModel))
	}
	return h[:n]
}
