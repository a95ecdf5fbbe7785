package a2a_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

func extHeader() []string { return []string{"X-A2A-Extensions", a2a.ExtensionURI} }

func extSettings(ws string) map[string]any {
	return map[string]any{a2a.ExtensionURI: map[string]any{"workspace_path": ws}}
}

// TestRFCAppendixFlow is the RFC's appendix A, event by event.
func TestRFCAppendixFlow(t *testing.T) {
	h := newHarness(t)
	target := filepath.Join(h.ws, "hello.txt")
	h.fake.Enqueue(writeCall(target, "hi\n"), fakegemini.Text("I wrote hello.txt."))
	// 1–4: prompt with AgentSettings; submitted, working, PENDING with
	// confirmation_request, final input-required.
	evs := h.stream(userMessage("Create hello.txt", extSettings(h.ws), ""), extHeader()...)
	assertUniqueFinalIsLast(t, evs)
	checkGolden(t, "ext-appendix-1", summary(evs))
	tc := extToolCallOf(t, evs[2])
	cr, _ := tc["confirmation_request"].(map[string]any)
	if cr == nil || cr["file_edit_details"] == nil {
		t.Fatalf("no file_edit confirmation: %v", tc)
	}
	opts := map[string]bool{}
	for _, o := range asSlice(cr["options"]) {
		opts[dig(o, "id").(string)] = true
	}
	if !opts["proceed_once"] || !opts["cancel"] {
		t.Errorf("options = %v", cr["options"])
	}
	// 6–9: the confirmation; EXECUTING, SUCCEEDED, TEXT_CONTENT, final.
	evs2 := h.stream(userMessage("", nil, taskID(evs), map[string]any{"kind": "data", "data": map[string]any{
		"tool_call_id": tc["tool_call_id"], "selected_option_id": "proceed_once"}}), extHeader()...)
	assertUniqueFinalIsLast(t, evs2)
	checkGolden(t, "ext-appendix-2", summary(evs2))
	if b, _ := os.ReadFile(target); string(b) != "hi\n" {
		t.Fatalf("file = %q", b)
	}
}

func extToolCallOf(t *testing.T, ev map[string]any) map[string]any {
	t.Helper()
	for _, p := range asSlice(dig(ev, "status", "message", "parts")) {
		if d, ok := dig(p, "data").(map[string]any); ok && d["tool_call_id"] != nil {
			return d
		}
	}
	t.Fatalf("no ToolCall in %v", ev)
	return nil
}

func TestExtensionModifiedFileContent(t *testing.T) {
	for _, tt := range []struct {
		name string
		data func(id string) map[string]any
	}{
		{"file_details", func(id string) map[string]any {
			return map[string]any{"tool_call_id": id, "selected_option_id": "proceed_once", "file_details": map[string]any{"new_content": "user\n"}}
		}},
		{"modified_details", func(id string) map[string]any {
			return map[string]any{"tool_call_id": id, "selected_option_id": "proceed_once", "modified_details": map[string]any{"file_details": map[string]any{"new_content": "user\n"}}}
		}},
		{"camelCase keyed by URI", func(id string) map[string]any {
			return map[string]any{a2a.ExtensionURI: map[string]any{"toolCallId": id, "selectedOptionId": "proceed_once", "fileDetails": map[string]any{"newContent": "user\n"}}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			target := filepath.Join(h.ws, "f.txt")
			h.fake.Enqueue(writeCall(target, "model\n"), fakegemini.Text("ok"))
			evs := h.stream(userMessage("write", extSettings(h.ws), ""), extHeader()...)
			id := extToolCallOf(t, evs[2])["tool_call_id"].(string)
			evs2 := h.stream(userMessage("", nil, taskID(evs), map[string]any{"kind": "data", "data": tt.data(id)}), extHeader()...)
			if b, _ := os.ReadFile(target); string(b) != "user\n" {
				t.Fatalf("file = %q\n%s", b, summary(evs2))
			}
			// The SUCCEEDED call carries the diff result.
			found := false
			for _, ev := range evs2 {
				if s := describe(ev); strings.Contains(s, "SUCCEEDED output=diff") {
					found = true
				}
			}
			if !found {
				t.Errorf("no SUCCEEDED diff output:\n%s", summary(evs2))
			}
		})
	}
}

func TestExtensionCancel(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(writeCall(filepath.Join(h.ws, "x"), "x"))
	evs := h.stream(userMessage("write", extSettings(h.ws), ""), extHeader()...)
	id := extToolCallOf(t, evs[2])["tool_call_id"].(string)
	evs2 := h.stream(userMessage("", nil, taskID(evs), map[string]any{"kind": "data", "data": map[string]any{"tool_call_id": id, "selected_option_id": "cancel"}}), extHeader()...)
	checkGolden(t, "ext-cancel", summary(evs2))
}

// Activation by metadata alone, and the version check.
func TestExtensionActivation(t *testing.T) {
	base := "https://github.com/google-gemini/gemini-cli/blob/main/docs/a2a/developer-profile/"
	for _, tt := range []struct {
		name    string
		header  string
		meta    bool
		wantExt bool
	}{
		{"header", a2a.ExtensionURI, false, true},
		{"metadata key", "", true, true},
		{"header among others", "urn:other, " + a2a.ExtensionURI, false, true},
		{"newer major", base + "v1/spec.md", false, false},
		{"newer minor of 0.x", base + "v0.1/spec.md", false, false},
		{"same version spelled fully", base + "v0.0.0/spec.md", false, true},
		{"garbage version", base + "vx/spec.md", false, false},
		{"none", "", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.fake.Enqueue(fakegemini.Text("hi"))
			meta := geminiSettings(h.ws)
			if tt.meta {
				meta = extSettings(h.ws)
			}
			var hdr []string
			if tt.header != "" {
				hdr = []string{"X-A2A-Extensions", tt.header}
			}
			resp := h.post("/", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": userMessage("hi", meta, "")}, hdr...)
			defer resp.Body.Close()
			evs := readSSE(t, resp)
			_, isExt := evs[1]["metadata"].(map[string]any)[a2a.ExtensionURI]
			if isExt != tt.wantExt {
				t.Errorf("extension format = %v, want %v", isExt, tt.wantExt)
			}
			if got := resp.Header.Get("X-A2A-Extensions"); (got == a2a.ExtensionURI) != tt.wantExt {
				t.Errorf("echoed header = %q", got)
			}
		})
	}
}

func TestExtensionThoughtAndText(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Thought("**Plan**\n\nthink").Then(fakegemini.Text("answer")))
	evs := h.stream(userMessage("q", extSettings(h.ws), ""), extHeader()...)
	checkGolden(t, "ext-thought", summary(evs))
	d := dig(asSlice(dig(evs[2], "status", "message", "parts"))[0], "data")
	if dig(d, "subject") != "Plan" || dig(d, "description") != "think" {
		t.Errorf("AgentThought = %v", d)
	}
}

