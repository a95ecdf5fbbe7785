package tui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/tool"
)

var trustQuestion = setup.TrustQuestion{
	Folder: "/home/u/src/repo",
	Found: setup.FolderDiscovery{
		MCPServers: []string{"evil: sh -c touch ../MCP"},
		Hooks:      []string{"SessionStart: touch ../a", "BeforeAgent: touch ../b"},
		Settings:   []string{"general"},
		Warnings:   []string{"This project sets the approval mode to yolo (general.defaultApprovalMode)."},
	},
}

// openTrust shows the dialog as the assembly's question does and returns
// where its answer goes.
func openTrust(m *model) <-chan trustReply {
	reply := make(chan trustReply, 1)
	labels, levels := setup.TrustChoices(trustQuestion.Folder)
	m.Update(trustAskMsg{ask: &trustAsk{q: trustQuestion, labels: labels, levels: levels, reply: reply}})
	return reply
}

// TestTrustDialog answers the dialog with each way there is: the choice
// goes to the assembly; Esc and Ctrl-C answer that no choice was made and
// end the program with Gemini CLI's exit code and words.
func TestTrustDialog(t *testing.T) {
	for _, tc := range []struct {
		script string
		level  config.TrustLevel
		left   string // the key named in the exit note when the dialog was left
	}{
		{"{enter}", config.TrustFolder, ""},
		{"2", config.TrustParent, ""},
		{"{up}{enter}", config.DoNotTrust, ""},
		{"{tab}{tab}{enter}", config.DoNotTrust, ""},
		{"x{esc}", "", "escape"},
		{"{ctrl+c}", "", "Ctrl-C"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			m, _ := newTestModel(t)
			reply := openTrust(m)
			for _, k := range formKeys(tc.script) {
				m.Update(k)
			}
			var r trustReply
			select {
			case r = <-reply:
			default:
				t.Fatal("no answer")
			}
			if m.trust != nil {
				t.Error("the dialog is still shown")
			}
			if m.input.Value() != "" {
				t.Errorf("keys reached the input: %q", m.input.Value())
			}
			if tc.left == "" {
				if r.level != tc.level || r.err != nil || m.quitting {
					t.Errorf("answer %+v (quitting %v), want %s", r, m.quitting, tc.level)
				}
				return
			}
			if !errors.Is(r.err, setup.ErrTrustNotGiven) || !m.quitting || m.exitCode != trustExitCode ||
				m.exitNote != "A folder trust level must be selected to continue. Exiting since "+tc.left+" was pressed." {
				t.Errorf("left with %+v, quitting %v, exit %d %q", r, m.quitting, m.exitCode, m.exitNote)
			}
		})
	}
}

// TestTrustDialogView draws the dialog with what the folder would run,
// and keeps the title and the choices on a short terminal.
func TestTrustDialogView(t *testing.T) {
	m, _ := newTestModel(t)
	openTrust(m)
	checkGolden(t, "trust_dialog", m.View().Content)

	m.height = 16
	v := m.View().Content
	for _, want := range []string{"Do you trust the files in this folder?", "Trust folder (repo)", "Trust parent folder (src)", "Don't trust", "more lines"} {
		if !strings.Contains(v, want) {
			t.Errorf("a short terminal loses %q:\n%s", want, v)
		}
	}
	if n := strings.Count(v, "\n") + 1; n > m.height {
		t.Errorf("the dialog is %d rows on a %d-row terminal:\n%s", n, m.height, v)
	}
}

// TestAskTrustCallback runs the callback as the assembly does, from
// another goroutine, and cancels a question nobody answers.
func TestAskTrustCallback(t *testing.T) {
	m, _ := newTestModel(t)
	msgs := make(chan any, 1)
	m.send = func(msg tea.Msg) { msgs <- msg }
	type result struct {
		level config.TrustLevel
		err   error
	}
	done := make(chan result, 1)
	go func() {
		l, err := m.askTrust(context.Background(), trustQuestion)
		done <- result{l, err}
	}()
	ask := (<-msgs).(trustAskMsg)
	if ask.ask.q.Folder != trustQuestion.Folder || len(ask.ask.labels) != 3 {
		t.Fatalf("question %+v", ask.ask)
	}
	ask.ask.answer(trustReply{level: config.DoNotTrust})
	if r := <-done; r.level != config.DoNotTrust || r.err != nil {
		t.Errorf("callback returned %+v", r)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		l, err := m.askTrust(ctx, trustQuestion)
		done <- result{l, err}
	}()
	<-msgs
	cancel()
	if r := <-done; !errors.Is(r.err, context.Canceled) {
		t.Errorf("a cancelled start-up returned %+v", r)
	}
}

// TestPermissionsTrust runs /permissions trust: the dialog shows the
// folder's current trust, a choice is saved to trustedFolders.json, Esc
// changes nothing, and a wrong use says how to use it.
func TestPermissionsTrust(t *testing.T) {
	m, log := newTestModel(t)
	home, ws := t.TempDir(), t.TempDir()
	m.agent = &setup.Agent{Home: config.HomeAt(home), Env: setup.NewEnv(func(string) (string, bool) { return "", false }), Workspace: tool.NewWorkspace(ws)}
	rules := func() map[string]config.TrustLevel {
		tf, err := config.LoadTrustedFolders(filepath.Join(home, ".gemini", "trustedFolders.json"))
		if err != nil {
			t.Fatal(err)
		}
		return tf.Rules
	}
	m.cmdPermissions([]string{"trust"})
	if v := m.View().Content; !strings.Contains(v, "Modify Trust Level") || !strings.Contains(v, "Current Level: Not Set") || !strings.Contains(v, "Trust this folder (") {
		t.Fatalf("the dialog:\n%s", v)
	}
	for _, k := range formKeys("3") {
		m.Update(k)
	}
	if got := rules()[ws]; got != config.DoNotTrust || m.trust != nil || m.quitting {
		t.Errorf("rule %q after Don't trust (dialog %v, quitting %v)", got, m.trust, m.quitting)
	}
	m.cmdPermissions([]string{"trust", ws})
	if v := m.View().Content; !strings.Contains(v, "Current Level: untrusted") {
		t.Errorf("the dialog does not show the saved level:\n%s", v)
	}
	for _, k := range formKeys("{esc}") {
		m.Update(k)
	}
	if got := rules()[ws]; got != config.DoNotTrust || m.trust != nil || m.quitting {
		t.Errorf("Esc changed the rule to %q (dialog %v, quitting %v)", got, m.trust, m.quitting)
	}
	m.cmdPermissions(nil)
	m.cmdPermissions([]string{"reset"})
	m.cmdPermissions([]string{"trust", "missing"})
	out := strings.Join(*log, "\n")
	for _, want := range []string{
		"Saved DO_NOT_TRUST for " + ws,
		"Folder trust unchanged.",
		"Please provide a subcommand for /permissions. Usage: /permissions trust [<directory-path>]",
		"Invalid subcommand for /permissions: reset.",
		"Error accessing path: " + filepath.Join(ws, "missing"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("printed %q, want %q", out, want)
		}
	}
}
