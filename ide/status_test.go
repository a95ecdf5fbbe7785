package ide_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/golden"
)

// writeDiscovery writes a discovery file as a companion would.
func (e env) writeDiscovery(t *testing.T, port int, workspace, token string) string {
	t.Helper()
	dir := ide.DiscoveryDir(e.tmp)
	os.MkdirAll(dir, 0o755)
	data, _ := json.Marshal(map[string]any{"port": port, "workspacePath": workspace, "authToken": token})
	path := filepath.Join(dir, ide.DiscoveryFileName(testPID, port))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// fakeServer serves handler on a loopback port.
func fakeServer(t *testing.T, h http.HandlerFunc) int {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n, _ := strconv.Atoi(port)
	return n
}

// oldCompanion answers initialize with a protocol version from the future.
func oldCompanion(version string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"0.1"}}}`, req.ID, version)
	}
}

func TestDiagnose(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(t *testing.T, e env) (port int)
		wantProblem ide.Problem
		wantInError string
	}{
		{
			name:        "no_discovery_file",
			setup:       func(t *testing.T, e env) int { return 0 },
			wantProblem: ide.ProblemNoDiscoveryFile,
			wantInError: "no discovery file in",
		},
		{
			name: "other_workspace",
			setup: func(t *testing.T, e env) int {
				other := filepath.Join(filepath.Dir(e.ws), "elsewhere")
				e.writeDiscovery(t, 5555, other, "tok")
				return 5555
			},
			wantProblem: ide.ProblemWorkspace,
			wantInError: "directory mismatch",
		},
		{
			name: "no_folder_open",
			setup: func(t *testing.T, e env) int {
				e.writeDiscovery(t, 5555, "", "tok")
				return 5555
			},
			wantProblem: ide.ProblemWorkspace,
			wantInError: "has no folder open",
		},
		{
			name: "port_refuses",
			setup: func(t *testing.T, e env) int {
				p := closedPort(t)
				e.writeDiscovery(t, p, e.ws, "tok")
				return p
			},
			wantProblem: ide.ProblemRefused,
			wantInError: "connection refused",
		},
		{
			name: "token_rejected",
			setup: func(t *testing.T, e env) int {
				s := e.start(t, newFakeEditor())
				// A second file, newer in name order, pointing at the same
				// companion with a token that is not its own.
				os.Remove(s.DiscoveryFile())
				e.writeDiscovery(t, s.Port(), e.ws, "stale-token")
				return s.Port()
			},
			wantProblem: ide.ProblemUnauthorized,
			wantInError: "rejected the auth token from",
		},
		{
			name: "other_protocol_version",
			setup: func(t *testing.T, e env) int {
				p := fakeServer(t, oldCompanion("1999-01-01"))
				e.writeDiscovery(t, p, e.ws, "tok")
				return p
			},
			wantProblem: ide.ProblemProtocol,
			wantInError: "speaks MCP protocol version 1999-01-01",
		},
		{
			name: "not_mcp",
			setup: func(t *testing.T, e env) int {
				p := fakeServer(t, http.NotFound)
				e.writeDiscovery(t, p, e.ws, "tok")
				return p
			},
			wantProblem: ide.ProblemNotMCP,
			wantInError: "answered HTTP 404",
		},
		{
			name: "connected",
			setup: func(t *testing.T, e env) int {
				s := e.start(t, newFakeEditor())
				s.FileFocused(filepath.Join(e.ws, "main.go"))
				s.CursorMoved(filepath.Join(e.ws, "main.go"), 4, 2)
				s.SelectionChanged(filepath.Join(e.ws, "main.go"), "sel")
				s.FileOpened(filepath.Join(e.ws, "go.mod"))
				s.SetTrusted(true)
				return s.Port()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			port := tt.setup(t, e)
			r := ide.Diagnose(context.Background(), e.options())
			if r.Problem != tt.wantProblem {
				t.Fatalf("problem = %q (%s), want %q", r.Problem, r.Error, tt.wantProblem)
			}
			if !strings.Contains(r.Error, tt.wantInError) {
				t.Errorf("error %q lacks %q", r.Error, tt.wantInError)
			}
			if tt.wantProblem == "" && !r.Connected {
				t.Fatalf("not connected: %s", r.Error)
			}
			var b bytes.Buffer
			r.Write(&b)
			out := strings.NewReplacer(e.tmp, "$TMP", e.ws, "$WS", filepath.Dir(e.ws), "$ROOT", strconv.Itoa(port), "$PORT").Replace(b.String())
			golden.Check(t, filepath.Join("status", tt.name+".golden"), out)
		})
	}
}

func TestConnectErrorIsTyped(t *testing.T) {
	e := newEnv(t)
	_, err := ide.Connect(context.Background(), e.options())
	var ce *ide.ConnectError
	if !errors.As(err, &ce) || ce.Problem != ide.ProblemNoDiscoveryFile || ce.Discovery == nil {
		t.Fatalf("err = %#v", err)
	}
}
