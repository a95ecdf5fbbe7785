package headless_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeopenai"
)

// TestProviderWindowCompresses: a provider model's contextWindow is the
// window history is compressed against: in a resumed session, a prompt
// past half of it has the earlier exchange summarised before the next
// call, where Gemini's million tokens would not.
func TestProviderWindowCompresses(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("first answer"),
		fakeopenai.Calls(fakeopenai.Call{Name: "list_directory", Args: map[string]any{"dir_path": e.WS}}),
		fakeopenai.Text("<state_snapshot>listed the workspace</state_snapshot>"),
		fakeopenai.Text("all listed"))
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1", "models": {"small": {"contextWindow": 4000}}}}}`)
	if r := e.Run("-m", "local/small", "-p", "first"); r.Code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.Code, r.Stderr)
	}
	r := e.Run("-m", "local/small", "--resume", "latest", "-p", "list the workspace")
	if r.Code != 0 || !strings.Contains(r.Stdout, "all listed") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[2].Body), "state_snapshot") || !strings.Contains(string(reqs[3].Body), "listed the workspace") {
		t.Errorf("%d calls; want the first, the tool call, the summary (asked for a state_snapshot) and the answer after it", len(reqs))
	}
}
