package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/tool"
)

// withSession gives the test model a bare engine session, enough for the
// commands that only read or change it, and its ~/.gemini under a
// temporary directory.
func withSession(t *testing.T, m *model) *setup.Agent {
	t.Helper()
	a := &setup.Agent{Session: agent.New(agent.Config{ModelName: "auto"}), Home: config.HomeAt(t.TempDir())}
	m.agent, m.ready = a, true
	m.modelID = "auto"
	return a
}

func printed(log *[]string) string { return strings.Join(*log, "\n") }

// TestRejectNote: choosing reject opens a note line; Enter alone just
// rejects, a note is kept for the prompt that follows the turn, Esc
// rejects without one.
func TestRejectNote(t *testing.T) {
	tests := []struct {
		name     string
		typed    string
		last     tea.KeyPressMsg
		wantNote string
	}{
		{"enter alone", "", tea.KeyPressMsg{Code: tea.KeyEnter}, ""},
		{"note", "use mkdir instead", tea.KeyPressMsg{Code: tea.KeyEnter}, "use mkdir instead"},
		{"esc drops the note", "never mind", tea.KeyPressMsg{Code: tea.KeyEscape}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, log := newTestModel(t)
			reply := make(chan tool.Decision, 1)
			call := &agent.ToolCall{ID: "c", Name: "run_shell_command", Status: agent.StatusAwaitingApproval,
				Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: "touch x", RootCommands: []string{"touch"}}}}
			m.Update(confirmMsg{call: call, reply: reply})
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
			if m.dialog == nil || m.dialog.note == nil {
				t.Fatal("reject did not open the note line")
			}
			if len(reply) != 0 {
				t.Fatal("answered before the note")
			}
			if tt.typed != "" {
				m.Update(tea.PasteMsg{Content: tt.typed})
			}
			m.Update(tt.last)
			if d := <-reply; d.Outcome != tool.Cancel {
				t.Errorf("outcome %s", d.Outcome)
			}
			if m.dialog != nil || m.rejectNote != tt.wantNote {
				t.Errorf("dialog %v, note %q", m.dialog, m.rejectNote)
			}
			if rejected := strings.Contains(printed(log), "Rejected."); rejected != (tt.wantNote == "") {
				t.Errorf("printed:\n%s", printed(log))
			}
		})
	}
}

func TestDialogNoteView(t *testing.T) {
	m, log := newTestModel(t)
	m.running = true
	m.turnStart = m.now()
	exec := &agent.ToolCall{ID: "c2", Name: "run_shell_command", Description: "rm -rf build", Status: agent.StatusAwaitingApproval,
		Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: "rm -rf build", RootCommands: []string{"rm"}}}}
	m.Update(confirmMsg{call: exec, reply: make(chan tool.Decision, 1)})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	m.Update(tea.PasteMsg{Content: "keep the build"})
	checkGolden(t, "dialog_note", strings.Join(*log, "\n")+"\n=== live area\n"+m.View().Content+"\n")
}

func TestModelCommand(t *testing.T) {
	tests := []struct {
		line      string
		wantModel string
		wantOut   []string
	}{
		// A picker on screen, then 2 and Enter choose pro.
		{"/model", "auto", []string{"Select Model", "● 1. auto", "2. pro", "flash-lite", "/model <name>"}},
		{"/model flash", "flash", []string{"Model set to flash (gemini-3.8-flash)"}},
		{"/model gemini-2.5-pro", "gemini-2.5-pro", []string{"Model set to gemini-2.5-pro"}},
		{"/model a b", "auto", []string{"Usage: /model"}},
	}
	for _, tt := range tests {
		m, log := newTestModel(t)
		a := withSession(t, m)
		m.runCommand(tt.line)
		if got := a.Session.Model(); got != tt.wantModel || m.modelID != tt.wantModel {
			t.Errorf("%s: session model %q, footer %q, want %q", tt.line, got, m.modelID, tt.wantModel)
		}
		out := printed(log) + m.render()
		for _, w := range tt.wantOut {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.line, w, out)
			}
		}
		if m.picker != nil {
			m.Update(tea.KeyPressMsg{Code: '2', Text: "2"})
			if got := a.Session.Model(); got != "pro" || m.picker != nil {
				t.Errorf("picking 2: model %q, picker still open %v", got, m.picker != nil)
			}
		}
	}
}

