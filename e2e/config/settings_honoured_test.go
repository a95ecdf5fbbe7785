package config_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestDisableYoloModeRefusesFlags: with security.disableYoloMode, asking
// for YOLO mode by flag stops castor before any request with Gemini CLI's
// error and exit 52; other modes still run.
func TestDisableYoloModeRefusesFlags(t *testing.T) {
	t.Parallel()
	const refused = "Error: YOLO mode is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli\n"
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"-y", []string{"-p", "hi", "-y"}, 52},
		{"--yolo", []string{"-p", "hi", "--yolo"}, 52},
		{"--approval-mode yolo", []string{"-p", "hi", "--approval-mode", "yolo"}, 52},
		{"--approval-mode=yolo json", []string{"-p", "hi", "--approval-mode=yolo", "-o", "json"}, 52},
		{"--acp --yolo", []string{"--acp", "--yolo"}, 52},
		{"auto_edit runs", []string{"-p", "hi", "--approval-mode", "auto_edit"}, 0},
		{"no flag runs", []string{"-p", "hi"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("Hello."))
			e.WriteUserSettings(`{"security": {"disableYoloMode": true}}`)
			r := e.Run(tt.args...)
			if r.Code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.Code, tt.wantCode, r.Stderr)
			}
			if strings.Contains(r.Stderr, "YOLO mode is enabled") {
				t.Errorf("the YOLO notice was printed:\n%s", r.Stderr)
			}
			if tt.wantCode == 0 {
				if !strings.Contains(r.Stdout, "Hello.") || strings.Contains(r.Stderr, "disableYoloMode") {
					t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
				}
				return
			}
			if r.Stderr != refused {
				t.Errorf("stderr = %q, want %q", r.Stderr, refused)
			}
			if r.Stdout != "" {
				t.Errorf("stdout = %q", r.Stdout)
			}
			if n := len(e.Srv.Requests()); n != 0 {
				t.Errorf("%d model requests before the refusal", n)
			}
		})
	}
	// Without the setting, -y runs as before.
	e := e2etest.New(t, fakegemini.Text("Hello."))
	if r := e.Run("-p", "hi", "-y"); r.Code != 0 || !strings.Contains(r.Stderr, "YOLO mode is enabled") {
		t.Errorf("without the setting: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestDisableYoloModeTUI: Ctrl+Y is refused with Gemini CLI's warning;
// Shift+Tab never reaches YOLO anyway (default, auto-accept edits, plan).
func TestDisableYoloModeTUI(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.WriteUserSettings(`{"security": {"disableYoloMode": true}}`)
	tm := e.StartTUI()
	tm.Keys("C-y")
	s := tm.WaitFor("You cannot enter YOLO mode since it is disabled in your settings.")
	if strings.Contains(s, "YOLO (") {
		t.Errorf("YOLO mode entered:\n%s", s)
	}
	tm.Keys("BTab")
	tm.WaitFor("auto-accept edits")
	tm.Keys("BTab")
	if s := tm.WaitFor("plan (shift+tab)"); strings.Contains(s, "YOLO (") {
		t.Errorf("YOLO mode entered:\n%s", s)
	}
}

// TestDisableAlwaysAllowStreamJSON: with security.disableAlwaysAllow, a
// permission_request offers no "always" answers, and one sent anyway
// counts as once: the next edit is asked about again.
func TestDisableAlwaysAllowStreamJSON(t *testing.T) {
	t.Parallel()
	for _, disable := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "disabled"}[disable], func(t *testing.T) {
			e := e2etest.New(t)
			if disable {
				e.WriteUserSettings(`{"security": {"disableAlwaysAllow": true}}`)
			}
			a, b := filepath.Join(e.WS, "a.txt"), filepath.Join(e.WS, "b.txt")
			e.Srv.Enqueue(
				fakegemini.Call("write_file", map[string]any{"file_path": a, "content": "a\n"}),
				fakegemini.Call("write_file", map[string]any{"file_path": b, "content": "b\n"}),
				fakegemini.Text("Both written."),
			)
			p := e.StartStream("-p", "--input-format", "stream-json", "-o", "stream-json")
			p.Send(`{"type":"user","message":"write a.txt and b.txt"}`)
			req := p.Until("permission_request")
			var ids []string
			for _, o := range req["options"].([]any) {
				ids = append(ids, o.(map[string]any)["id"].(string))
			}
			want := "proceed_once proceed_always cancel"
			if disable {
				want = "proceed_once cancel"
			}
			if got := strings.Join(ids, " "); got != want {
				t.Errorf("options %q, want %q", got, want)
			}
			p.Send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_always"}`)
			if disable {
				second := p.Until("permission_request")
				if params, _ := second["parameters"].(map[string]any); params["file_path"] != b {
					t.Fatalf("second permission_request = %v", second)
				}
				p.Send(`{"type":"permission_response","tool_id":"` + second["tool_id"].(string) + `","decision":"proceed_once"}`)
			}
			if res := p.Until("result"); res["status"] != "success" {
				t.Fatalf("result = %v", res)
			}
			if code := p.Close(); code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, p.Stderr.String())
			}
			if n, want := p.Count("permission_request"), map[bool]int{false: 1, true: 2}[disable]; n != want {
				t.Errorf("%d permission requests, want %d", n, want)
			}
			for _, f := range []string{a, b} {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
		})
	}
}

