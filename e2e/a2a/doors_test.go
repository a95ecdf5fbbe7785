package a2a_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// doorRequest is one raw request to the A2A server: what a web page (or a
// client) sends, Host and Origin included.
type doorRequest struct {
	method, path, host, origin, contentType, body string
}

// send sends req and returns the answer's status and body.
func (s *a2aServer) send(req doorRequest) (int, string) {
	s.t.Helper()
	r, err := http.NewRequest(req.method, strings.TrimSuffix(s.url, "/")+req.path, strings.NewReader(req.body))
	if err != nil {
		s.t.Fatal(err)
	}
	if req.host != "" {
		r.Host = req.host
	}
	if req.origin != "" {
		r.Header.Set("Origin", req.origin)
	}
	if req.contentType != "" {
		r.Header.Set("Content-Type", req.contentType)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// pwnMessage is the JSON-RPC message/send a hostile page posts: a new
// task whose client asks for autoExecute, in the workspace ws.
func pwnMessage(ws string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": map[string]any{
		"message": map[string]any{"kind": "message", "role": "user", "messageId": "m1",
			"parts":    []any{map[string]any{"kind": "text", "text": "touch PWNED_WEB"}},
			"metadata": map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": ws, "autoExecute": true}}},
	}})
	return string(b)
}

