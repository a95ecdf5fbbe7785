package acp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// goldenJSON compares v's indented JSON with testdata/name.json.
func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, name+".json", append(got, '\n'))
}

const root = "/work/project"

func ptr(s string) *string { return &s }

// call is a snapshot of a call in a status, as the engine reports it.
func call(id, name string, t tool.Tool, args map[string]any, st agent.Status, desc string) *agent.ToolCall {
	return &agent.ToolCall{ID: id, Name: name, Tool: t, Args: args, Status: st, Description: desc}
}

func withConfirm(c *agent.ToolCall, d *tool.ConfirmationDetails) *agent.ToolCall {
	c.Confirmation = &agent.Confirmation{CallID: c.ID, Details: d}
	return c
}

func withResult(c *agent.ToolCall, r *tool.Result) *agent.ToolCall {
	c.Result = r
	return c
}

func TestMapping(t *testing.T) {
	env := &builtin.Env{}
	write := builtin.NewWriteFile(env)
	shell := builtin.NewShell(env)
	read := builtin.NewReadFile(env)
	todos := builtin.NewWriteTodos(env)
	path := root + "/notes.txt"
	wargs := map[string]any{"file_path": path, "content": "new\n"}
	sargs := map[string]any{"command": "rm -rf build"}
	tdargs := map[string]any{"todos": []any{
		map[string]any{"description": "read", "status": "completed"},
		map[string]any{"description": "write", "status": "in_progress"},
		map[string]any{"description": "drop", "status": "cancelled"},
		map[string]any{"description": "test", "status": "pending"},
	}}
	tc := func(c *agent.ToolCall) *agent.Event { return &agent.Event{Type: agent.EventToolCall, Call: c} }
	cases := []struct {
		name   string
		events []*agent.Event
	}{
		{"text_and_thought", []*agent.Event{
			{Type: agent.EventThought, Thought: &agent.Thought{Subject: "Planning", Description: "the answer"}},
			{Type: agent.EventContent, Text: "Hello, "},
			{Type: agent.EventContent, Text: "world."},
			{Type: agent.EventFinished, FinishReason: genai.FinishReasonStop, Usage: &genai.GenerateContentResponseUsageMetadata{
				PromptTokenCount: 100, CandidatesTokenCount: 20, ThoughtsTokenCount: 5, CachedContentTokenCount: 40, TotalTokenCount: 125}},
			{Type: agent.EventTurnEnd, Reason: agent.TurnCompleted},
		}},
		{"edit_allowed", []*agent.Event{
			tc(call("w1", "write_file", nil, wargs, agent.StatusValidating, "")),
			tc(withConfirm(call("w1", "write_file", write, wargs, agent.StatusAwaitingApproval, "Writing to notes.txt"),
				&tool.ConfirmationDetails{Type: tool.ConfirmEdit, Title: "Confirm Write: notes.txt", FilePath: path, FileName: "notes.txt", OriginalContent: ptr("old\n"), NewContent: "new\n"})),
			tc(call("w1", "write_file", write, wargs, agent.StatusScheduled, "Writing to notes.txt")),
			tc(call("w1", "write_file", write, wargs, agent.StatusExecuting, "Writing to notes.txt")),
			tc(withResult(call("w1", "write_file", write, wargs, agent.StatusSuccess, "Writing to notes.txt"),
				&tool.Result{LLMText: "Successfully overwrote file", Display: "ok", Diff: &tool.FileDiff{FilePath: path, FileName: "notes.txt", OriginalContent: ptr("old\n"), NewContent: "new\n"}})),
		}},
		{"new_file_confirmation", []*agent.Event{
			tc(withConfirm(call("w2", "write_file", write, wargs, agent.StatusAwaitingApproval, "Writing to notes.txt"),
				&tool.ConfirmationDetails{Type: tool.ConfirmEdit, FilePath: path, FileName: "notes.txt", OriginalContent: ptr(""), NewContent: "new\n"})),
		}},
		{"shell_rejected", []*agent.Event{
			tc(withConfirm(call("s1", "run_shell_command", shell, sargs, agent.StatusAwaitingApproval, "rm -rf build"),
				&tool.ConfirmationDetails{Type: tool.ConfirmExec, Title: "Confirm Shell Command", Command: "rm -rf build", RootCommand: "rm"})),
			tc(withResult(call("s1", "run_shell_command", shell, sargs, agent.StatusCancelled, "rm -rf build"),
				&tool.Result{Error: &tool.Error{Type: tool.ErrCancelled, Message: "[Operation Cancelled] Reason: User cancelled the operation."}})),
			{Type: agent.EventToolBatchEnd, Reason: agent.TurnCancelled},
			{Type: agent.EventTurnEnd, Reason: agent.TurnCancelled},
		}},
		{"shell_live_output", []*agent.Event{
			tc(call("s2", "run_shell_command", shell, sargs, agent.StatusExecuting, "rm -rf build")),
			{Type: agent.EventToolOutput, Text: "removing", Call: &agent.ToolCall{ID: "s2", Status: agent.StatusExecuting, LiveOutput: "removing"}},
			{Type: agent.EventToolOutput, Text: "unseen", Call: &agent.ToolCall{ID: "other", Status: agent.StatusExecuting, LiveOutput: "unseen"}},
		}},
		{"read_with_line", []*agent.Event{
			tc(call("r1", "read_file", read, map[string]any{"file_path": "src/main.go", "offset": float64(9)}, agent.StatusExecuting, "src/main.go")),
			tc(withResult(call("r1", "read_file", read, map[string]any{"file_path": "src/main.go", "offset": float64(9)}, agent.StatusSuccess, "src/main.go"),
				&tool.Result{LLMText: "package main", Display: ""})),
		}},
		{"todos_plan", []*agent.Event{
			tc(call("t1", "write_todos", todos, tdargs, agent.StatusExecuting, "Set 4 todo(s)")),
			tc(withResult(call("t1", "write_todos", todos, tdargs, agent.StatusSuccess, "Set 4 todo(s)"), &tool.Result{LLMText: "ok", Display: "ok"})),
		}},
		{"unknown_tool", []*agent.Event{
			tc(withResult(call("u1", "no_such_tool", nil, nil, agent.StatusError, ""),
				&tool.Result{Error: &tool.Error{Type: tool.ErrToolNotRegistered, Message: `Tool "no_such_tool" not found in registry.`}})),
		}},
		{"refusal", []*agent.Event{
			{Type: agent.EventFinished, FinishReason: genai.FinishReasonSafety},
		}},
		{"max_tokens", []*agent.Event{
			{Type: agent.EventContent, Text: "cut"},
			{Type: agent.EventFinished, FinishReason: genai.FinishReasonMaxTokens},
		}},
		{"max_turns", []*agent.Event{
			{Type: agent.EventMaxSessionTurns},
		}},
		{"loop_detected", []*agent.Event{
			{Type: agent.EventLoopDetected, Text: "A potential loop was detected."},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMapper(root)
			var ups []sdk.SessionUpdate
			for _, ev := range c.events {
				ups = append(ups, m.updates(ev)...)
			}
			goldenJSON(t, "mapping/"+c.name, map[string]any{"updates": ups, "stopReason": m.stop, "usage": m.usage})
		})
	}
}

