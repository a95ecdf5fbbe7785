package a2a_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/policy"
)

// The sequences of Gemini CLI's app.test.ts (reference §1.6) and of the
// captured wire traffic (real-gemini-cli.md §5), in Gemini CLI's format.

func TestGeminiTextReply(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("Hello how are you?"))
	evs := h.stream(userMessage("hello", geminiSettings(h.ws), ""))
	assertUniqueFinalIsLast(t, evs)
	if len(evs) != 4 {
		t.Errorf("%d events, want 4:\n%s", len(evs), summary(evs))
	}
	checkGolden(t, "gemini-text", summary(evs))
	// The task event carries Gemini CLI's persisted metadata.
	if dig(evs[0], "metadata", "__persistedState", "_agentSettings", "workspacePath") == nil {
		t.Errorf("task metadata = %v", evs[0]["metadata"])
	}
	if got := dig(evs[2], "metadata", "traceId"); got == nil {
		t.Errorf("text event has no traceId: %v", evs[2]["metadata"])
	}
}

func writeCall(path, content string) fakegemini.Reply {
	return fakegemini.Call("write_file", map[string]any{"file_path": path, "content": content})
}

func TestGeminiWriteFileProceedOnce(t *testing.T) {
	h := newHarness(t)
	target := filepath.Join(h.ws, "hello.txt")
	h.fake.Enqueue(writeCall(target, "Hello, world!\n"), fakegemini.Text("Created ", "hello.txt."))
	evs := h.stream(userMessage("Create hello.txt containing a greeting", geminiSettings(h.ws), ""))
	assertUniqueFinalIsLast(t, evs)
	if len(evs) != 6 {
		t.Errorf("%d events, want 6:\n%s", len(evs), summary(evs))
	}
	checkGolden(t, "gemini-write-1", summary(evs))
	if _, err := os.Stat(target); err == nil {
		t.Fatal("file written before confirmation")
	}
	id, call := taskID(evs), toolCallID(evs)
	// The confirmation comes on a new connection: the pending call
	// survives the first one closing.
	evs2 := h.stream(userMessage("", nil, id, map[string]any{"kind": "data", "data": map[string]any{"callId": call, "outcome": "proceed_once"}}))
	assertUniqueFinalIsLast(t, evs2)
	checkGolden(t, "gemini-write-2", summary(evs2))
	b, err := os.ReadFile(target)
	if err != nil || string(b) != "Hello, world!\n" {
		t.Fatalf("file = %q, %v", b, err)
	}
}

func TestGeminiWriteFileCancel(t *testing.T) {
	h := newHarness(t)
	target := filepath.Join(h.ws, "hello.txt")
	h.fake.Enqueue(writeCall(target, "x"))
	evs := h.stream(userMessage("write it", geminiSettings(h.ws), ""))
	requests := len(h.fake.Requests())
	evs2 := h.stream(userMessage("", nil, taskID(evs), map[string]any{"kind": "data", "data": map[string]any{"callId": toolCallID(evs), "outcome": "cancel"}}))
	assertUniqueFinalIsLast(t, evs2)
	checkGolden(t, "gemini-cancel", summary(evs2))
	if _, err := os.Stat(target); err == nil {
		t.Error("file written after cancel")
	}
	if got := len(h.fake.Requests()); got != requests {
		t.Errorf("the model was called after a cancel (%d → %d requests)", requests, got)
	}
	// The refusal is in the history the next prompt sends.
	h.fake.Enqueue(fakegemini.Text("ok"))
	h.stream(userMessage("never mind", nil, taskID(evs)))
	last := h.fake.LastRequest()
	if !strings.Contains(string(last.Body), "User denied execution") {
		t.Errorf("cancelled response not in history: %s", last.Body)
	}
}

func TestGeminiWriteFileModifiedContent(t *testing.T) {
	h := newHarness(t)
	target := filepath.Join(h.ws, "hello.txt")
	h.fake.Enqueue(writeCall(target, "model version\n"), fakegemini.Text("done"))
	evs := h.stream(userMessage("write it", geminiSettings(h.ws), ""))
	h.stream(userMessage("", nil, taskID(evs), map[string]any{"kind": "data", "data": map[string]any{
		"callId": toolCallID(evs), "outcome": "proceed_once", "newContent": "user version\n"}}))
	b, err := os.ReadFile(target)
	if err != nil || string(b) != "user version\n" {
		t.Fatalf("file = %q, %v", b, err)
	}
}

func TestGeminiModifyWithEditorKeepsCallPending(t *testing.T) {
	h := newHarness(t)
	target := filepath.Join(h.ws, "a.txt")
	h.fake.Enqueue(writeCall(target, "one\n"), fakegemini.Text("done"))
	evs := h.stream(userMessage("write it", geminiSettings(h.ws), ""))
	id, call := taskID(evs), toolCallID(evs)
	evs2 := h.stream(userMessage("", nil, id, map[string]any{"kind": "data", "data": map[string]any{"callId": call, "outcome": "modify_with_editor"}}))
	checkGolden(t, "gemini-modify-with-editor", summary(evs2))
	if _, err := os.Stat(target); err == nil {
		t.Fatal("file written while the client edits")
	}
	h.stream(userMessage("", nil, id, map[string]any{"kind": "data", "data": map[string]any{"callId": call, "outcome": "proceed_always", "newContent": "edited\n"}}))
	if b, _ := os.ReadFile(target); string(b) != "edited\n" {
		t.Fatalf("file = %q", b)
	}
}

