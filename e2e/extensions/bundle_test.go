package extensions_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestExtensionBringsEverything: one installed extension brings a context
// file, a BeforeTool hook, a skill, a subagent and a custom command, and
// a single headless run uses all of them: the command expands, the skill
// is activated, the subagent runs its own loop, and the extension's hook
// blocks a shell call (inside the main loop) whose command never runs.
func TestExtensionBringsEverything(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	ext := filepath.Join(e.Home, ".gemini", "extensions", "kit")
	e2etest.WriteAt(t, filepath.Join(ext, "gemini-extension.json"), `{"name": "kit", "version": "1.0.0", "contextFileName": "KIT.md"}`)
	e2etest.WriteAt(t, filepath.Join(ext, "KIT.md"), "Kit context: prefer small commits.\n")
	e2etest.WriteAt(t, filepath.Join(ext, "commands", "ship.toml"), "description = \"Ships a change\"\nprompt = \"Ship {{args}} carefully.\"\n")
	e2etest.WriteAt(t, filepath.Join(ext, "skills", "changelog", "SKILL.md"), "---\nname: changelog\ndescription: Writes changelogs.\n---\nList every change under its version.\n")
	e2etest.WriteAt(t, filepath.Join(ext, "agents", "checker.md"), "---\nname: checker\ndescription: Checks work.\ntools: [read_file]\n---\nYou check work.\n")
	e2etest.WriteAt(t, filepath.Join(ext, "hooks", "guard.sh"), "#!/bin/sh\ncat > \"$GEMINI_PROJECT_DIR/guard.log\"\necho 'no shell from the kit' >&2\nexit 2\n")
	if err := os.Chmod(filepath.Join(ext, "hooks", "guard.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	e2etest.WriteAt(t, filepath.Join(ext, "hooks", "hooks.json"), `{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "${extensionPath}${/}hooks${/}guard.sh"}]}]}}`)

	e.Srv.Enqueue(
		fakegemini.Call("activate_skill", map[string]any{"name": "changelog"}),
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "checker", "prompt": "Check the release"}),
		fakegemini.Call("complete_task", map[string]any{"result": "All checked."}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch shipped.txt"}),
		fakegemini.Text("Shipped, with the changelog and the checker's word."),
	)
	r := e.Run("-y", "-o", "json", "-p", "/ship v1.2")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || out.Response != "Shipped, with the changelog and the checker's word." {
		t.Fatalf("response %q (%v)", out.Response, err)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls, want 5", len(reqs))
	}
	first, _ := json.Marshal(reqs[0].Contents)
	for _, want := range []string{"Kit context: prefer small commits.", "Ship v1.2 carefully."} {
		if !strings.Contains(string(first), want) {
			t.Errorf("first request lacks %q", want)
		}
	}
	// The extension's context is its own section, as Gemini CLI 0.61
	// sends it.
	if text := e2etest.ContentsText(reqs[0]); !strings.Contains(text, "<loaded_context>\n<extension_context>\n--- Context from: ") ||
		!strings.Contains(text, "Kit context: prefer small commits.\n--- End of Context from: "+filepath.Join(ext, "KIT.md")+" ---\n</extension_context>") {
		t.Errorf("the extension's context is not in <extension_context>:\n%s", text)
	}
	si := reqs[0].SystemInstruction.Parts[0].Text
	for _, want := range []string{"<name>changelog</name>", "- checker -> Checks work."} {
		if !strings.Contains(si, want) {
			t.Errorf("system instruction lacks %q", want)
		}
	}
	if _, resp := e2etest.FunctionResponse(t, reqs[1].Contents[len(reqs[1].Contents)-1], 0); !strings.Contains(resp["output"].(string), "List every change under its version.") {
		t.Errorf("activate_skill response %v", resp)
	}
	if _, resp := e2etest.FunctionResponse(t, reqs[3].Contents[len(reqs[3].Contents)-1], 0); !strings.Contains(resp["output"].(string), "All checked.") {
		t.Errorf("invoke_agent response %v", resp)
	}
	last, _ := json.Marshal(reqs[4].Contents[len(reqs[4].Contents)-1])
	if !strings.Contains(string(last), "Tool execution blocked: no shell from the kit") {
		t.Errorf("shell response %s", last)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "shipped.txt")); err == nil {
		t.Error("the blocked command ran")
	}
	if log, err := os.ReadFile(filepath.Join(e.WS, "guard.log")); err != nil || !strings.Contains(string(log), `"tool_name":"run_shell_command"`) {
		t.Errorf("hook stdin %s (%v)", log, err)
	}
}
