package lsp_test

import (
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUIShowsProblemsAndServers: in the terminal, an edit's new problems
// show under its diff, and /lsp lists the server with its counts.
func TestTUIShowsProblemsAndServers(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteSettings(t, e, settings(map[string]any{"words": testServer(t, "")}))
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": filepath.Join(e.WS, "notes.txt"), "content": "fine\nERROR: broken here\n"}),
		fakegemini.Text("Written."),
	)
	tm := e.StartTUI("-y")
	tm.Submit("Write the notes.")
	tm.WaitFor("notes.txt:2:1: error: broken here (lsptest)")
	tm.WaitFor("Written.")
	tm.Submit("/lsp")
	tm.WaitFor("1 errors, 0 warnings")
}