// TestOutputFormatSetting: output.format is -o's default; the flag wins.
func TestOutputFormatSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings string
		args     []string
		wantJSON bool
		wantCode int
	}{
		{"json from settings", `{"output": {"format": "json"}}`, []string{"-p", "hi"}, true, 0},
		{"text from settings", `{"output": {"format": "text"}}`, []string{"-p", "hi"}, false, 0},
		{"flag wins", `{"output": {"format": "json"}}`, []string{"-p", "hi", "-o", "text"}, false, 0},
		{"flag wins, long form", `{"output": {"format": "text"}}`, []string{"-p", "hi", "--output-format=json"}, true, 0},
		{"not a format of the setting", `{"output": {"format": "stream-json"}}`, []string{"-p", "hi"}, false, 52},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("Hello."))
			e.WriteUserSettings(tt.settings)
			r := e.Run(tt.args...)
			if r.Code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.Code, tt.wantCode, r.Stderr)
			}
			if tt.wantCode != 0 {
				if !strings.Contains(r.Stderr, "Invalid configuration: output.format") {
					t.Errorf("stderr = %q", r.Stderr)
				}
				return
			}
			var out map[string]any
			isJSON := json.Unmarshal([]byte(r.Stdout), &out) == nil
			if isJSON != tt.wantJSON {
				t.Fatalf("stdout JSON %v, want %v: %q", isJSON, tt.wantJSON, r.Stdout)
			}
			if tt.wantJSON && out["response"] != "Hello." {
				t.Errorf("response = %v", out["response"])
			}
			if !tt.wantJSON && r.Stdout != "Hello.\n" {
				t.Errorf("stdout = %q", r.Stdout)
			}
		})
	}
}

// TestPreferredEditorTUI: "Modify in $EDITOR" runs the editor
// general.preferredEditor names, as Gemini CLI does (vscode: code
// --wait), and the edited content is what gets written.
func TestPreferredEditorTUI(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	bin := t.TempDir()
	argsFile := filepath.Join(e.Home, "editor-args.txt")
	script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\nfor last; do :; done\nprintf 'one\\nEDITED\\nthree\\n' > \"$last\"\n"
	if err := os.WriteFile(filepath.Join(bin, "code"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// env(1) sets its assignments in order: this PATH wins over the usual one.
	e.TUIEnv = append(e.TUIEnv, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	e.WriteUserSettings(`{"general": {"preferredEditor": "vscode"}}`)
	e.Write("notes.txt", "one\ntwo\nthree\n")
	e.Srv.Enqueue(
		fakegemini.Call("replace", map[string]any{"file_path": filepath.Join(e.WS, "notes.txt"), "old_string": "two", "new_string": "TWO", "instruction": "shout two"}),
		fakegemini.Text("Changed it."),
	)
	tm := e.StartTUI()
	tm.Submit("Shout the second line")
	tm.WaitFor("Apply this change?")
	tm.Keys("3") // Modify in $EDITOR, then allow
	tm.WaitFor("Changed it.")
	if got, _ := os.ReadFile(filepath.Join(e.WS, "notes.txt")); string(got) != "one\nEDITED\nthree\n" {
		t.Errorf("notes.txt = %q", got)
	}
	args, _ := os.ReadFile(argsFile)
	if !strings.HasPrefix(string(args), "--wait /") {
		t.Errorf("editor args %q, want --wait and the file", args)
	}
}
