package tui_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/golden"
)

// TestTUINewCommandsFirstScreens: the first screen of each command added
// for Gemini CLI 0.61's, in one session; /clear between them keeps each
// screen its own. A list closes with Esc.
func TestTUINewCommandsFirstScreens(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tests := []struct {
		line, want, golden string
		picker             bool
	}{
		{"/theme", "Select Theme", "cmd_theme", true},
		{"/settings", "Tab switches scope", "cmd_settings", true},
		{"/auth", "Get started", "cmd_auth", true},
		{"/model", "Select Model", "cmd_model", true},
		{"/editor", "Select Editor", "cmd_editor", true},
		{"/resume", "No previous sessions", "cmd_resume", false},
		{"/agents", "No agents are defined", "cmd_agents", false},
		{"/policies", "No policies loaded", "cmd_policies", false},
		{"/permissions", "Please provide a subcommand", "cmd_permissions", false},
		{"/privacy", "Privacy notice", "cmd_privacy", false},
		{"/bug it broke", "Bug report", "cmd_bug", false},
		{"/docs", "documentation", "cmd_docs", false},
		{"/terminal-setup", "New lines", "cmd_terminal_setup", false},
		{"/commands", "No custom commands", "cmd_commands", false},
		{"/shortcuts", "Shortcuts", "cmd_shortcuts", false},
		{"/upgrade", "not available in Castor", "cmd_upgrade", false},
		{"/vim", "Vim mode on", "cmd_vim", false},
	}
	for _, tt := range tests {
		tm.Submit("/clear")
		tm.WaitUntil("a cleared screen", func(s string) bool { return !strings.Contains(s, "> /") })
		tm.Submit(tt.line)
		goldenFrom(tm, tt.golden, "> "+tt.line, tm.WaitFor(tt.want))
		if tt.picker {
			tm.Keys("Escape")
			tm.WaitUntil("the list closed", func(s string) bool { return !strings.Contains(s, tt.want) || strings.Contains(s, "Type your message") })
		}
	}
	if b, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "settings.json")); !strings.Contains(string(b), `"vimMode": true`) {
		t.Errorf("/vim did not save general.vimMode:\n%s", b)
	}
}

var moreRE = regexp.MustCompile(`↓ \d+ more`)

// goldenFrom compares the screen from the last line starting with from
// to its end with the golden file name: what came before (a cleared
// screen's leftovers in the scrollback) is not what the test is about.
func goldenFrom(tm *e2etest.Term, name, from, screen string) {
	tm.T().Helper()
	cut := func(s string) string {
		if i := strings.LastIndex(s, "\n"+from); i >= 0 {
			s = s[i+1:]
		}
		// How many entries a list has below its first page grows with
		// every settings key added; the page is what is compared.
		return moreRE.ReplaceAllString(s, "↓ N more")
	}
	name = "tui/" + name + ".txt"
	if golden.Update() {
		golden.Write(tm.T(), name, cut(screen))
		return
	}
	want := string(golden.Read(tm.T(), name))
	if got, ok := tm.Poll(func(s string) bool { return cut(s) == want }); !ok {
		tm.T().Errorf("screen %s differs from the golden file (-update rewrites it)\n--- got\n%s\n--- want\n%s", name, cut(got), want)
	}
}

