package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/agent"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    string
		hooks []string // event matcher command name timeout sequential
		errs  []string
	}{
		{
			name: "full definition",
			in: `{"BeforeTool": [{"matcher": "write_.*", "sequential": true, "hooks": [
				{"type": "command", "command": "a.sh", "name": "guard", "timeout": 1500, "description": "d"},
				{"command": "b.sh"}]}],
				"enabled": true, "disabled": ["x"], "notifications": true}`,
			hooks: []string{"BeforeTool write_.* a.sh guard 1.5s true", "BeforeTool write_.* b.sh  1m0s true"},
		},
		{
			name:  "every event",
			in:    `{"SessionStart": [{"hooks": [{"type": "command", "command": "s"}]}], "Notification": [{"matcher": "ToolPermission", "hooks": [{"type": "command", "command": "n"}]}]}`,
			hooks: []string{"Notification ToolPermission n  1m0s false", "SessionStart  s  1m0s false"},
		},
		{
			name: "errors name the key",
			in: `{"BeforeThing": [], "AfterTool": {"hooks": []}, "BeforeAgent": [42, {"matcher": 3, "hooks": [
				{"type": "plugin", "command": "x"}, {"type": "command"}, {"type": "command", "command": "ok", "timeout": -1},
				{"type": "command", "command": "fine", "name": 7}, "str"]}, {"matcher": "m"}]}`,
			errs: []string{
				"F: hooks.AfterTool: must be a list of hook definitions, not an object",
				"F: hooks.BeforeAgent[0]: must be an object with \"hooks\", not a number",
				"F: hooks.BeforeAgent[1].matcher: must be a string, not a number",
				"F: hooks.BeforeAgent[1].hooks[0].type: \"plugin\" hooks are not supported (only \"command\")",
				"F: hooks.BeforeAgent[1].hooks[1].command: missing; a command hook needs a command",
				"F: hooks.BeforeAgent[1].hooks[2].timeout: must be a positive number of milliseconds",
				"F: hooks.BeforeAgent[1].hooks[3].name: must be a string, not a number",
				"F: hooks.BeforeAgent[1].hooks[4]: must be an object with \"type\" and \"command\", not a string",
				"F: hooks.BeforeAgent[2].hooks: missing or not a list of hooks",
				"F: hooks.BeforeThing: unknown hook event",
			},
		},
		{
			name:  "a tool matcher that does not compile is kept, and said",
			in:    `{"BeforeTool": [{"matcher": "read_(", "hooks": [{"command": "a"}]}], "AfterTool": [{"matcher": "(?!x)", "hooks": [{"command": "b"}]}], "SessionStart": [{"matcher": "(", "hooks": [{"command": "c"}]}]}`,
			hooks: []string{"AfterTool (?!x) b  1m0s false", "BeforeTool read_( a  1m0s false", "SessionStart ( c  1m0s false"},
			errs: []string{
				"F: hooks.AfterTool[0].matcher: \"(?!x)\" is not a valid regular expression",
				"F: hooks.BeforeTool[0].matcher: \"read_(\" is not a valid regular expression",
			},
		},
		{name: "not an object", in: `[1]`, errs: []string{"F: hooks: must be an object of events, not a list"}},
		{name: "null", in: `null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hs, errs := Parse(decode(t, tt.in), SourceUser, "F: hooks")
			var got []string
			for _, h := range hs {
				got = append(got, strings.Join([]string{string(h.Event), h.Matcher, h.Command, h.Name, h.Timeout.String(), boolStr(h.Sequential)}, " "))
				if h.Source != SourceUser || !strings.HasPrefix(h.Origin, "F: hooks.") {
					t.Errorf("source %v origin %q", h.Source, h.Origin)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.hooks, "\n") {
				t.Errorf("hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.hooks, "\n"))
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %v, want %v", errs, tt.errs)
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tt.errs[i]) {
					t.Errorf("error %d = %q, want prefix %q", i, e, tt.errs[i])
				}
			}
		})
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestLoadExtension(t *testing.T) {
	root := filepath.Join(t.TempDir(), "my-ext")
	if err := os.MkdirAll(filepath.Join(root, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "hooks", "hooks.json"), []byte(`{"hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "${extensionPath}${/}run.sh ${workspacePath}"}]}]}}`), 0o644)
	hs, errs := LoadExtension(root, "/ws")
	if len(errs) != 0 || len(hs) != 1 {
		t.Fatalf("hooks %v errors %v", hs, errs)
	}
	h := hs[0]
	if h.Command != root+"/run.sh /ws" || h.Source != SourceExtension || h.Extension != "my-ext" || h.Event != agent.HookAfterTool || h.Timeout != time.Minute {
		t.Errorf("hook %+v", h)
	}
	if hs, errs := LoadExtension(t.TempDir(), "/ws"); hs != nil || errs != nil {
		t.Errorf("missing file: %v %v", hs, errs)
	}
	os.WriteFile(filepath.Join(root, "hooks", "hooks.json"), []byte(`{"hooks": `), 0o644)
	if _, errs := LoadExtension(root, "/ws"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "hooks.json: invalid JSON") {
		t.Errorf("bad JSON: %v", errs)
	}
}

// FuzzParse feeds arbitrary JSON to the settings parser: it must never
// panic, and every hook it returns must be runnable.
func FuzzParse(f *testing.F) {
	f.Add(`{"BeforeTool": [{"matcher": "x", "hooks": [{"type": "command", "command": "a", "timeout": 5}]}]}`)
	f.Add(`{"AfterAgent": [{"hooks": [null, 1, "x", {"command": ""}]}], "disabled": 3}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		hs, _ := Parse(v, SourceProject, "f: hooks")
		for _, h := range hs {
			if h.Command == "" || h.Timeout <= 0 || h.Event == "" {
				t.Fatalf("unrunnable hook %+v", h)
			}
		}
	})
}
