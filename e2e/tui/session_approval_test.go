package tui_test

import (
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUISessionApprovalNamesSubcommand: the dialog for `git add f` asks
// about `git add` and offers to allow `git add` for the session, which is
// what such an answer covers, not every git command ("git?").
func TestTUISessionApprovalNamesSubcommand(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "git add notes.txt"}))
	tm := e.StartTUI()
	tm.Submit("Stage the notes")
	tm.WaitFor("Allow execution of: git add?")
	tm.WaitFor("Allow git add for this session")
	tm.Keys("Escape")
	tm.WaitFor("What should the model do instead?")
	tm.Keys("Enter")
	tm.WaitFor("Rejected.")
}
