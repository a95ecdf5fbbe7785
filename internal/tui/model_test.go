package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/tool"
)

// newTestModel is a model without a session, 80×24, colourless, at a
// fixed time, that keeps what it prints.
func newTestModel(t testing.TB) (*model, *[]string) {
	t.Helper()
	m := newModel(context.Background(), Config{Environ: []string{"NO_COLOR=1", "HOME=/home/u"}})
	m.workDir, m.homeDir, m.branch, m.modelID = "/home/u/project", "/home/u", "main", "gemini-2.5-pro"
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.now = func() time.Time { return now }
	m.width, m.height = 80, 24
	m.resize()
	var log []string
	m.printLog = &log
	return m, &log
}

// checkGolden compares got, without colour, with testdata/<name>.golden.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name+".golden", ansi.Strip(got))
}

func content(text string) tea.Msg {
	return eventMsg{ev: &agent.Event{Type: agent.EventContent, Text: text}}
}

func TestViews(t *testing.T) {
	shell := &agent.ToolCall{ID: "c1", Name: "run_shell_command", Description: "ls -la", Status: agent.StatusExecuting, LiveOutput: "a\nb\nc\n"}
	exec := &agent.ToolCall{ID: "c2", Name: "run_shell_command", Description: "rm -rf build", Status: agent.StatusAwaitingApproval,
		Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: "rm -rf build", RootCommands: []string{"rm"}}}}
	tests := []struct {
		name string
		msgs []tea.Msg
		// setup runs before the messages.
		running bool
	}{
		{name: "idle"},
		{name: "streaming", running: true, msgs: []tea.Msg{
			eventMsg{ev: &agent.Event{Type: agent.EventThought, Thought: &agent.Thought{Subject: "Planning the change"}}},
			content("# Title\n\nFirst paragraph is done.\n\nSecond para"),
		}},
		{name: "tool_running", running: true, msgs: []tea.Msg{eventMsg{ev: &agent.Event{Type: agent.EventToolCall, Call: shell}}}},
		{name: "dialog_exec", running: true, msgs: []tea.Msg{confirmMsg{call: exec, reply: make(chan tool.Decision, 1)}}},
		{name: "typed_slash", msgs: []tea.Msg{tea.KeyPressMsg{Code: '/', Text: "/"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, log := newTestModel(t)
			m.running = tt.running
			m.turnStart = m.now().Add(-3 * time.Second)
			for _, msg := range tt.msgs {
				m.Update(msg)
			}
			checkGolden(t, tt.name, strings.Join(*log, "\n")+"\n=== live area\n"+m.View().Content+"\n")
		})
	}
}

func TestDialogEnterAllowsOnce(t *testing.T) {
	m, _ := newTestModel(t)
	reply := make(chan tool.Decision, 1)
	call := &agent.ToolCall{ID: "c", Name: "write_file", Status: agent.StatusAwaitingApproval,
		Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmEdit, FileName: "a.txt", NewContent: "x"}}}
	m.Update(confirmMsg{call: call, reply: reply})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if d := <-reply; d.Outcome != tool.ProceedOnce {
		t.Errorf("Enter gave %s", d.Outcome)
	}
	if m.dialog != nil {
		t.Error("dialog still open")
	}
}

func TestDialogOutcomes(t *testing.T) {
	tests := []struct {
		det  tool.ConfirmationDetails
		keys string
		want tool.Outcome
	}{
		{tool.ConfirmationDetails{Type: tool.ConfirmExec, RootCommands: []string{"git"}}, "2", tool.ProceedAlways},
		{tool.ConfirmationDetails{Type: tool.ConfirmMCP, ServerName: "s", ToolName: "t"}, "2", tool.ProceedAlwaysTool},
		{tool.ConfirmationDetails{Type: tool.ConfirmMCP, ServerName: "s", ToolName: "t"}, "3", tool.ProceedAlwaysServer},
		{tool.ConfirmationDetails{Type: tool.ConfirmExec}, "esc", tool.Cancel},
	}
	for _, tt := range tests {
		m, _ := newTestModel(t)
		reply := make(chan tool.Decision, 1)
		det := tt.det
		m.Update(confirmMsg{call: &agent.ToolCall{ID: "c", Name: "x", Confirmation: &agent.Confirmation{Details: &det}}, reply: reply})
		if tt.keys == "esc" {
			// The first Esc rejects and opens the note line, the second
			// leaves it empty.
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
		} else {
			m.Update(tea.KeyPressMsg{Code: rune(tt.keys[0]), Text: tt.keys})
		}
		if d := <-reply; d.Outcome != tt.want {
			t.Errorf("%s %q: got %s, want %s", det.Type, tt.keys, d.Outcome, tt.want)
		}
	}
}

