// Package lsp_test drives the built castor with language servers: gopls,
// typescript-language-server and the test server of internal/lsp/lsptest
// (this test binary, started again as one).
package lsp_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/lsp/lsptest"
	"github.com/castor-dev/castor/internal/npmtest"
)

func TestMain(m *testing.M) {
	lsptest.Main()
	e2etest.Main(m)
}

// gopls is the gopls on PATH (.ci/run installs v0.23.0).
func gopls(t *testing.T) string {
	t.Helper()
	return npmtest.LookPath(t, "gopls")
}

// tsls is typescript-language-server from internal/lsp/testdata/npm.
func tsls(t *testing.T) string {
	t.Helper()
	npmtest.LookPath(t, "node")
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "internal", "lsp", "testdata", "npm", "node_modules", ".bin", "typescript-language-server")
	if _, err := os.Stat(p); err != nil {
		npmtest.Missing(t, "typescript-language-server is missing: run npm ci --ignore-scripts in internal/lsp/testdata/npm")
	}
	return p
}

// settings are the user settings of a test: the servers given, and a wait
// long enough for a loaded machine (the servers always answer; the wait
// only bounds a broken one).
func settings(servers map[string]any) map[string]any {
	return map[string]any{"lsp": map[string]any{"servers": servers, "diagnosticsTimeout": 120000}}
}

// responses are the function responses of request i, by call order.
func responses(t *testing.T, e *e2etest.Env, i int) []map[string]any {
	t.Helper()
	reqs := e.Srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("only %d requests", len(reqs))
	}
	var out []map[string]any
	last := reqs[i].Contents[len(reqs[i].Contents)-1]
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse.Response)
		}
	}
	return out
}

// output is the one function response of request i: its output, or its
// error as "error: …".
func output(t *testing.T, e *e2etest.Env, i int) string {
	t.Helper()
	rs := responses(t, e, i)
	if len(rs) != 1 {
		t.Fatalf("request %d answers %d calls", i, len(rs))
	}
	if msg, ok := rs[0]["error"]; ok {
		return "error: " + msg.(string)
	}
	s, _ := rs[0]["output"].(string)
	return s
}

// run scripts calls, then a closing text, runs castor in YOLO mode and
// returns the run.
func run(t *testing.T, e *e2etest.Env, calls ...fakegemini.Reply) e2etest.Result {
	t.Helper()
	e.Srv.Enqueue(calls...)
	e.Srv.Enqueue(fakegemini.Text("Done."))
	r := e.Run("-y", "-p", "Work on the code.")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	return r
}

func declared(r *fakegemini.Request) []string {
	var names []string
	for _, tl := range r.Tools {
		for _, d := range tl.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

func hasLSPTool(r *fakegemini.Request) bool {
	for _, n := range declared(r) {
		if strings.HasPrefix(n, "lsp_") {
			return true
		}
	}
	return false
}

// check is what the function response of one call must hold.
type check struct{ name, want string }

// expectOutputs checks the responses of requests 1, 2… in order.
func expectOutputs(t *testing.T, e *e2etest.Env, checks []check) {
	t.Helper()
	for i, c := range checks {
		if got := output(t, e, i+1); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q lacks %q", c.name, got, c.want)
		}
	}
}

// expectFiles checks that each workspace file holds its text.
func expectFiles(t *testing.T, e *e2etest.Env, want map[string]string) {
	t.Helper()
	for name, text := range want {
		if b, _ := os.ReadFile(filepath.Join(e.WS, name)); !strings.Contains(string(b), text) {
			t.Errorf("%s lacks %q:\n%s", name, text, b)
		}
	}
}
