package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// writeUserSettings writes ~/.gemini/settings.json of e.
func (e *env) writeUserSettings(content string) {
	e.t.Helper()
	p := filepath.Join(e.home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// TestDisableYoloModeRefusesFlags: with security.disableYoloMode, asking
// for YOLO mode by flag stops castor before any request with Gemini CLI's
// error and exit 52; other modes still run.
func TestDisableYoloModeRefusesFlags(t *testing.T) {
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
			e := newEnv(t, fakegemini.Text("Hello."))
			e.writeUserSettings(`{"security": {"disableYoloMode": true}}`)
			r := e.run(tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tt.wantCode, r.stderr)
			}
			if strings.Contains(r.stderr, "YOLO mode is enabled") {
				t.Errorf("the YOLO notice was printed:\n%s", r.stderr)
			}
			if tt.wantCode == 0 {
				if !strings.Contains(r.stdout, "Hello.") || strings.Contains(r.stderr, "disableYoloMode") {
					t.Errorf("stdout %q stderr %q", r.stdout, r.stderr)
				}
				return
			}
			if r.stderr != refused {
				t.Errorf("stderr = %q, want %q", r.stderr, refused)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q", r.stdout)
			}
			if n := len(e.srv.Requests()); n != 0 {
				t.Errorf("%d model requests before the refusal", n)
			}
		})
	}
	// Without the setting, -y runs as before.
	e := newEnv(t, fakegemini.Text("Hello."))
	if r := e.run("-p", "hi", "-y"); r.code != 0 || !strings.Contains(r.stderr, "YOLO mode is enabled") {
		t.Errorf("without the setting: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestDisableYoloModeTUI: Shift+Tab skips YOLO with Gemini CLI's warning.
func TestDisableYoloModeTUI(t *testing.T) {
	e := newEnv(t)
	e.writeUserSettings(`{"security": {"disableYoloMode": true}}`)
	tm := e.startTUI()
	tm.keys("BTab")
	tm.waitFor("auto-accept edits")
	tm.keys("BTab")
	s := tm.waitFor("You cannot enter YOLO mode since it is disabled in your settings.")
	if strings.Contains(s, "YOLO (shift+tab)") {
		t.Errorf("YOLO mode entered:\n%s", s)
	}
	if !strings.Contains(s, "plan (shift+tab)") {
		t.Errorf("want plan mode after auto-accept edits:\n%s", s)
	}
}

// TestDisableAlwaysAllowStreamJSON: with security.disableAlwaysAllow, a
// permission_request offers no "always" answers, and one sent anyway
// counts as once: the next edit is asked about again.
func TestDisableAlwaysAllowStreamJSON(t *testing.T) {
	for _, disable := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "disabled"}[disable], func(t *testing.T) {
			e := newEnv(t)
			if disable {
				e.writeUserSettings(`{"security": {"disableAlwaysAllow": true}}`)
			}
			a, b := filepath.Join(e.ws, "a.txt"), filepath.Join(e.ws, "b.txt")
			e.srv.Enqueue(
				fakegemini.Call("write_file", map[string]any{"file_path": a, "content": "a\n"}),
				fakegemini.Call("write_file", map[string]any{"file_path": b, "content": "b\n"}),
				fakegemini.Text("Both written."),
			)
			p := e.startStream("-p", "--input-format", "stream-json", "-o", "stream-json")
			p.send(`{"type":"user","message":"write a.txt and b.txt"}`)
			req := p.until("permission_request")
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
			p.send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_always"}`)
			if disable {
				second := p.until("permission_request")
				if params, _ := second["parameters"].(map[string]any); params["file_path"] != b {
					t.Fatalf("second permission_request = %v", second)
				}
				p.send(`{"type":"permission_response","tool_id":"` + second["tool_id"].(string) + `","decision":"proceed_once"}`)
			}
			if res := p.until("result"); res["status"] != "success" {
				t.Fatalf("result = %v", res)
			}
			if code := p.close(); code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, p.stderr.String())
			}
			if n, want := p.count("permission_request"), map[bool]int{false: 1, true: 2}[disable]; n != want {
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
			e := newEnv(t, fakegemini.Text("Hello."))
			e.writeUserSettings(tt.settings)
			r := e.run(tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tt.wantCode, r.stderr)
			}
			if tt.wantCode != 0 {
				if !strings.Contains(r.stderr, "Invalid configuration: output.format") {
					t.Errorf("stderr = %q", r.stderr)
				}
				return
			}
			var out map[string]any
			isJSON := json.Unmarshal([]byte(r.stdout), &out) == nil
			if isJSON != tt.wantJSON {
				t.Fatalf("stdout JSON %v, want %v: %q", isJSON, tt.wantJSON, r.stdout)
			}
			if tt.wantJSON && out["response"] != "Hello." {
				t.Errorf("response = %v", out["response"])
			}
			if !tt.wantJSON && r.stdout != "Hello.\n" {
				t.Errorf("stdout = %q", r.stdout)
			}
		})
	}
}

// TestPreferredEditorTUI: "Modify in $EDITOR" runs the editor
// general.preferredEditor names, as Gemini CLI does (vscode: code
// --wait), and the edited content is what gets written.
func TestPreferredEditorTUI(t *testing.T) {
	e := newEnv(t)
	bin := t.TempDir()
	argsFile := filepath.Join(e.home, "editor-args.txt")
	script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\nfor last; do :; done\nprintf 'one\\nEDITED\\nthree\\n' > \"$last\"\n"
	if err := os.WriteFile(filepath.Join(bin, "code"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	e.writeUserSettings(`{"general": {"preferredEditor": "vscode"}}`)
	e.write("notes.txt", "one\ntwo\nthree\n")
	e.srv.Enqueue(
		fakegemini.Call("replace", map[string]any{"file_path": filepath.Join(e.ws, "notes.txt"), "old_string": "two", "new_string": "TWO", "instruction": "shout two"}),
		fakegemini.Text("Changed it."),
	)
	tm := e.startTUI()
	tm.submit("Shout the second line")
	tm.waitFor("Apply this change?")
	tm.keys("3") // Modify in $EDITOR, then allow
	tm.waitFor("Changed it.")
	if got, _ := os.ReadFile(filepath.Join(e.ws, "notes.txt")); string(got) != "one\nEDITED\nthree\n" {
		t.Errorf("notes.txt = %q", got)
	}
	args, _ := os.ReadFile(argsFile)
	if !strings.HasPrefix(string(args), "--wait /") {
		t.Errorf("editor args %q, want --wait and the file", args)
	}
}
