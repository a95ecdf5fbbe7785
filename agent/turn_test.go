package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

func callID(id, name, text string) *genai.Part {
	return &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: name, Args: map[string]any{"text": text}}}
}

// trace renders the turn-shaping events: batches, tool call states,
// pauses, model responses ending and the turn's end.
func trace(evs []*Event) []string {
	var out []string
	for _, ev := range evs {
		switch ev.Type {
		case EventToolBatchStart, EventToolBatchEnd:
			s := string(ev.Type) + " " + strings.Join(ev.CallIDs, ",")
			if ev.Reason != "" {
				s += " " + string(ev.Reason)
			}
			out = append(out, s)
		case EventToolCall:
			out = append(out, ev.Call.ID+" "+string(ev.Call.Status))
		case EventFinished:
			out = append(out, string(ev.Type))
		case EventInputRequired:
			out = append(out, fmt.Sprintf("%s %q", ev.Type, ev.Text))
		case EventTurnEnd:
			out = append(out, fmt.Sprintf("%s %s %q", ev.Type, ev.Reason, ev.Text))
		}
	}
	return out
}

// TestBatchEvents pins where batches start and end relative to the call
// events and the model calls around them.
func TestBatchEvents(t *testing.T) {
	edit := echoTool{name: "edit", kind: tool.KindEdit}
	read := echoTool{name: "read", kind: tool.KindRead}
	for _, tt := range []struct {
		name    string
		turns   [][]*genai.Part
		answer  tool.Outcome // "" leaves confirmations unanswered: the turn pauses
		send    []string
		resume  []string
		modelAt int // model calls made in all
	}{
		{
			name:  "no tools",
			turns: [][]*genai.Part{{{Text: "hi"}}},
			send:  []string{"finished", `turn_end completed "hi"`},
		},
		{
			name:  "one auto call",
			turns: [][]*genai.Part{{{Text: "Reading."}, callID("r1", "read", "x")}, {{Text: "done"}}},
			send: []string{"finished", "tool_batch_start r1", "r1 validating", "r1 scheduled", "r1 executing", "r1 success",
				"tool_batch_end r1", "finished", `turn_end completed "done"`},
		},
		{
			name:  "invalid and auto calls",
			turns: [][]*genai.Part{{callID("n1", "nope", "x"), callID("r1", "read", "y")}, {{Text: "done"}}},
			send: []string{"finished", "tool_batch_start n1,r1", "n1 validating", "n1 error", "r1 validating", "r1 scheduled",
				"r1 executing", "r1 success", "tool_batch_end n1,r1", "finished", `turn_end completed "done"`},
		},
		{
			name:  "only invalid calls",
			turns: [][]*genai.Part{{callID("n1", "nope", "x")}, {{Text: "sorry"}}},
			send:  []string{"finished", "tool_batch_start n1", "n1 validating", "n1 error", "tool_batch_end n1", "finished", `turn_end completed "sorry"`},
		},
		{
			name:   "paused then approved",
			turns:  [][]*genai.Part{{callID("e1", "edit", "x")}, {{Text: "edited"}}},
			answer: tool.ProceedOnce,
			send:   []string{"finished", "tool_batch_start e1", "e1 validating", "e1 awaiting_approval", `input_required ""`},
			resume: []string{"e1 scheduled", "e1 executing", "e1 success", "tool_batch_end e1", "finished", `turn_end completed "edited"`},
		},
		{
			name:   "paused then cancelled",
			turns:  [][]*genai.Part{{{Text: "Editing."}, callID("e1", "edit", "x"), callID("e2", "edit", "y")}},
			answer: tool.Cancel,
			send: []string{"finished", "tool_batch_start e1,e2", "e1 validating", "e1 awaiting_approval",
				"e2 validating", "e2 awaiting_approval", `input_required "Editing."`},
			resume: []string{"e1 cancelled", "e2 cancelled", "tool_batch_end e1,e2 cancelled", `turn_end cancelled "Editing."`},
		},
		{
			name:   "cancel with an invalid call goes on",
			turns:  [][]*genai.Part{{callID("n1", "nope", "x"), callID("e1", "edit", "y")}, {{Text: "ok"}}},
			answer: tool.Cancel,
			send:   []string{"finished", "tool_batch_start n1,e1", "n1 validating", "n1 error", "e1 validating", "e1 awaiting_approval", `input_required ""`},
			resume: []string{"e1 cancelled", "tool_batch_end n1,e1", "finished", `turn_end completed "ok"`},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{turns: tt.turns}
			s := newTestSession(m, policy.ModeDefault, true, edit, read)
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(trace(evs), "\n"); got != strings.Join(tt.send, "\n") {
				t.Errorf("send:\n%s\nwant:\n%s", got, strings.Join(tt.send, "\n"))
			}
			if tt.resume == nil {
				return
			}
			for _, c := range s.Pending() {
				if err := s.Answer(c.ID, tool.Decision{Outcome: tt.answer}); err != nil {
					t.Fatal(err)
				}
			}
			evs, err = collect(t, s.Resume(context.Background()))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(trace(evs), "\n"); got != strings.Join(tt.resume, "\n") {
				t.Errorf("resume:\n%s\nwant:\n%s", got, strings.Join(tt.resume, "\n"))
			}
		})
	}
}