func TestGeminiTwoToolsNeedApproval(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Parts(
		fakegemini.CallPart("write_file", map[string]any{"file_path": filepath.Join(h.ws, "a.txt"), "content": "a"}),
		fakegemini.CallPart("write_file", map[string]any{"file_path": filepath.Join(h.ws, "b.txt"), "content": "b"}),
	), fakegemini.Text("both written"))
	evs := h.stream(userMessage("two files", geminiSettings(h.ws), ""))
	assertUniqueFinalIsLast(t, evs)
	if len(evs) != 8 {
		t.Errorf("%d events, want 8:\n%s", len(evs), summary(evs))
	}
	checkGolden(t, "gemini-two-tools", summary(evs))
	// Answer both in one message: parallel confirmations.
	var parts []map[string]any
	for _, ev := range evs {
		if dig(ev, "metadata", "coderAgent", "kind") == "tool-call-confirmation" {
			d := dig(asSlice(dig(ev, "status", "message", "parts"))[0], "data")
			parts = append(parts, map[string]any{"kind": "data", "data": map[string]any{"callId": dig(d, "request", "callId"), "outcome": "proceed_once"}})
		}
	}
	evs2 := h.stream(userMessage("", nil, taskID(evs), parts...))
	assertUniqueFinalIsLast(t, evs2)
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestGeminiToolWithoutApproval(t *testing.T) {
	h := newHarness(t)
	os.WriteFile(filepath.Join(h.ws, "README.md"), []byte("hi\n"), 0o644)
	h.fake.Enqueue(fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(h.ws, "README.md")}), fakegemini.Text("Tool executed successfully."))
	evs := h.stream(userMessage("read it", geminiSettings(h.ws), ""))
	assertUniqueFinalIsLast(t, evs)
	// Gemini CLI's released server (0.25.2): validating, scheduled,
	// executing and success once each, 10 events.
	if len(evs) != 10 {
		t.Errorf("%d events, want 10:\n%s", len(evs), summary(evs))
	}
	checkGolden(t, "gemini-no-approval", summary(evs))
}

func TestGeminiYOLO(t *testing.T) {
	h := newHarness(t, withYOLO())
	target := filepath.Join(h.ws, "y.txt")
	h.fake.Enqueue(writeCall(target, "yolo"), fakegemini.Text("done"))
	evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
	assertUniqueFinalIsLast(t, evs)
	checkGolden(t, "gemini-yolo", summary(evs))
	if b, _ := os.ReadFile(target); string(b) != "yolo" {
		t.Fatalf("file = %q", b)
	}
}

// TestGeminiAutoExecute: a client's autoExecute (Gemini CLI's or the
// extension's auto_execute) runs tool calls unasked only up to the
// server's MaxApprovalMode: by default the call waits for approval and
// the task's metadata says why.
func TestGeminiAutoExecute(t *testing.T) {
	for _, tt := range []struct {
		name    string
		ceiling policy.Mode
		ext     bool
		ran     bool
	}{
		{"yolo allowed", policy.ModeYolo, false, true},
		{"extension, yolo allowed", policy.ModeYolo, true, true},
		{"default", "", false, false},
		{"extension, default", "", true, false},
		{"auto_edit", policy.ModeAutoEdit, false, true},
		{"plan", policy.ModePlan, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withMaxApprovalMode(tt.ceiling))
			target := filepath.Join(h.ws, "auto.txt")
			h.fake.Enqueue(writeCall(target, "auto"), fakegemini.Text("done"))
			meta := geminiSettings(h.ws)
			meta["coderAgent"].(map[string]any)["autoExecute"] = true
			if tt.ext {
				meta = map[string]any{a2a.ExtensionURI: map[string]any{"workspace_path": h.ws, "auto_execute": true}}
			}
			evs := h.stream(userMessage("write", meta, ""))
			assertUniqueFinalIsLast(t, evs)
			b, _ := os.ReadFile(target)
			if ran := string(b) == "auto"; ran != tt.ran {
				t.Fatalf("the call ran: %v, want %v\n%s", ran, tt.ran, summary(evs))
			}
			task := h.rpc("tasks/get", map[string]any{"id": taskID(evs)})
			capped, _ := dig(task, "result", "metadata", "approvalModeCapped").(string)
			if want := tt.ceiling != policy.ModeYolo; (capped != "") != want || want && !strings.Contains(capped, "autoExecute") {
				t.Errorf("approvalModeCapped = %q, want it set: %v", capped, want)
			}
		})
	}
}

