package a2a_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestA2AFilePartBytes: a file part's inline bytes reach the model however
// the client wrote its base64 (padded or not, standard or URL alphabet),
// and bytes that are not base64 are refused with invalid params instead
// of the turn going on without the file.
func TestA2AFilePartBytes(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"))
	defer srv.stop(syscall.SIGTERM)
	file := func(b64 string) map[string]any {
		return map[string]any{"kind": "file", "file": map[string]any{"name": "a.bin", "mimeType": "application/octet-stream", "bytes": b64}}
	}
	text := map[string]any{"kind": "text", "text": "read the file"}
	// "hi?>" is 0x68 0x69 0x3f 0x3e: its base64 differs between the
	// alphabets ("aGk/Pg==" and "aGk_Pg==").
	for _, b64 := range []string{"aGk/Pg==", "aGk/Pg", "aGk_Pg==", "aGk_Pg"} {
		e.Srv.Enqueue(fakegemini.Text("read."))
		evs := srv.call("message/send", a2aMessage("", file(b64), text))
		if a2aDig(evs[0], "status", "state") != "input-required" {
			t.Fatalf("%s: %v", b64, evs[0])
		}
		if body := string(e.Srv.LastRequest().Body); !strings.Contains(body, `"data":"aGk/Pg=="`) {
			t.Errorf("%s: the model did not get the file's bytes (%d bytes asked)", b64, len(body))
		}
	}
	n := len(e.Srv.Requests())
	got := srv.rpcError("message/send", a2aMessage("", file("!!not base64"), text))
	if got["code"] != float64(-32602) || !strings.Contains(got["message"].(string), "message.parts[0].file.bytes is not base64") {
		t.Errorf("bad base64: %v", got)
	}
	if len(e.Srv.Requests()) != n {
		t.Error("a message with bad file bytes reached the model")
	}
}

// TestA2AServerBadWorkspace: a --workspace the server cannot use stops it
// with exit 42 and the reason in the user's terms, not as a JSON-RPC
// error ("jsonrpc error -32602: ...") no client asked for.
func TestA2AServerBadWorkspace(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--workspace", filepath.Join(e.WS, "missing")}, "Error: Workspace path " + filepath.Join(e.WS, "missing") + " does not exist"},
		{[]string{"--workspace", e.WS, "--allowed-root", e.Home}, "Error: Workspace path " + e.WS + " is outside the allowed root directory"},
	} {
		r := e.Run(append([]string{"a2a-server", "--port", "0", "--memory-store"}, tt.args...)...)
		if r.Code != 42 || strings.TrimSpace(r.Stderr) != tt.want {
			t.Errorf("a2a-server %v: exit %d, stderr %q; want 42, %q", tt.args, r.Code, r.Stderr, tt.want)
		}
	}
}

// TestA2AServerStopsDespiteHangingWebhook: SIGTERM stops the server
// within its shutdown deadline although a webhook never answers (it
// waited the whole 30 seconds, "shutdown: context deadline exceeded").
func TestA2AServerStopsDespiteHangingWebhook(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	called := make(chan struct{}, 16)
	release := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		called <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hook.Close()
	defer close(release)
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"), "--allow-private-push")
	e.Srv.Enqueue(fakegemini.Text("done"))
	p := a2aMessage("", map[string]any{"kind": "text", "text": "hi"})
	p["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": hook.URL + "/hook"}}
	srv.call("message/send", p)
	<-called
	srv.stop(syscall.SIGTERM)
	if log := srv.Stderr.String(); strings.Contains(log, "deadline exceeded") {
		t.Errorf("the server waited out its shutdown deadline:\n%s", log)
	}
}