// TestCancelEveryCallStopsTurn: when the user cancels every call of a
// batch, however the answer comes, the model is not called again; the
// cancelled responses are in a valid history and go with the next prompt.
func TestCancelEveryCallStopsTurn(t *testing.T) {
	cancelAll := func(context.Context, *ToolCall) (tool.Decision, error) {
		return tool.Decision{Outcome: tool.Cancel}, nil
	}
	// The first refusal cancels the rest, whatever their answer.
	cancelFirst := func(_ context.Context, c *ToolCall) (tool.Decision, error) {
		if c.ID == "e1" {
			return tool.Decision{Outcome: tool.Cancel}, nil
		}
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	for _, tt := range []struct {
		name    string
		confirm func(context.Context, *ToolCall) (tool.Decision, error)
		onEvent bool // answer while handling the awaiting event
		resume  bool // answer with Answer, then Resume
	}{
		{name: "confirm callback", confirm: cancelAll},
		{name: "confirm callback, mixed answers", confirm: cancelFirst},
		{name: "answer on the event", onEvent: true},
		{name: "answer and resume", resume: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ran []string
			edit := echoTool{name: "edit", kind: tool.KindEdit, ran: &ran, mu: &sync.Mutex{}}
			m := &scripted{turns: [][]*genai.Part{{{Text: "I will edit."}, callID("e1", "edit", "a"), callID("e2", "edit", "b")}, {{Text: "fine"}}}}
			s := newTestSession(m, policy.ModeDefault, true, edit)
			s.cfg.Confirm = tt.confirm
			var evs []*Event
			for ev, err := range s.Send(context.Background(), genai.NewPartFromText("edit both")) {
				if err != nil {
					t.Fatal(err)
				}
				if tt.onEvent && ev.Type == EventToolCall && ev.Call.Status == StatusAwaitingApproval {
					ev.Call.Confirmation.Answer(tool.Decision{Outcome: tool.Cancel})
				}
				evs = append(evs, ev)
			}
			if tt.resume {
				for _, c := range s.Pending() {
					s.Answer(c.ID, tool.Decision{Outcome: tool.Cancel})
				}
				more, err := collect(t, s.Resume(context.Background()))
				if err != nil {
					t.Fatal(err)
				}
				evs = append(evs, more...)
			}
			if len(m.reqs) != 1 {
				t.Fatalf("%d model calls, want 1", len(m.reqs))
			}
			if len(ran) != 0 {
				t.Errorf("ran %v", ran)
			}
			last := evs[len(evs)-1]
			if last.Type != EventTurnEnd || last.Reason != TurnCancelled || last.Text != "I will edit." {
				t.Errorf("last event = %s %s %q", last.Type, last.Reason, last.Text)
			}
			h := s.History()
			if len(h) != 3 {
				t.Fatalf("history = %s", mustJSON(h))
			}
			want := `{"parts":[{"functionResponse":{"id":"e1","name":"edit","response":{"error":"[Operation Cancelled] Reason: User denied execution."}}},` +
				`{"functionResponse":{"id":"e2","name":"edit","response":{"error":"[Operation Cancelled] Reason: User denied execution."}}}],"role":"user"}`
			if got := mustJSON(h[2]); got != want {
				t.Errorf("responses = %s\nwant %s", got, want)
			}
			if got := RepairHistory(h, ""); mustJSON(got) != mustJSON(h) {
				t.Errorf("history is not complete: %s", mustJSON(got))
			}
			// The next prompt joins the refusals in one user content, so
			// roles alternate, and runs normally.
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("never mind")))
			if err != nil {
				t.Fatal(err)
			}
			joined := strings.TrimSuffix(want, `],"role":"user"}`) + `,{"text":"never mind"}],"role":"user"}`
			if len(m.reqs) != 2 || len(m.reqs[1].Contents) != 3 || mustJSON(m.reqs[1].Contents[2]) != joined {
				t.Fatalf("next request = %s", mustJSON(m.reqs[len(m.reqs)-1].Contents))
			}
			if last := evs[len(evs)-1]; last.Type != EventTurnEnd || last.Reason != TurnCompleted || last.Text != "fine" {
				t.Errorf("next turn ended with %s %s %q", last.Type, last.Reason, last.Text)
			}
		})
	}
}

