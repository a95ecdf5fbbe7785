package cli

import (
	"slices"

	"github.com/castor-dev/castor/tool"
)

// offered is opts as a permission request shows them: without the
// "always allow" answers when security.disableAlwaysAllow is on, as
// Gemini CLI's dialogs then offer none (the engine would take them as
// "once" anyway).
func (r *streamRenderer) offered(opts []permissionOption) []permissionOption {
	if !r.onceOnly {
		return opts
	}
	return slices.DeleteFunc(slices.Clone(opts), func(o permissionOption) bool {
		switch tool.Outcome(o.ID) {
		case tool.ProceedAlways, tool.ProceedAlwaysSave, tool.ProceedAlwaysTool, tool.ProceedAlwaysServer:
			return true
		}
		return false
	})
}
