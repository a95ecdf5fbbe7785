package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/policy"
)

// The footer fits any width, and the approval mode is the last thing it
// gives up: at 40 columns YOLO was cut off with the directory gone.
func TestFooterNarrow(t *testing.T) {
	tests := []struct {
		width int
		want  string
	}{
		{100, "~/project (main)  auto (100% context left) · YOLO (ctrl+y)"},
		{57, "…project (main)  auto (100% context left) · YOLO (ctrl+y)"},
		{45, "~/project (main)  auto (100%) · YOLO"},
		{30, "~/project (main)  YOLO"},
		{20, "…roject (main)  YOLO"},
		{12, "…main)  YOLO"},
		{8, "YOLO"},
	}
	for _, tt := range tests {
		m, _ := newTestModel(t)
		a := withSession(t, m)
		a.Policy = policy.New(policy.Options{Mode: policy.ModeYolo, Interactive: true})
		m.status = ""
		m.width = tt.width
		got := ansi.Strip(m.footer())
		if got != tt.want {
			t.Errorf("width %d: %q, want %q", tt.width, got, tt.want)
		}
		if w := ansi.StringWidth(got); w > tt.width || !strings.Contains(got, "YOLO") {
			t.Errorf("width %d: %q is %d wide", tt.width, got, w)
		}
	}
}

// The footer names the sandbox the commands run in, and gives it up
// before the approval mode.
func TestFooterSandbox(t *testing.T) {
	tests := []struct {
		width int
		want  string
	}{
		{120, "~/project (main)  auto (100% context left) · YOLO (ctrl+y) · landlock (permissive-open)"},
		{65, "~/project (main)  auto (100%) · YOLO · landlock (permissive-open)"},
		{30, "~/project (main)  YOLO"},
	}
	for _, tt := range tests {
		m, _ := newTestModel(t)
		m.cfg.Sandbox = "landlock (permissive-open)"
		a := withSession(t, m)
		a.Policy = policy.New(policy.Options{Mode: policy.ModeYolo, Interactive: true})
		m.status = ""
		m.width = tt.width
		if got := ansi.Strip(m.footer()); got != tt.want {
			t.Errorf("width %d: %q, want %q", tt.width, got, tt.want)
		}
	}
}