func TestIDECommand(t *testing.T) {
	m, log := newTestModel(t)
	a := withSession(t, m)
	path := a.Home.SettingsPath()
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{\n  // mine\n  \"ui\": {\"theme\": \"x\"}\n}\n"), 0o644)
	steps := []struct {
		line string
		want string
		on   bool
	}{
		{"/ide", "IDE: not connected", false},
		{"/ide enable", "connecting to the IDE companion", true},
		{"/ide status", "IDE: not connected", true},
		{"/ide disable", "IDE mode disabled in " + path, false},
		{"/ide frob", "Unknown sub-command /ide frob", false},
	}
	for _, st := range steps {
		*log = nil
		m.runCommand(st.line)
		if !strings.Contains(printed(log), st.want) {
			t.Errorf("%s: output lacks %q:\n%s", st.line, st.want, printed(log))
		}
		s, err := config.Load(config.LoadOptions{Workspace: t.TempDir(), HomeDir: filepath.Dir(a.Home.Dir), Env: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		if s.IDE.Enabled != st.on {
			t.Errorf("%s: ide.enabled = %v", st.line, s.IDE.Enabled)
		}
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "// mine") || !strings.Contains(string(b), `"theme": "x"`) {
		t.Errorf("the rest of settings.json was lost:\n%s", b)
	}
}

// TestCompressCommand: /compress runs in the background, queues prompts
// meanwhile, and reports what the engine said.
func TestCompressCommand(t *testing.T) {
	m, log := newTestModel(t)
	withSession(t, m)
	msgs := make(chan tea.Msg, 1)
	m.send = func(msg tea.Msg) { msgs <- msg }
	m.runCommand("/compress")
	if !m.compressing {
		t.Fatal("not compressing")
	}
	m.submit("next question", false)
	if len(m.queued) != 1 {
		t.Errorf("prompt not queued while compressing: %v", m.queued)
	}
	m.queued = nil
	select {
	case msg := <-msgs:
		m.Update(msg)
	case <-time.After(time.Minute):
		t.Fatal("compression never finished")
	}
	if m.compressing || !strings.Contains(printed(log), "Nothing to compress") {
		t.Errorf("compressing %v, printed:\n%s", m.compressing, printed(log))
	}
}

// TestChatResumeInPlace: /chat resume puts a saved conversation back into
// the running session and shows it.
func TestChatResumeInPlace(t *testing.T) {
	m, log := newTestModel(t)
	a := withSession(t, m)
	a.TempDir = t.TempDir()
	saved := []*genai.Content{genai.NewContentFromText("What is 2+2?", genai.RoleUser), genai.NewContentFromText("Four.", genai.RoleModel)}
	if err := a.Session.SetHistory(saved); err != nil {
		t.Fatal(err)
	}
	m.runCommand("/chat save maths")
	if err := a.Session.SetHistory(nil); err != nil {
		t.Fatal(err)
	}
	*log = nil
	m.runCommand("/chat resume maths")
	if h := a.Session.History(); len(h) != 2 || h[1].Parts[0].Text != "Four." {
		t.Errorf("history after /chat resume: %d contents", len(h))
	}
	out := printed(log)
	for _, w := range []string{"Resumed conversation from tag: maths.", "> What is 2+2?", "Four."} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	*log = nil
	m.runCommand("/chat resume nope")
	if !strings.Contains(printed(log), "no saved checkpoint found with tag: nope") {
		t.Errorf("unknown tag:\n%s", printed(log))
	}
}
