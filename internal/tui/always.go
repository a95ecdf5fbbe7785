package tui

import (
	"slices"

	"github.com/castor-dev/castor/tool"
)

// onceOnly removes the "always allow" choices (for the session, a tool, a
// server, or saved) from the dialog, as Gemini CLI's dialog does under
// security.disableAlwaysAllow: allow once, modify, and no remain.
func (d *dialog) onceOnly() {
	d.options = slices.DeleteFunc(d.options, func(o option) bool {
		switch o.outcome {
		case tool.ProceedAlways, tool.ProceedAlwaysSave, tool.ProceedAlwaysTool, tool.ProceedAlwaysServer:
			return true
		}
		return false
	})
}
