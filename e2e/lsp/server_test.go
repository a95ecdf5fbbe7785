package lsp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/lsp/lsptest"
)

// testServer is the settings entry of lsptest's server (this binary)
// for .txt files; mark is the file whose absence lets CRASH crash it.
func testServer(t *testing.T, mark string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "extensions": []any{".txt"}, "env": map[string]any{lsptest.Env: mark}}
}

// TestCrashedServerIsReportedAndRestartedOnce: a server that dies
// mid-session is reported on stderr and restarted once; the edit after
// it gets the new server's diagnostics.
func TestCrashedServerIsReportedAndRestartedOnce(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	mark := filepath.Join(t.TempDir(), "crashed")
	e2etest.WriteSettings(t, e, settings(map[string]any{"words": testServer(t, mark)}))
	notes := filepath.Join(e.WS, "notes.txt")
	r := run(t, e,
		fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "ERROR: first problem\n"}),
		fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "CRASH\n"}),
		fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "CRASH\nERROR: second problem\n"}),
	)
	if got := output(t, e, 1); !strings.Contains(got, "notes.txt:1:1: error: first problem (lsptest)") {
		t.Errorf("first edit: %s", got)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the server never crashed: %v", err)
	}
	if n := strings.Count(r.Stderr, "exited unexpectedly"); n != 1 || !strings.Contains(r.Stderr, "lsptest: crashing on purpose; restarted it") {
		t.Errorf("stderr reports the crash %d times:\n%s", n, r.Stderr)
	}
	if got := output(t, e, 3); !strings.Contains(got, "notes.txt:2:1: error: second problem (lsptest)") {
		t.Errorf("edit after the restart: %s", got)
	}
}

// TestServerFailingToStartIsReportedOnce: the session goes on without
// diagnostics, and the user is told once, with the command and stderr.
func TestServerFailingToStartIsReportedOnce(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := testServer(t, "")
	srv["env"].(map[string]any)[lsptest.FailEnv] = "1"
	e2etest.WriteSettings(t, e, settings(map[string]any{"words": srv}))
	notes := filepath.Join(e.WS, "notes.txt")
	r := run(t, e,
		fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "ERROR: one\n"}),
		fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "ERROR: two\n"}),
	)
	if n := strings.Count(r.Stderr, "failed to start"); n != 1 || !strings.Contains(r.Stderr, "refusing to start, as asked") {
		t.Errorf("stderr reports the failure %d times:\n%s", n, r.Stderr)
	}
	for i := 1; i <= 2; i++ {
		if got := output(t, e, i); !strings.HasPrefix(got, "Successfully") || strings.Contains(got, "language server") {
			t.Errorf("edit %d: %s", i, got)
		}
	}
}

// TestNoServerNoExtraBytes: with no language server for the workspace
// (none configured, none on PATH), the request is byte for byte the one
// of lsp.enabled false, which runs no LSP code at all; a configured
// server adds the lsp_ tools.
func TestNoServerNoExtraBytes(t *testing.T) {
	t.Parallel()
	body := func(settingsJSON string, path string) ([]byte, *fakegemini.Request) {
		e := e2etest.New(t, fakegemini.Text("Hi."))
		e.WriteUserSettings(settingsJSON)
		e.Write("go.mod", goMod)
		env := e.Environ()
		for i, kv := range env {
			if strings.HasPrefix(kv, "PATH=") {
				env[i] = "PATH=" + path
			}
		}
		r := e2etest.RunCastor(t, e.WS, env, "-p", "Say hi.")
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		req := e.Srv.LastRequest()
		// The workspace's and home's paths differ between runs; they
		// are the one difference allowed.
		b := bytes.ReplaceAll(req.Body, []byte(e.WS), []byte("<WS>"))
		return bytes.ReplaceAll(b, []byte(e.Home), []byte("<HOME>")), req
	}
	empty := t.TempDir() // a PATH with no language server
	off, _ := body(`{"lsp":{"enabled":false}}`, empty)
	none, req := body(`{}`, empty)
	if !bytes.Equal(off, none) {
		i := 0
		for i < min(len(off), len(none)) && off[i] == none[i] {
			i++
		}
		t.Errorf("the request without a server differs from lsp.enabled false at byte %d (%d vs %d bytes): %q vs %q", i, len(none), len(off), none[i:min(i+80, len(none))], off[i:min(i+80, len(off))])
	}
	if hasLSPTool(req) {
		t.Errorf("lsp_ tools declared without a server: %v", declared(req))
	}
	exe, _ := os.Executable()
	_, with := body(`{"lsp":{"servers":{"words":{"command":"`+exe+`","extensions":[".txt"]}}}}`, empty)
	if !hasLSPTool(with) {
		t.Errorf("no lsp_ tool with a configured server: %v", declared(with))
	}
}
