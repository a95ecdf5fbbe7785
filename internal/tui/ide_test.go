package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
)

// TestIDEStatusFollowsConnection: /ide status says what the connection is
// now. Once the editor closes, it says disconnected and why, not the
// "connected" of the session's start; while connected, it names the IDE
// and lists the open files, as Gemini CLI's /ide status does.
func TestIDEStatusFollowsConnection(t *testing.T) {
	root := t.TempDir()
	tmp, ws := filepath.Join(root, "tmp"), filepath.Join(root, "ws")
	for _, d := range []string{tmp, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, _ = filepath.EvalSymlinks(ws)
	srv := companion.New(companion.Options{
		Workspaces: []string{ws},
		PID:        4242,
		TempDir:    tmp,
		IDE:        ide.IDEInfo{Name: "testide", DisplayName: "Test IDE"},
		Debounce:   time.Millisecond,
	})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	file := filepath.Join(ws, "main.go")
	os.WriteFile(file, []byte("package main\n"), 0o644)
	if err := srv.FileFocused(file); err != nil {
		t.Fatal(err)
	}
	c, err := ide.Connect(context.Background(), ide.Options{
		WorkDir: ws, TempDir: tmp, IDEPID: 4242, Host: "127.0.0.1",
		Getenv:             func(string) string { return "" },
		InitialContextWait: 10 * time.Second,
		ReconnectDelay:     func(int) time.Duration { return time.Hour },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	m, log := newTestModel(t)
	a := withSession(t, m)
	a.UseIDE(c)
	if f := m.footer(); !strings.Contains(f, "IDE") || strings.Contains(f, "IDE disconnected") {
		t.Errorf("connected: footer %q", f)
	}
	m.runCommand("/ide status")
	for _, w := range []string{"Connected to Test IDE", file + " (active)"} {
		if !strings.Contains(printed(log), w) {
			t.Errorf("connected: output lacks %q:\n%s", w, printed(log))
		}
	}

	srv.Stop(context.Background())
	deadline := time.Now().Add(20 * time.Second)
	for c.Status().State == ide.Connected && time.Now().Before(deadline) {
		<-c.Changed()
	}
	*log = nil
	m.runCommand("/ide status")
	out := printed(log)
	if !strings.Contains(out, "Disconnected from Test IDE") || strings.Contains(out, "IDE: connected") {
		t.Errorf("after the IDE closed, /ide status says:\n%s", out)
	}
	if f := m.footer(); !strings.Contains(f, "IDE disconnected") {
		t.Errorf("after the IDE closed, the footer says %q", f)
	}

	// Gemini CLI's advice on a lost connection is /ide enable: it must not
	// claim the session is connected.
	*log = nil
	m.runCommand("/ide enable")
	if out := printed(log); strings.Contains(out, "already connected") || !strings.Contains(out, "looking for the companion now") {
		t.Errorf("/ide enable after the IDE closed says:\n%s", out)
	}
}

// TestIDEInstallCommand: /ide install is a sub-command (Gemini CLI's), not
// an unknown one; outside VS Code it says what to do instead.
func TestIDEInstallCommand(t *testing.T) {
	m, log := newTestModel(t)
	m.cfg.Environ = []string{"NVIM=/tmp/nvim.sock"}
	withSession(t, m)
	cmd := m.runCommand("/ide install")
	if strings.Contains(printed(log), "Unknown sub-command") || cmd == nil {
		t.Fatalf("/ide install is not a sub-command:\n%s", printed(log))
	}
	msg, ok := cmd().(noticeMsg)
	if !ok || msg.kind != noticeError || !strings.Contains(msg.text, "no installer for Neovim") {
		t.Errorf("/ide install in Neovim: %+v", msg)
	}
}
