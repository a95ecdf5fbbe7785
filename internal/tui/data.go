package tui

import (
	"strings"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/checkpoint"
)

// dataText writes the structured answers of the shared commands for
// people: the registry returns them as data, which the A2A face sends as
// JSON, and JSON is no way to show a list in a terminal. It reports false
// for data it does not know.
func dataText(data any) (string, bool) {
	switch d := data.(type) {
	case []checkpoint.Info:
		// /restore without a name, in Gemini CLI's words.
		if len(d) == 0 {
			return "No restorable tool calls found.", true
		}
		var b strings.Builder
		b.WriteString("Available tool calls to restore:\n")
		for _, c := range d {
			b.WriteString("\n  " + c.Checkpoint)
			if c.Tool != "" {
				b.WriteString("  " + c.Tool)
				if c.FilePath != "" {
					b.WriteString(" " + c.FilePath)
				}
			}
		}
		b.WriteString("\n\nRestore one with /restore <name>.")
		return b.String(), true
	case []command.ExtensionInfo:
		var b strings.Builder
		b.WriteString("Installed extensions:")
		for _, e := range d {
			b.WriteString("\n  " + e.Name)
			if e.Version != "" {
				b.WriteString(" (v" + e.Version + ")")
			}
			if !e.IsActive {
				b.WriteString(" [disabled]")
			}
		}
		return b.String(), true
	}
	return "", false
}