// TestTUIThemeAndSettingsSaved: a theme picked in /theme and a switch
// flipped in /settings are written to the user's settings file.
func TestTUIThemeAndSettingsSaved(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Submit("/theme Dracula")
	tm.WaitFor("Theme: Dracula")
	tm.Submit("/settings")
	tm.WaitFor("Tab switches scope")
	tm.TypeText("vim mode")
	tm.WaitFor("Search: vim mode")
	tm.Keys("Enter")
	tm.WaitFor("general.vimMode = true")
	tm.Keys("Escape")
	tm.WaitUntil("vim mode in the footer", func(s string) bool { return strings.Contains(footer(s), "[INSERT]") })
	b, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "settings.json"))
	for _, want := range []string{`"theme": "Dracula"`, `"vimMode": true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, b)
		}
	}
}

// /settings lists every key of Gemini CLI 0.61's settings: typing
// narrows the list, a key Castor does not act on says so and is not
// written, and an honoured one is written to the scope chosen (Tab:
// Workspace).
func TestTUISettingsEveryKey(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Submit("/settings")
	tm.WaitFor("Tab switches scope")
	tm.TypeText("shell.showColor")
	tm.WaitFor("not supported in Castor")
	tm.Keys("Enter")
	tm.WaitFor("tools.shell.showColor is not supported in Castor.")
	tm.Keys("Tab")
	tm.WaitFor("Scope: Workspace settings")
	for range "shell.showColor" {
		tm.Keys("BSpace")
	}
	tm.TypeText("inactivityTimeout")
	s := tm.WaitFor("Search: inactivityTimeout")
	tm.Golden("settings_search", s)
	tm.Keys("Enter")
	tm.WaitFor("Enter to save")
	tm.TypeText("120")
	tm.Keys("Enter")
	tm.WaitFor("tools.shell.inactivityTimeout = 120")
	tm.Keys("Tab") // Workspace → System → User, as Gemini CLI's dialog
	tm.WaitFor("Scope: System settings")
	tm.Keys("Tab")
	tm.WaitFor("Scope: User settings")
	b, _ := os.ReadFile(filepath.Join(e.WS, ".gemini", "settings.json"))
	if !strings.Contains(string(b), `"inactivityTimeout": 120`) {
		t.Errorf("the workspace settings lack the timeout:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "settings.json")); strings.Contains(string(b), "showColor") {
		t.Errorf("an unsupported key was written:\n%s", b)
	}
}

// TestTUIReverseSearch: Ctrl+R finds an earlier prompt by a piece of it,
// and Enter sends it again.
func TestTUIReverseSearch(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("First answer."), fakegemini.Text("Second answer."), fakegemini.Text("Third answer."))
	tm := e.StartTUI()
	tm.Submit("alpha question about parsers")
	tm.WaitFor("First answer.")
	tm.Submit("beta question")
	tm.WaitFor("Second answer.")
	tm.Keys("C-r")
	tm.WaitFor("(reverse-i-search)")
	tm.TypeText("pars")
	tm.Golden("reverse_search", tm.WaitFor("`pars': alpha question about parsers"))
	tm.Keys("Enter")
	tm.WaitFor("Third answer.")
	reqs := e.Srv.Requests()
	if got := e2etest.LastUserText(reqs[len(reqs)-1]); got != "alpha question about parsers" {
		t.Errorf("the search sent %q", got)
	}
}

// TestTUIAppKeys: ? shows the shortcuts, Ctrl+O prints the last tool
// output in full, Ctrl+L clears the screen; a key rebound in
// ~/.gemini/keybindings.json works and its old key no longer does.
func TestTUIAppKeys(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, "line number "+strings.Repeat("x", i%3)+string(rune('A'+i%26)))
	}
	lines[24] = "the twenty-fifth line"
	e.Write("long.txt", strings.Join(lines, "\n")+"\n")
	e2etest.WriteAt(t, filepath.Join(e.Home, ".gemini", "keybindings.json"), `[
		// YOLO moves to Ctrl+T
		{"command": "-app.toggleYolo", "key": "ctrl+y"},
		{"command": "app.toggleYolo", "key": "ctrl+t"},
	]`)
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "cat long.txt"}), fakegemini.Text("Read it."))
	tm := e.StartTUI()
	tm.TypeText("?")
	tm.Golden("shortcuts", tm.WaitFor("reverse-search history"))
	tm.Keys("Escape")
	tm.WaitUntil("the panel closed", func(s string) bool { return !strings.Contains(s, "reverse-search history") })
	tm.Submit("read long.txt")
	s := tm.WaitFor("Read it.")
	if strings.Contains(s, "the twenty-fifth line") {
		t.Fatalf("the tool output was not cut to begin with:\n%s", s)
	}
	tm.Keys("C-o")
	tm.WaitFor("the twenty-fifth line")
	tm.Keys("C-y")
	tm.Keys("C-t")
	tm.WaitUntil("YOLO from Ctrl+T only", func(s string) bool {
		return strings.Contains(footer(s), "YOLO") && strings.Count(s, "YOLO mode is on") == 1
	})
	tm.Keys("C-l")
	tm.WaitUntil("a cleared screen", func(string) bool {
		visible := tm.Tmux("capture-pane", "-p", "-t", "main")
		return !strings.Contains(visible, "Read it.") && strings.Contains(visible, "Type your message")
	})
}
