package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/lsp/lsptest"
)

func TestMain(m *testing.M) {
	lsptest.Main()
	os.Exit(m.Run())
}

// reports collects what a manager tells the user.
type reports struct {
	mu   sync.Mutex
	msgs []string
	ch   chan struct{}
}

func newReports() *reports { return &reports{ch: make(chan struct{}, 16)} }

func (r *reports) add(s string) {
	r.mu.Lock()
	r.msgs = append(r.msgs, s)
	r.mu.Unlock()
	r.ch <- struct{}{}
}

func (r *reports) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// fakeManager is a manager whose one server, "fake", is this test binary
// serving .txt files (lsptest), with extra environment.
func fakeManager(t *testing.T, ws string, env ...string) (*Manager, *reports) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	envMap := map[string]string{lsptest.Env: filepath.Join(t.TempDir(), "crashed")}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	rep := newReports()
	m := New(Options{
		Servers:   []ServerConfig{{Name: "fake", Command: exe, Extensions: []string{".txt"}, Env: envMap, Configured: true}},
		Workspace: ws,
		Wait:      time.Minute, // the server always answers; a stuck one fails the test by its deadline
		Report:    rep.add,
	})
	if m == nil {
		t.Fatal("no manager for a configured server")
	}
	t.Cleanup(func() { m.Close() })
	return m, rep
}

func edit(t *testing.T, m *Manager, path, content string) string {
	t.Helper()
	ctx := context.Background()
	var old *string
	if b, err := os.ReadFile(path); err == nil {
		s := string(b)
		old = &s
	}
	m.BeforeEdit(ctx, path, old)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return m.AfterEdit(ctx, path, content)
}

func TestDiagnosticsAfterEditAreOnlyNewOnes(t *testing.T) {
	ws := t.TempDir()
	m, _ := fakeManager(t, ws)
	p := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(p, []byte("ERROR: old problem\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		content string
		want    []string
		absent  []string
	}{
		{"line\nERROR: old problem\nERROR: new problem\nWARN: careful\n", []string{"a.txt:3:1: error: new problem (lsptest)", "a.txt:4:1: warning: careful"}, []string{"old problem"}},
		{"ERROR: old problem\nERROR: new problem\nWARN: careful\n", nil, nil},
		{"fixed\n", nil, nil},
	}
	for i, s := range steps {
		note := edit(t, m, p, s.content)
		if s.want == nil && note != "" {
			t.Errorf("step %d: note %q, want none", i, note)
		}
		for _, w := range s.want {
			if !strings.Contains(note, w) {
				t.Errorf("step %d: note %q lacks %q", i, note, w)
			}
		}
		for _, a := range s.absent {
			if strings.Contains(note, a) {
				t.Errorf("step %d: note %q repeats %q", i, note, a)
			}
		}
	}
	st := m.Status()
	if len(st) != 1 || st[0].State != StateRunning || st[0].Pid == 0 {
		t.Errorf("status %+v", st)
	}
}

func TestCrashedServerIsReportedAndRestartedOnce(t *testing.T) {
	ws := t.TempDir()
	m, rep := fakeManager(t, ws)
	p := filepath.Join(ws, "a.txt")
	if note := edit(t, m, p, "ERROR: first\n"); !strings.Contains(note, "first") {
		t.Fatalf("note %q", note)
	}
	// CRASH makes the server exit (once: it leaves a marker).
	edit(t, m, p, "CRASH\n")
	<-rep.ch
	if msgs := rep.all(); len(msgs) != 1 || !strings.Contains(msgs[0], "exited unexpectedly") || !strings.Contains(msgs[0], "crashing on purpose") || !strings.Contains(msgs[0], "restarted it") {
		t.Fatalf("reports %q", msgs)
	}
	// The restarted server serves the next edit.
	if note := edit(t, m, p, "CRASH\nERROR: after restart\n"); !strings.Contains(note, "after restart") {
		t.Errorf("note after restart %q", note)
	}
	if st := m.Status(); len(st) != 1 || st[0].Restarts != 1 || st[0].State != StateRunning {
		t.Errorf("status %+v", st)
	}
}

func TestServerThatFailsToStartIsReportedOnce(t *testing.T) {
	ws := t.TempDir()
	m, rep := fakeManager(t, ws, lsptest.FailEnv+"=1")
	p := filepath.Join(ws, "a.txt")
	for range 2 {
		if note := edit(t, m, p, "ERROR: x\n"); note != "" {
			t.Errorf("note %q from a server that did not start", note)
		}
	}
	msgs := rep.all()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "failed to start") || !strings.Contains(msgs[0], "refusing to start, as asked") || !strings.Contains(msgs[0], "fake (") {
		t.Errorf("reports %q", msgs)
	}
}