// TestRefusalGoesOn: a refusal with GoOn (ACP's Reject) is told to the
// model, the batch's other calls keep their own answers, and the model
// answers in the same turn.
func TestRefusalGoesOn(t *testing.T) {
	for _, tt := range []struct {
		name      string
		reason    string
		responses string
	}{
		{name: "reject", responses: `{"parts":[{"functionResponse":{"id":"e1","name":"edit","response":{"error":"Tool \"edit\" was canceled by the user."}}},` +
			`{"functionResponse":{"id":"e2","name":"edit","response":{"output":"echo: b"}}}],"role":"user"}`},
		{name: "reason", reason: "Ask in your reply instead.", responses: `{"parts":[{"functionResponse":{"id":"e1","name":"edit","response":{"error":"Ask in your reply instead."}}},` +
			`{"functionResponse":{"id":"e2","name":"edit","response":{"output":"echo: b"}}}],"role":"user"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ran []string
			edit := echoTool{name: "edit", kind: tool.KindEdit, ran: &ran, mu: &sync.Mutex{}}
			m := &scripted{turns: [][]*genai.Part{{callID("e1", "edit", "a"), callID("e2", "edit", "b")}, {{Text: "fine, only b"}}}}
			s := newTestSession(m, policy.ModeDefault, true, edit)
			s.cfg.Confirm = func(_ context.Context, c *ToolCall) (tool.Decision, error) {
				if c.ID == "e1" {
					return tool.Decision{Outcome: tool.Cancel, GoOn: true, Reason: tt.reason}, nil
				}
				return tool.Decision{Outcome: tool.ProceedOnce}, nil
			}
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("edit both")))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(m.reqs))
			}
			if got := mustJSON(m.reqs[1].Contents[len(m.reqs[1].Contents)-1]); got != tt.responses {
				t.Errorf("responses = %s\nwant %s", got, tt.responses)
			}
			if strings.Join(ran, ",") != "b" {
				t.Errorf("ran %v, want b", ran)
			}
			if last := evs[len(evs)-1]; last.Type != EventTurnEnd || last.Reason != TurnCompleted || last.Text != "fine, only b" {
				t.Errorf("last event = %s %s %q", last.Type, last.Reason, last.Text)
			}
		})
	}
}

func TestRepairHistory(t *testing.T) {
	user := func(parts ...*genai.Part) *genai.Content { return &genai.Content{Role: genai.RoleUser, Parts: parts} }
	mdl := func(parts ...*genai.Part) *genai.Content { return &genai.Content{Role: genai.RoleModel, Parts: parts} }
	answer := func(id, name, out string) *genai.Part {
		return &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: name, Response: map[string]any{"output": out}}}
	}
	cancelled := func(id, name string) string {
		return `{"functionResponse":{"id":"` + id + `","name":"` + name + `","response":{"error":"[Operation Cancelled] Reason: why"}}}`
	}
	text := genai.NewPartFromText
	for _, tt := range []struct {
		name string
		in   []*genai.Content
		want string
	}{
		{"nil", nil, `null`},
		{"complete", []*genai.Content{user(text("go")), mdl(callID("c1", "w", "x")), user(answer("c1", "w", "ok"))},
			`[{"parts":[{"text":"go"}],"role":"user"},{"parts":[{"functionCall":{"id":"c1","args":{"text":"x"},"name":"w"}}],"role":"model"},{"parts":[{"functionResponse":{"id":"c1","name":"w","response":{"output":"ok"}}}],"role":"user"}]`},
		{"trailing calls", []*genai.Content{user(text("go")), mdl(callID("c1", "w", "x"), callID("c2", "w", "y"))},
			`[{"parts":[{"text":"go"}],"role":"user"},{"parts":[{"functionCall":{"id":"c1","args":{"text":"x"},"name":"w"}},{"functionCall":{"id":"c2","args":{"text":"y"},"name":"w"}}],"role":"model"},{"parts":[` + cancelled("c1", "w") + `,` + cancelled("c2", "w") + `],"role":"user"}]`},
		{"one of two answered", []*genai.Content{mdl(callID("c1", "w", "x"), callID("c2", "w", "y")), user(answer("c2", "w", "ok"))},
			`[{"parts":[{"functionCall":{"id":"c1","args":{"text":"x"},"name":"w"}},{"functionCall":{"id":"c2","args":{"text":"y"},"name":"w"}}],"role":"model"},{"parts":[` + cancelled("c1", "w") + `,{"functionResponse":{"id":"c2","name":"w","response":{"output":"ok"}}}],"role":"user"}]`},
		{"prompt after the call", []*genai.Content{mdl(callID("c1", "w", "x")), user(text("next"))},
			`[{"parts":[{"functionCall":{"id":"c1","args":{"text":"x"},"name":"w"}}],"role":"model"},{"parts":[` + cancelled("c1", "w") + `,{"text":"next"}],"role":"user"}]`},
		{"model turn follows", []*genai.Content{mdl(callID("", "w", "x")), mdl(text("hm"))},
			`[{"parts":[{"functionCall":{"args":{"text":"x"},"name":"w"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"w","response":{"error":"[Operation Cancelled] Reason: why"}}}],"role":"user"},{"parts":[{"text":"hm"}],"role":"model"}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := mustJSON(tt.in)
			got := RepairHistory(tt.in, "why")
			if mustJSON(got) != tt.want {
				t.Errorf("got  %s\nwant %s", mustJSON(got), tt.want)
			}
			if mustJSON(tt.in) != in {
				t.Error("the input was changed")
			}
			if again := RepairHistory(got, "why"); mustJSON(again) != mustJSON(got) {
				t.Errorf("not idempotent: %s", mustJSON(again))
			}
		})
	}
}

