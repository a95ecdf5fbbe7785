package tui

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/checkpoint"
)

// The shared commands' data answers (/restore, /extensions) are printed
// as text, never as JSON.
func TestCommandDataPrinted(t *testing.T) {
	tests := []struct {
		name string
		data any
		want string
	}{
		{"no checkpoints", []checkpoint.Info{}, "No restorable tool calls found."},
		{"checkpoints", []checkpoint.Info{
			{Checkpoint: "2026-01-02T03-04-05_000Z-notes.txt-replace", Tool: "replace", FilePath: "/w/notes.txt"},
			{Checkpoint: "2026-01-02T03-05-00_000Z-a.go-write_file"},
		}, "Available tool calls to restore:\n\n  2026-01-02T03-04-05_000Z-notes.txt-replace  replace /w/notes.txt\n  2026-01-02T03-05-00_000Z-a.go-write_file\n\nRestore one with /restore <name>."},
		{"extensions", []command.ExtensionInfo{{Name: "lint", Version: "1.2.0", IsActive: true}, {Name: "old", IsActive: false}},
			"Installed extensions:\n  lint (v1.2.0)\n  old [disabled]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, log := newTestModel(t)
			m.onCommandDone(commandDoneMsg{res: &command.Result{Kind: command.ResultData, Data: tt.data}})
			got := strings.Join(*log, "\n")
			if !strings.HasPrefix(got, tt.want+"\n") {
				t.Errorf("printed\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
