//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/castor-dev/castor/internal/proc"
)

// landlockSandbox is a closed profile over a fresh workspace and home,
// or a skip (a failure under CI) where the kernel has no Landlock.
func landlockSandbox(t testing.TB) (s *Sandbox, ws, home, outside string) {
	t.Helper()
	root := clean(t.TempDir())
	ws, home, outside = filepath.Join(root, "ws"), filepath.Join(root, "home"), filepath.Join(root, "outside")
	for _, d := range []string{ws, filepath.Join(home, ".ssh"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Build(Options{Name: PermissiveClosed, Workspace: []string{ws}, Home: home, Temp: ws})
	if err != nil {
		t.Fatal(err)
	}
	s, err = New(p)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs Landlock: %v", err)
		}
		t.Skipf("no Landlock here: %v", err)
	}
	return s, ws, home, outside
}

// TestLandlock: through internal/proc, a confined command writes in the
// workspace only and cannot read the key; an unconfined one can both.
func TestLandlock(t *testing.T) {
	s, ws, home, outside := landlockSandbox(t)
	run := func(script string) error {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		return proc.New(cmd, proc.Options{}).Run()
	}
	key := filepath.Join(home, ".ssh", "id_ed25519")
	for _, confined := range []bool{false, true} {
		if confined {
			proc.SetSandbox(s)
			t.Cleanup(func() { proc.SetSandbox(nil) })
		}
		name := map[bool]string{false: "plain", true: "confined"}[confined]
		if err := run("echo x > " + name); err != nil {
			t.Errorf("%s: write in the workspace: %v", name, err)
		}
		target := filepath.Join(outside, name)
		_ = run("echo x > " + target)
		if _, err := os.Stat(target); (err == nil) == confined {
			t.Errorf("%s: wrote outside: %v", name, err == nil)
		}
		if err := run("cat " + key + " >/dev/null"); (err == nil) == confined {
			t.Errorf("%s: read the key: %v", name, err == nil)
		}
		// UDP, which Landlock before ABI 10 lets through: the seccomp
		// filter refuses the socket.
		if err := run("exec bash -c 'exec 3<>/dev/udp/127.0.0.1/53'"); (err == nil) == confined {
			t.Errorf("%s: made a UDP socket: %v", name, err == nil)
		}
	}
	// Only the commands are confined: every thread of this process can
	// still write anywhere.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := os.WriteFile(filepath.Join(outside, "after"+strconv.Itoa(i)), nil, 0o644); err != nil {
				t.Errorf("the process itself is confined: %v", err)
			}
		})
	}
	wg.Wait()
}

// BenchmarkTrue is the latency the sandbox adds to a command: `true`
// through internal/proc, plain, confined by Landlock (a thread of its
// own, confined, forks it) and under bubblewrap.
func BenchmarkTrue(b *testing.B) {
	s, ws, _, _ := landlockSandbox(b)
	sandboxes := []struct {
		name string
		s    proc.Sandbox
	}{{"plain", nil}, {"landlock", s}}
	if _, err := exec.LookPath("bwrap"); err == nil {
		p := s.Profile
		p.Method = Bwrap
		bw, err := New(p)
		if err != nil {
			b.Fatal(err)
		}
		sandboxes = append(sandboxes, struct {
			name string
			s    proc.Sandbox
		}{"bwrap", bw})
	}
	for _, sb := range sandboxes {
		b.Run(sb.name, func(b *testing.B) {
			proc.SetSandbox(sb.s)
			defer proc.SetSandbox(nil)
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				cmd.Dir = ws
				if err := proc.New(cmd, proc.Options{}).Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBwrap: under bubblewrap a command writes in the workspace but not
// in its .git, nor beside it, and does not see the key.
func TestBwrap(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI needs bwrap (bubblewrap)")
		}
		t.Skip("bwrap (bubblewrap) is not installed")
	}
	root := clean(t.TempDir())
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Build(Options{Method: Bwrap, Name: PermissiveClosed, Workspace: []string{ws}, Home: home, Temp: ws})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		script string
		ok     bool
	}{
		{"echo x > inside", true},
		{"echo x > .git/config", false},
		{"echo x > " + filepath.Join(root, "outside"), false},
		{"cat " + filepath.Join(home, ".ssh", "id_ed25519"), false},
	} {
		cmd := exec.Command("/bin/sh", "-c", tt.script)
		cmd.Dir = ws
		err := s.Start(cmd)
		if err == nil {
			err = cmd.Wait()
		}
		if (err == nil) != tt.ok {
			t.Errorf("%q: %v, want success %v", tt.script, err, tt.ok)
		}
	}
}