func TestCtrlCClearsThenQuits(t *testing.T) {
	m, _ := newTestModel(t)
	m.input.SetValue("draft")
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	if _, cmd := m.Update(ctrlC); m.input.Value() != "" || isQuit(cmd) {
		t.Fatal("first Ctrl-C must clear the input only")
	}
	if _, cmd := m.Update(ctrlC); isQuit(cmd) || !m.quitArmed {
		t.Fatal("Ctrl-C on an empty input must arm quitting")
	}
	if _, cmd := m.Update(ctrlC); !isQuit(cmd) {
		t.Fatal("the second Ctrl-C must quit")
	}
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if isQuit(c) {
				return true
			}
		}
		return false
	}
	_, ok := msg.(tea.QuitMsg)
	return ok
}

func TestHistory(t *testing.T) {
	dir := t.TempDir()
	h := loadHistory(dir)
	h.add("one")
	h.add("two")
	h = loadHistory(dir)
	if v, _ := h.prev("draft"); v != "two" {
		t.Errorf("prev = %q", v)
	}
	if v, _ := h.prev("two"); v != "one" {
		t.Errorf("prev = %q", v)
	}
	h.next("one")
	if v, _ := h.next("two"); v != "draft" {
		t.Errorf("back to the draft: %q", v)
	}
}

func TestStreamCut(t *testing.T) {
	tests := []struct {
		name, in, done, tail string
	}{
		{"no blank line", "one\ntwo", "", "one\ntwo"},
		{"paragraph", "one\n\ntwo", "one\n\n", "two"},
		{"blank line in a fence", "```\na\n\nb\n", "", "```\na\n\nb\n"},
		{"after a fence", "```\na\n\nb\n```\n\nc", "```\na\n\nb\n```\n\n", "c"},
	}
	for _, tt := range tests {
		var s stream
		if done := s.Append(tt.in); done != tt.done || s.Tail() != tt.tail {
			t.Errorf("%s: done %q tail %q", tt.name, done, s.Tail())
		}
	}
	// A long fence is cut, closed, and opened again in the tail.
	var s stream
	long := "```go\n" + strings.Repeat("x\n", maxTailLines+5)
	done := s.Append(long)
	if !strings.HasSuffix(done, "```\n") || !strings.HasPrefix(s.Tail(), "```go\n") {
		t.Errorf("long fence: done ends %q, tail starts %q", done[max(len(done)-10, 0):], s.Tail()[:min(10, len(s.Tail()))])
	}
}

func FuzzStream(f *testing.F) {
	f.Add("# a\n\n```go\nx\n\ny\n```\n\n| a | b |\n")
	f.Fuzz(func(t *testing.T, in string) {
		var s stream
		var out strings.Builder
		for i := 0; i < len(in); i += 5 {
			out.WriteString(s.Append(in[i:min(i+5, len(in))]))
			if n := strings.Count(s.Tail(), "\n"); n > maxTailLines+2 {
				t.Fatalf("tail holds %d lines", n)
			}
		}
		out.WriteString(s.Flush())
		if !strings.Contains(in, "```") && !strings.Contains(in, "~~~") && out.String() != in {
			t.Fatalf("text lost: %q -> %q", in, out.String())
		}
	})
}

func TestFileCompletionHonoursIgnoreFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"src/main.go", "src/util.go", "build/out.bin", ".gitignore"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("build/\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	fi := newFileIndex(dir)
	c := fi.complete("src/")
	var got []string
	for _, it := range c.items {
		got = append(got, it.value)
	}
	if strings.Join(got, ",") != "src/main.go,src/util.go" {
		t.Errorf("src/ completes to %v", got)
	}
	if c := fi.complete("bui"); len(c.items) != 0 {
		t.Errorf("ignored build/ offered: %+v", c.items)
	}
}

// Ctrl-C arms quitting for a while only: a Ctrl-C long after the one
// that cancelled a turn clears, it does not end the session.
func TestCtrlCQuitWindow(t *testing.T) {
	m, _ := newTestModel(t)
	disarm := make(chan tea.Msg, 1)
	m.send = func(msg tea.Msg) { disarm <- msg }
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	m.running = true
	if _, cmd := m.Update(ctrlC); isQuit(cmd) || !m.quitArmed {
		t.Fatal("Ctrl-C during a turn must cancel it and arm quitting")
	}
	select {
	case msg := <-disarm:
		m.Update(msg)
	case <-time.After(30 * time.Second):
		t.Fatal("quitting stayed armed")
	}
	if m.quitArmed || strings.Contains(m.render(), "again to exit") {
		t.Fatal("still armed after the window")
	}
	if _, cmd := m.Update(ctrlC); isQuit(cmd) {
		t.Fatal("a Ctrl-C after the window quit")
	}
	// A stale disarm does not end a newer window.
	m.Update(quitDisarmMsg{gen: m.quitGen - 1})
	if _, cmd := m.Update(ctrlC); !isQuit(cmd) {
		t.Fatal("the second Ctrl-C within the window must quit")
	}
}

// The answer that follows a finished tool call is set off from its
// block by a blank row, as the prompt's answer is from the prompt.
func TestAnswerAfterToolCallSpaced(t *testing.T) {
	m, log := newTestModel(t)
	m.running = true
	done := &agent.ToolCall{ID: "c1", Name: "read_file", Description: "README.md", Status: agent.StatusSuccess}
	m.update(eventMsg{ev: &agent.Event{Type: agent.EventToolCall, Call: done}})
	m.update(content("The README describes a demo.\n\n"))
	got := ansi.Strip(strings.Join(*log, "\n"))
	if !strings.Contains(got, "README.md\n\n  The README describes a demo.") {
		t.Errorf("printed:\n%s", got)
	}
}

// What the user sends is set off from the output before it, notices
// included (they end without a blank row).
func TestSentSetOff(t *testing.T) {
	for _, sent := range []string{"/help", "!true", "a prompt"} {
		m, log := newTestModel(t)
		m.printNotice(noticeInfo, "No MCP servers configured.")
		m.submit(sent, false)
		got := ansi.Strip(strings.Join(*log, "\n"))
		if !strings.Contains(got, "configured.\n\n") {
			t.Errorf("%s:\n%s", sent, got)
		}
		m.cancelShell()
	}
}

// An edit dialog fits the terminal's height, its title (the file) kept
// on screen however long the diff.
func TestEditDialogFitsHeight(t *testing.T) {
	var diff strings.Builder
	diff.WriteString("--- a.txt\n+++ a.txt\n@@ -1,40 +1,40 @@\n")
	for i := range 40 {
		fmt.Fprintf(&diff, "-old %d\n+new %d\n", i, i)
	}
	for _, height := range []int{16, 24, 60} {
		m, _ := newTestModel(t)
		m.height = height
		call := &agent.ToolCall{ID: "e1", Name: "replace", Description: "a.txt: old => new", Status: agent.StatusAwaitingApproval,
			Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmEdit, FileName: "a.txt", FileDiff: diff.String()}}}
		m.update(confirmMsg{call: call, reply: make(chan tool.Decision, 1)})
		view := ansi.Strip(m.render())
		if rows := strings.Count(view, "\n") + 1; rows > height || !strings.Contains(view, "a.txt: old => new") || !strings.Contains(view, "more lines") {
			t.Errorf("height %d: %d rows:\n%s", height, rows, view)
		}
	}
}