func TestPermissionOptions(t *testing.T) {
	cases := map[string]*tool.ConfirmationDetails{
		"edit": {Type: tool.ConfirmEdit},
		"exec": {Type: tool.ConfirmExec, RootCommand: "git"},
		"mcp":  {Type: tool.ConfirmMCP, ServerName: "docs", ToolName: "search"},
		"info": {Type: tool.ConfirmInfo, Prompt: "fetch https://example.com"},
	}
	for _, save := range []bool{false, true} {
		out := map[string]any{}
		for name, d := range cases {
			out[name] = permissionOptions(withConfirm(call("x", "t", nil, nil, agent.StatusAwaitingApproval, ""), d), save)
		}
		name := "permission_options"
		if save {
			// security.enablePermanentToolApproval on
			name += "_save"
		}
		goldenJSON(t, name, out)
	}
}

func TestDecision(t *testing.T) {
	offered := permissionOptions(withConfirm(call("x", "t", nil, nil, agent.StatusAwaitingApproval, ""), &tool.ConfirmationDetails{Type: tool.ConfirmEdit}), false)
	sel := func(id string) sdk.RequestPermissionResponse {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}
	}
	for _, c := range []struct {
		resp sdk.RequestPermissionResponse
		want tool.Outcome
		goOn bool // the model is told and answers (a Reject, not a cancelled turn)
	}{
		{sel("proceed_once"), tool.ProceedOnce, false},
		{sel("proceed_always"), tool.ProceedAlways, false},
		{sel("cancel"), tool.Cancel, true},
		{sel("proceed_always_server"), tool.Cancel, true},   // not offered for an edit
		{sel("proceed_always_and_save"), tool.Cancel, true}, // not offered with the setting off
		{sel("made_up"), tool.Cancel, true},
		{sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, tool.Cancel, false},
	} {
		if got := decision(c.resp, offered); got.Outcome != c.want || got.GoOn != c.goOn {
			t.Errorf("decision(%+v) = %s go on %v, want %s go on %v", c.resp.Outcome, got.Outcome, got.GoOn, c.want, c.goOn)
		}
	}
}