// TestNewAndSetHistoryRepair: a resumed or restored history with
// unanswered calls is made valid before the model sees it.
func TestNewAndSetHistoryRepair(t *testing.T) {
	h := []*genai.Content{genai.NewContentFromText("go", genai.RoleUser), {Role: genai.RoleModel, Parts: []*genai.Part{callID("c1", "w", "x")}}}
	m := &scripted{turns: [][]*genai.Part{{{Text: "a"}}}}
	s := New(Config{Model: m, ModelName: "gemini-2.5-pro", History: h})
	if got := mustJSON(s.History()[2]); !strings.Contains(got, reasonResumed) {
		t.Errorf("resumed history ends with %s", got)
	}
	if err := s.SetHistory(h); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(s.History()[2]); !strings.Contains(got, reasonRestored) {
		t.Errorf("restored history ends with %s", got)
	}
}

// TestUnansweredPauseGoesWithNextPrompt: a new prompt to a paused turn
// cancels its calls and sends their responses first.
func TestUnansweredPauseGoesWithNextPrompt(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{callID("e1", "edit", "x")}, {{Text: "ok"}}}}
	s := newTestSession(m, policy.ModeDefault, true, echoTool{name: "edit", kind: tool.KindEdit})
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("other"))); err != nil {
		t.Fatal(err)
	}
	want := `{"parts":[{"functionResponse":{"id":"e1","name":"edit","response":{"error":"[Operation Cancelled] Reason: ` + reasonUnanswered + `"}}},{"text":"other"}],"role":"user"}`
	if got := mustJSON(m.reqs[1].Contents[2]); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if len(s.Pending()) != 0 {
		t.Error("calls still pending")
	}
}

