package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestPolicyDenyIgnoresLeadingWhitespace: a shell line that starts with
// white space runs the same command, so a deny rule for rm refuses it
// under -y; once, " rm victim" deleted the file.
func TestPolicyDenyIgnoresLeadingWhitespace(t *testing.T) {
	t.Parallel()
	forms := []string{" rm victim.txt", "\trm victim.txt", "\n\nrm victim.txt", " \t rm -f victim.txt \n"}
	var replies []fakegemini.Reply
	for _, f := range forms {
		replies = append(replies, fakegemini.Call("run_shell_command", map[string]any{"command": f}))
	}
	e := e2etest.New(t, append(replies, fakegemini.Text("done"))...)
	e2etest.WriteFiles(t, e.Home, map[string]string{".gemini/policies/deny.toml": denyRmPolicy})
	e.Write("victim.txt", "keep me")
	r := e.Run("-y", "-p", "clean up")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "victim.txt")); err != nil {
		t.Errorf("victim.txt was deleted: %v", err)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != len(forms)+1 {
		t.Fatalf("%d requests, want %d", len(reqs), len(forms)+1)
	}
	for i, f := range forms {
		_, resp := e2etest.FunctionResponse(t, reqs[i+1].LastContent(), 0)
		if got, _ := resp["error"].(string); got != "Tool execution denied by policy. Deleting files is not allowed." {
			t.Errorf("%q: error %q (response %s)", f, got, e2etest.MustJSON(resp))
		}
	}
}
