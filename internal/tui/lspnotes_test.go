package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// TestEditNotesUnderTheDiff: the language server's new problems after an
// edit are shown under its diff.
func TestEditNotesUnderTheDiff(t *testing.T) {
	m, _ := newTestModel(t)
	old := "package main\n"
	c := &agent.ToolCall{ID: "c1", Name: "replace", Status: agent.StatusSuccess, Result: &tool.Result{
		Diff:  tool.NewFileDiff("/home/u/project/main.go", &old, "package main\nvar n int = \"x\"\n", "package main\nvar n int = \"x\"\n"),
		Notes: "The language server (gopls) reports new problems in main.go after this edit:\nmain.go:2:13: error: cannot use \"x\" as int value",
	}}
	got := ansi.Strip(m.renderCall(c, false))
	diffAt := strings.Index(got, `+ var n int = "x"`)
	noteAt := strings.Index(got, `main.go:2:13: error: cannot use "x" as int value`)
	if diffAt < 0 || noteAt < diffAt {
		t.Errorf("the note is not under the diff:\n%s", got)
	}
}
