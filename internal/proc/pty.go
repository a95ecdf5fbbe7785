package proc

import "errors"

// A command run for a person at a terminal (the interactive terminal's
// "!" commands) gets a pseudo-terminal of its own, so that what asks
// questions (read, git add -p, npm init, REPLs, password prompts) can be
// answered by typing: StartPTY. Its output, echoed input included, is
// read from the terminal's master side, and is what the model is shown.

// ErrNoPTY says this system offers no pseudo-terminal to a command
// (Windows: Castor has no ConPTY support yet); the caller runs the
// command with pipes instead, as it would without a person at the
// terminal.
var ErrNoPTY = errors.New("no pseudo-terminal on this system: the command runs without one (its input is closed)")

// Size is a terminal's size in cells.
type Size struct {
	Cols, Rows uint16
}
