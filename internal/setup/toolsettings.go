package setup

import (
	"math"
	"slices"
	"time"

	"github.com/castor-dev/castor/config"
)

// shellTimeout is tools.shell.inactivityTimeout as builtin.Env.ShellTimeout:
// Gemini CLI counts it in seconds (default 300) and sets no bound at all
// when it is 0 or less, which builtin.Env spells as a negative duration.
// Unset gives zero, the tool's own 5-minute default.
func shellTimeout(st *config.Settings) time.Duration {
	n, ok := st.GetNumber("tools.shell.inactivityTimeout")
	switch {
	case !ok:
		return 0
	case n <= 0:
		return -1
	case n >= math.MaxInt64/float64(time.Second):
		return -1 // past any run's length: no bound
	}
	return time.Duration(n * float64(time.Second))
}

// builtinExclude is tools.exclude plus write_todos when the top-level
// useWriteTodos is false (default true): Gemini CLI then never registers
// the tool, as if it were excluded.
func builtinExclude(st *config.Settings) []string {
	if on, ok := st.GetBool("useWriteTodos"); ok && !on {
		return append(slices.Clip(st.Tools.Exclude), "write_todos")
	}
	return st.Tools.Exclude
}