// TestAnswerRefusesUnknownOutcome: an outcome the engine does not know
// leaves the call waiting.
func TestAnswerRefusesUnknownOutcome(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{callID("e1", "edit", "x")}}}
	s := newTestSession(m, policy.ModeDefault, true, echoTool{name: "edit", kind: tool.KindEdit})
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
		t.Fatal(err)
	}
	if err := s.Answer("e1", tool.Decision{Outcome: "bogus"}); err == nil {
		t.Fatal("bogus outcome accepted")
	}
	if _, err := collect(t, s.Resume(context.Background())); err != ErrUnanswered {
		t.Errorf("resume after a refused answer: %v", err)
	}
}

// FuzzRepairHistory: whatever a stored conversation holds, repair does
// not panic, leaves no call unanswered and changes nothing a second time.
func FuzzRepairHistory(f *testing.F) {
	f.Add(`[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"w"}}]}]`)
	f.Add(`[{"role":"model","parts":[{"functionCall":{"name":"w"}},{"functionCall":{"name":"w"}}]},{"role":"user","parts":[{"functionResponse":{"name":"w","response":{}}}]}]`)
	f.Add(`[null,{"role":"model"},{"role":"model","parts":[null]}]`)
	f.Fuzz(func(t *testing.T, in string) {
		var h []*genai.Content
		if json.Unmarshal([]byte(in), &h) != nil {
			return
		}
		once := RepairHistory(h, "x")
		twice := RepairHistory(once, "x")
		if mustJSON(once) != mustJSON(twice) {
			t.Fatalf("not idempotent:\n%s\n%s", mustJSON(once), mustJSON(twice))
		}
	})
}

// TestCancelReasonSharedByBatch: a cancel that is not the user's refusal
// (tool.Decision.Reason) tells the model its reason for every call of the
// batch it cancels, not "User denied execution." for the others.
func TestCancelReasonSharedByBatch(t *testing.T) {
	const why = "The IDE closed before the user answered the diff of a, so the edit was not made."
	var ran []string
	edit := echoTool{name: "edit", kind: tool.KindEdit, ran: &ran, mu: &sync.Mutex{}}
	m := &scripted{turns: [][]*genai.Part{{callID("e1", "edit", "a"), callID("e2", "edit", "b")}, {{Text: "fine"}}}}
	s := newTestSession(m, policy.ModeDefault, true, edit)
	s.cfg.Confirm = func(_ context.Context, c *ToolCall) (tool.Decision, error) {
		if c.ID == "e1" {
			return tool.Decision{Outcome: tool.Cancel, Reason: why}, nil
		}
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("edit both"))); err != nil {
		t.Fatal(err)
	}
	h := s.History()
	want := `{"parts":[{"functionResponse":{"id":"e1","name":"edit","response":{"error":"[Operation Cancelled] Reason: ` + why + `"}}},` +
		`{"functionResponse":{"id":"e2","name":"edit","response":{"error":"[Operation Cancelled] Reason: ` + why + `"}}}],"role":"user"}`
	if len(h) != 3 || mustJSON(h[2]) != want {
		t.Errorf("history = %s\nwant last %s", mustJSON(h), want)
	}
	if len(ran) != 0 {
		t.Errorf("ran %v", ran)
	}
}