func TestReplay(t *testing.T) {
	env := &builtin.Env{}
	reg := tool.NewRegistry()
	reg.Register(builtin.NewWriteFile(env))
	reg.Register(builtin.NewShell(env))
	conv := &chats.Conversation{Messages: []chats.Message{
		{Type: chats.TypeUser, Content: []*genai.Part{{Text: "fix the bug"}}},
		{Type: chats.TypeInfo, Content: []*genai.Part{{Text: "a notice"}}},
		{Type: chats.TypeGemini,
			Thoughts: []chats.Thought{{Subject: "Looking", Description: "at the code"}},
			Content:  []*genai.Part{{Text: "I will edit it."}},
			ToolCalls: []chats.ToolCallRecord{
				{ID: "c1", Name: "write_file", Args: map[string]any{"file_path": root + "/a.go", "content": "b"}, Status: chats.StatusSuccess,
					Description: "Writing to a.go", ResultDisplay: map[string]any{"fileDiff": "@@", "fileName": "a.go", "filePath": root + "/a.go", "originalContent": "a", "newContent": "b"}},
				{ID: "c2", Name: "run_shell_command", Args: map[string]any{"command": "go test"}, Status: chats.StatusCancelled, Description: "go test", ResultDisplay: "Command cancelled"},
				{ID: "c3", Name: "gone_tool", Status: chats.StatusError},
			}},
		{Type: chats.TypeUser, Content: []*genai.Part{{Text: "look"}, {InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{1, 2}}}}},
		{Type: chats.TypeGemini, Content: []*genai.Part{{Text: "done"}}},
	}}
	goldenJSON(t, "replay", replay(conv, reg, root))
}

// TestEditNotesFollowTheDiff: the language server's new problems after an
// edit reach the editor as text after the diff.
func TestEditNotesFollowTheDiff(t *testing.T) {
	c := call("c1", "replace", nil, nil, agent.StatusSuccess, "")
	c.Result = &tool.Result{Diff: &tool.FileDiff{FilePath: "/work/project/main.go", OriginalContent: ptr("a\n"), NewContent: "b\n"}, Notes: "main.go:1:1: error: undefined: b"}
	got := resultContent(c)
	if len(got) != 2 || got[0].Diff == nil || got[1].Content == nil {
		t.Fatalf("content %+v", got)
	}
	if b, _ := json.Marshal(got[1]); !strings.Contains(string(b), "undefined: b") {
		t.Errorf("notes content %s", b)
	}
}
