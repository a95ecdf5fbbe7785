package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// footer is the last line of a screen: the approval mode lives there.
func footer(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

// TestTUIApprovalModes: Shift+Tab cycles default → auto-accept edits →
// plan → default as Gemini CLI 0.61 does, never reaching YOLO; Ctrl+Y
// turns YOLO on with a warning, and off again.
func TestTUIApprovalModes(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	for _, want := range []string{"auto-accept edits", "plan (shift+tab)", "default (shift+tab)"} {
		tm.Keys("BTab")
		s := tm.WaitUntil(want, func(s string) bool { return strings.Contains(footer(s), want) })
		if strings.Contains(s, "YOLO") {
			t.Fatalf("Shift+Tab reached YOLO:\n%s", s)
		}
	}
	tm.Keys("C-y")
	s := tm.WaitUntil("YOLO in the footer", func(s string) bool { return strings.Contains(footer(s), "YOLO (ctrl+y)") })
	if !strings.Contains(s, "YOLO mode is on") {
		t.Errorf("no warning when YOLO was turned on:\n%s", s)
	}
	tm.Golden("yolo_on", s)
	tm.Keys("C-y")
	tm.WaitUntil("default again", func(s string) bool { return strings.Contains(footer(s), "default (shift+tab)") })
}

// TestTUITabTab: two Tabs in quick succession hide the footer (Gemini
// CLI 0.61's minimal screen) and two more bring it back.
func TestTUITabTab(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Keys("Tab", "Tab")
	tm.WaitUntil("the footer hidden", func(s string) bool {
		return !strings.Contains(s, "context left") && strings.Contains(footer(s), "───")
	})
	tm.Keys("Tab", "Tab")
	tm.WaitUntil("the footer back", func(s string) bool { return strings.Contains(footer(s), "context left") })
}