// TestWorkspaceModeWithinCeiling: a workspace's settings asking for yolo
// (general.defaultApprovalMode) are bounded by MaxApprovalMode too: a
// client pointing a task at such a folder gets no call run unasked.
func TestWorkspaceModeWithinCeiling(t *testing.T) {
	h := newHarness(t)
	if err := os.MkdirAll(filepath.Join(h.ws, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, ".gemini", "settings.json"), []byte(`{"general":{"defaultApprovalMode":"yolo"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(h.ws, "auto.txt")
	h.fake.Enqueue(writeCall(target, "auto"), fakegemini.Text("done"))
	evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
	if b, _ := os.ReadFile(target); string(b) == "auto" {
		t.Fatalf("the workspace's settings raised the approval mode past the ceiling\n%s", summary(evs))
	}
}

func TestGeminiThought(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Thought("**Planning**\n\nI will greet.").Then(fakegemini.Text("Hi!")))
	evs := h.stream(userMessage("hello", geminiSettings(h.ws), ""))
	checkGolden(t, "gemini-thought", summary(evs))
	// One model response keeps one message id across its chunks.
	if dig(evs[2], "status", "message", "messageId") != dig(evs[3], "status", "message", "messageId") {
		t.Error("thought and text of one response have different message ids")
	}
}

// TestOutcomes runs every outcome a client may send: each "always"
// variant approves the call and the next like it runs unasked.
func TestOutcomes(t *testing.T) {
	for _, tt := range []struct {
		outcome    string
		written    bool
		asksAgain  bool
		modelAfter bool
	}{
		{"proceed_once", true, true, true},
		{"proceed_always", true, false, true},
		{"proceed_always_and_save", true, false, true},
		{"proceed_always_server", true, false, true},
		{"proceed_always_tool", true, false, true},
		{"cancel", false, true, false},
		{"bogus_outcome", false, true, false},
	} {
		t.Run(tt.outcome, func(t *testing.T) {
			h := newHarness(t)
			first := filepath.Join(h.ws, "first.txt")
			h.fake.Enqueue(writeCall(first, "1"))
			if tt.modelAfter {
				h.fake.Enqueue(fakegemini.Text("ok"))
			}
			evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
			id := taskID(evs)
			before := len(h.fake.Requests())
			evs2 := h.stream(userMessage("", nil, id, map[string]any{"kind": "data", "data": map[string]any{"callId": toolCallID(evs), "outcome": tt.outcome}}))
			assertUniqueFinalIsLast(t, evs2)
			if _, err := os.Stat(first); (err == nil) != tt.written {
				t.Errorf("written = %v\n%s", err == nil, summary(evs2))
			}
			if called := len(h.fake.Requests()) > before; called != tt.modelAfter {
				t.Errorf("model called after the answer = %v", called)
			}
			if tt.outcome == "bogus_outcome" {
				// Ignored, as Gemini CLI ignores it: the call still waits.
				return
			}
			second := filepath.Join(h.ws, "second.txt")
			h.fake.Enqueue(writeCall(second, "2"), fakegemini.Text("ok"))
			evs3 := h.stream(userMessage("again", nil, id))
			asked := strings.Contains(summary(evs3), "awaiting_approval")
			if asked != tt.asksAgain {
				t.Errorf("asked again = %v\n%s", asked, summary(evs3))
			}
		})
	}
}

// TestLiveOutput: a shell call's output streams as artifact-update events
// (Gemini CLI) or as live_content (the extension).
func TestLiveOutput(t *testing.T) {
	for _, ext := range []bool{false, true} {
		h := newHarness(t, withYOLO())
		h.fake.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "echo live-one; echo live-two"}), fakegemini.Text("ran"))
		var evs []map[string]any
		if ext {
			evs = h.stream(userMessage("run", extSettings(h.ws), ""), extHeader()...)
		} else {
			evs = h.stream(userMessage("run", geminiSettings(h.ws), ""))
		}
		assertUniqueFinalIsLast(t, evs)
		all := toJSON(evs)
		switch {
		case !ext && !strings.Contains(summary(evs), "artifact-update tool-"):
			t.Errorf("no artifact-update:\n%s", summary(evs))
		case ext && !strings.Contains(all, `"live_content"`):
			t.Errorf("no live_content:\n%s", summary(evs))
		case !strings.Contains(all, "live-two"):
			t.Errorf("output missing:\n%s", all)
		}
	}
}

// TestModelErrorKeepsTaskOpen: a failed model call is reported without
// ending the task, as Gemini CLI reports LLM stream errors.
func TestModelErrorKeepsTaskOpen(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Error(400, "bad request"))
	evs := h.stream(userMessage("hi", geminiSettings(h.ws), ""))
	assertUniqueFinalIsLast(t, evs)
	checkGolden(t, "gemini-model-error", summary(evs))
	if dig(evs[2], "metadata", "error") == nil {
		t.Errorf("no metadata.error: %v", evs[2]["metadata"])
	}
	h.fake.Enqueue(fakegemini.Text("recovered"))
	if evs := h.stream(userMessage("again", nil, taskID(evs))); !strings.Contains(summary(evs), "recovered") {
		t.Errorf("task did not continue:\n%s", summary(evs))
	}
}