// TestA2ADoorsShut: what a web page can send to a default a2a-server (no
// token, loopback) is refused before it reaches a handler: a
// cross-origin "simple" text/plain POST, a DNS-rebinding Host, a foreign
// Origin on a JSON request, a non-JSON body. Real clients (no Origin,
// application/json, the server's own names) and the operator's names and
// origins pass.
func TestA2ADoorsShut(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"), "--allowed-host", "proxy.example", "--allowed-origin", "https://ui.example")
	defer srv.stop(syscall.SIGTERM)
	u, _ := url.Parse(srv.url)
	pwn := pwnMessage(e.WS)
	get := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nope"}}`
	for _, tt := range []struct {
		name string
		req  doorRequest
		// status is the answer's; want is in its body.
		status int
		want   string
	}{
		{"text/plain cross-origin POST", doorRequest{"POST", "/", "", "https://evil.example", "text/plain", pwn}, 403, `https://evil.example`},
		{"text/plain POST", doorRequest{"POST", "/", "", "", "text/plain", pwn}, 415, `text/plain`},
		{"form POST", doorRequest{"POST", "/", "", "", "application/x-www-form-urlencoded", pwn}, 415, `application/x-www-form-urlencoded`},
		{"body without Content-Type", doorRequest{"POST", "/", "", "", "", pwn}, 415, `Content-Type`},
		{"rebinding Host", doorRequest{"POST", "/", "evil.example:" + u.Port(), "", "application/json", pwn}, 421, `evil.example`},
		{"rebinding Host on the card", doorRequest{"GET", "/.well-known/agent-card.json", "evil.example", "", "", ""}, 421, `evil.example`},
		{"foreign Origin", doorRequest{"POST", "/", "", "http://localhost:3000", "application/json", pwn}, 403, `http://localhost:3000`},
		{"REST text/plain", doorRequest{"POST", "/tasks", "", "", "text/plain", `{}`}, 415, `text/plain`},
		{"REST foreign Origin", doorRequest{"GET", "/tasks", "", "https://evil.example", "", ""}, 403, `https://evil.example`},
		{"1.0 REST text/plain", doorRequest{"POST", "/a2a/message:send", "", "", "text/plain", `{}`}, 415, `CONTENT_TYPE_NOT_SUPPORTED`},
		{"preflight from a foreign Origin", doorRequest{"OPTIONS", "/", "", "https://evil.example", "", ""}, 403, `https://evil.example`},

		{"client", doorRequest{"POST", "/", "", "", "application/json", get}, 200, `Task not found`},
		{"charset", doorRequest{"POST", "/", "", "", "application/json; charset=utf-8", get}, 200, `Task not found`},
		{"a2a+json", doorRequest{"POST", "/", "", "", "application/a2a+json", get}, 200, `Task not found`},
		{"localhost", doorRequest{"POST", "/", "localhost:" + u.Port(), "", "application/json", get}, 200, `Task not found`},
		{"operator's host", doorRequest{"POST", "/", "proxy.example", "", "application/json", get}, 200, `Task not found`},
		{"same origin", doorRequest{"POST", "/", "", "http://" + u.Host, "application/json", get}, 200, `Task not found`},
		{"operator's origin", doorRequest{"POST", "/", "", "https://ui.example", "application/json", get}, 200, `Task not found`},
		{"card", doorRequest{"GET", "/.well-known/agent-card.json", "", "", "", ""}, 200, `"protocolVersion"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := srv.send(tt.req)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("status %d, body %s; want %d and %q", status, body, tt.status, tt.want)
			}
		})
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "PWNED_WEB")); err == nil {
		t.Error("PWNED_WEB was created")
	}
}

// TestA2AAutoExecuteBounded: a client's autoExecute cannot raise the
// server's approval mode past the operator's ceiling. By default the
// shell call waits for approval, the task's metadata says the request was
// capped and the server says so once on stderr; with --max-approval-mode
// yolo the same request runs the call.
func TestA2AAutoExecuteBounded(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		flags []string
		ran   bool
	}{
		{"default", nil, false},
		{"yolo ceiling", []string{"--max-approval-mode", "yolo"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch PWNED_WEB"}), fakegemini.Text("done"))
			srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"), tt.flags...)
			resp, err := http.Post(srv.url, "application/json", strings.NewReader(pwnMessage(e.WS)))
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Result map[string]any `json:"result"`
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || out.Result == nil {
				t.Fatalf("message/send: %v %v", out, err)
			}
			srv.stop(syscall.SIGTERM)
			_, err = os.Stat(filepath.Join(e.WS, "PWNED_WEB"))
			if ran := err == nil; ran != tt.ran {
				t.Fatalf("the shell call ran: %v, want %v (task %v)", ran, tt.ran, out.Result["status"])
			}
			meta, _ := json.Marshal(out.Result["metadata"])
			capped := bytes.Contains(meta, []byte("approvalModeCapped"))
			logged := strings.Count(srv.Stderr.String(), "autoExecute")
			if tt.ran {
				if capped || logged != 0 {
					t.Errorf("not capped, but metadata %s, stderr %s", meta, srv.Stderr)
				}
				return
			}
			if state := a2aDig(out.Result, "status", "state"); state != "input-required" {
				t.Errorf("state %v, want input-required", state)
			}
			if !capped || logged != 1 {
				t.Errorf("the cap is not reported: metadata %s, stderr %s", meta, srv.Stderr)
			}
		})
	}
}

// TestA2AWorkspaceModeBounded: a workspace whose settings ask for yolo
// (general.defaultApprovalMode) cannot take a task past the operator's
// ceiling: the shell call of a client that asks for nothing waits for
// approval.
func TestA2AWorkspaceModeBounded(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.WS, map[string]string{".gemini/settings.json": `{"general":{"defaultApprovalMode":"yolo"}}`})
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch PWNED_WEB"}), fakegemini.Text("done"))
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"))
	msg := strings.Replace(pwnMessage(e.WS), `"autoExecute":true,`, "", 1)
	if strings.Contains(msg, "autoExecute") {
		t.Fatalf("message still asks for autoExecute: %s", msg)
	}
	resp, err := http.Post(srv.url, "application/json", strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.stop(syscall.SIGTERM)
	if _, err := os.Stat(filepath.Join(e.WS, "PWNED_WEB")); err == nil {
		t.Fatalf("the workspace's yolo setting ran the shell call past the ceiling: %s", b)
	}
}