func TestExtensionCommands(t *testing.T) {
	h := newHarness(t)
	res := h.rpc("commands/get", map[string]any{}, extHeader()...)
	cmds := asSlice(dig(res, "result", "commands"))
	names := map[string]bool{}
	for _, c := range cmds {
		names[dig(c, "name").(string)] = true
	}
	for _, n := range []string{"memory", "extensions", "init"} {
		if !names[n] {
			t.Errorf("commands/get lacks %s: %v", n, names)
		}
	}
	// memory add then memory show through command/execute.
	res = h.rpc("command/execute", map[string]any{"command_path": []string{"memory", "add"}, "args": "I like tea"}, extHeader()...)
	if dig(res, "result", "status") != "STARTED" {
		t.Fatalf("command/execute = %v", res)
	}
	res = h.rpc("command/execute", map[string]any{"command_path": []string{"memory", "show"}}, extHeader()...)
	id, _ := dig(res, "result", "execution_id").(string)
	task := h.rpc("tasks/get", map[string]any{"id": id})
	if st := dig(task, "result", "status", "state"); st != "completed" {
		t.Fatalf("command task state = %v", st)
	}
	text := dig(asSlice(dig(task, "result", "status", "message", "parts"))[0], "text")
	if !strings.Contains(text.(string), "I like tea") {
		t.Errorf("memory show = %v", text)
	}
	res = h.rpc("command/execute", map[string]any{"command_path": []string{"nope"}}, extHeader()...)
	if dig(res, "result", "status") != "FAILED_TO_START" {
		t.Errorf("unknown command = %v", res)
	}
}

// TestExtensionOptionsOnceOnly: under security.disableAlwaysAllow a
// confirmation offers only once and reject, as the other faces' dialogs
// do; otherwise the "always" choice is there too.
func TestExtensionOptionsOnceOnly(t *testing.T) {
	for _, tt := range []struct {
		settings string
		want     []string
	}{
		{`{}`, []string{"proceed_once", "proceed_always", "cancel"}},
		{`{"security": {"disableAlwaysAllow": true}}`, []string{"proceed_once", "cancel"}},
	} {
		t.Run(tt.settings, func(t *testing.T) {
			h := newHarness(t)
			if err := os.MkdirAll(filepath.Join(h.home, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(h.home, ".gemini", "settings.json"), []byte(tt.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			h.fake.Enqueue(writeCall(filepath.Join(h.ws, "f.txt"), "x\n"))
			evs := h.stream(userMessage("write f.txt", extSettings(h.ws), ""), extHeader()...)
			cr, _ := extToolCallOf(t, evs[2])["confirmation_request"].(map[string]any)
			var got []string
			for _, o := range asSlice(cr["options"]) {
				got = append(got, dig(o, "id").(string))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("options = %v, want %v", got, tt.want)
			}
		})
	}
}
