package ide_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
	"github.com/castor-dev/castor/tool"
)

// TestCompanionGoneWithoutStream: a companion without the optional event
// stream (MCP allows it: GET answers 405) that dies is only noticed at the
// next request. The edit then goes to the terminal with a plain warning,
// not the MCP client's internals, and the client knows the connection is
// lost (so /ide status and the footer say so, and it looks for the
// companion again) instead of failing every later edit the same way.
func TestCompanionGoneWithoutStream(t *testing.T) {
	e := newEnv(t)
	comp := companion.New(companion.Options{Workspaces: []string{e.ws}, PID: testPID, TempDir: e.tmp, Editor: newFakeEditor()})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	h := comp.Handler(port)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "no stream", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	os.MkdirAll(ide.DiscoveryDir(e.tmp), 0o700)
	file := filepath.Join(ide.DiscoveryDir(e.tmp), ide.DiscoveryFileName(testPID, port))
	os.WriteFile(file, []byte(fmt.Sprintf(`{"port":%d,"workspacePath":%q,"authToken":%q}`, port, e.ws, comp.Token())), 0o600)

	warns := make(chan string, 16)
	o := e.options()
	o.Warn = func(s string) { warns <- s }
	c, err := ide.Connect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.DiffingEnabled() {
		t.Fatal("no diffing")
	}

	srv.Close() // the editor is killed
	os.Remove(file)

	answered := false
	confirm := c.Confirm(func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		answered = true
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	})
	call := &agent.ToolCall{Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{
		Type: tool.ConfirmEdit, FilePath: filepath.Join(e.ws, "a.txt"), NewContent: "x\n"}}}
	d, err := confirm(context.Background(), call)
	if err != nil || d.Outcome != tool.ProceedOnce || !answered {
		t.Fatalf("the terminal did not decide: %+v, %v", d, err)
	}
	var all []string
	for len(warns) > 0 {
		all = append(all, <-warns)
	}
	for _, w := range all {
		for _, jargon := range []string{"tools/call", "rejected by transport", "dial tcp"} {
			if strings.Contains(w, jargon) {
				t.Errorf("warning %q shows transport internals (%s)", w, jargon)
			}
		}
	}
	waitFor(t, c, "the lost connection", func() bool { return c.Status().State == ide.Disconnected })
}