func TestNoManagerWithoutServers(t *testing.T) {
	ws := t.TempDir()
	if m := New(Options{Servers: Defaults(), Workspace: ws, Environ: []string{"PATH=" + t.TempDir()}}); m != nil {
		t.Errorf("manager %v with nothing on PATH", m.Servers())
	}
}

// TestDefaultsNeedProgramAndMarker: a default server is offered only with
// its program on PATH and a root marker in the workspace; a file's root
// is the nearest folder with a marker.
func TestDefaultsNeedProgramAndMarker(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gopls"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin}
	gopls := func(m *Manager) bool {
		return m != nil && len(m.Servers()) == 1 && m.Servers()[0].Name == "gopls"
	}
	ws := t.TempDir()
	if m := New(Options{Servers: Defaults(), Workspace: ws, Environ: env}); m != nil {
		t.Errorf("offered %v without a go.mod", m.Servers())
	}
	sub := filepath.Join(ws, "svc")
	if err := os.MkdirAll(filepath.Join(sub, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "go.mod"), []byte("module svc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Servers: Defaults(), Workspace: ws, Environ: env})
	if !gopls(m) {
		t.Fatalf("not offered with svc/go.mod: %v", m)
	}
	if root := m.Servers()[0].rootFor(filepath.Join(sub, "pkg", "a.go"), ws); root != sub {
		t.Errorf("root %s, want %s", root, sub)
	}
	if root := m.Servers()[0].rootFor(filepath.Join(ws, "tool.go"), ws); root != ws {
		t.Errorf("root of a file outside the module %s, want the workspace", root)
	}
	if m := New(Options{Servers: Defaults(), Workspace: ws, Environ: []string{"PATH=" + t.TempDir()}}); m != nil {
		t.Errorf("offered %v without gopls on PATH", m.Servers())
	}
}

// TestTouchedStartsTheServer: reading a file starts its server, so the
// next call finds it running.
func TestTouchedStartsTheServer(t *testing.T) {
	ws := t.TempDir()
	m, _ := fakeManager(t, ws)
	p := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(p, []byte("ERROR: there\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Touched(p)
	c, err := m.Client(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// The file reaches the server without another Sync: its diagnostics
	// come for version 1.
	uri := FileURI(p)
	for {
		c.mu.Lock()
		_, opened := c.docs[uri]
		c.mu.Unlock()
		if opened {
			break
		}
		<-c.changedChan()
	}
	if ds, ok := c.WaitDiagnostics(context.Background(), uri, 1); !ok || len(ds) != 1 || ds[0].Message != "there" {
		t.Errorf("diagnostics %+v, %v", ds, ok)
	}
}

// TestServerEnvironAskedAtFirstStart checks that Options.ServerEnviron
// is not asked for while no server starts, and once for all the starts.
func TestServerEnvironAskedAtFirstStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	var calls atomic.Int32
	m := New(Options{
		Servers:   []ServerConfig{{Name: "fake", Command: exe, Extensions: []string{".txt"}, Env: map[string]string{lsptest.Env: filepath.Join(t.TempDir(), "crashed")}, Configured: true}},
		Workspace: ws,
		Wait:      time.Minute,
		Report:    func(string) {},
		ServerEnviron: func() []string {
			calls.Add(1)
			return os.Environ()
		},
	})
	if m == nil {
		t.Fatal("no manager for a configured server")
	}
	t.Cleanup(func() { m.Close() })
	if n := calls.Load(); n != 0 {
		t.Fatalf("ServerEnviron asked for %d times before any server started", n)
	}
	if note := edit(t, m, filepath.Join(ws, "a.txt"), "ERROR: first\n"); !strings.Contains(note, "first") {
		t.Fatalf("note %q: the server did not answer", note)
	}
	edit(t, m, filepath.Join(ws, "b.txt"), "ERROR: second\n")
	if n := calls.Load(); n != 1 {
		t.Errorf("ServerEnviron asked for %d times, want 1", n)
	}
}
