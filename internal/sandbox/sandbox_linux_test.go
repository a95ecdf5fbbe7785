//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// TestProtectsGit: under Landlock and bubblewrap a confined command
// writes files and directories of the workspace, but neither its .git
// (a hook, the config) nor its .gemini, unless tools.sandboxAllowGitWrites
// releases .git; under Landlock the workspace's own entries are then
// fixed, and an entry Castor makes between two commands is writable by
// the next.
func TestProtectsGit(t *testing.T) {
	_, _, _, _ = landlockSandbox(t) // skips without Landlock
	for _, tt := range []struct {
		method    string
		allowGit  bool
		noGemini  bool // the workspace has no .gemini
		hook      bool // .git/hooks/x can be written
		topLevel  bool // a new entry at the workspace's top can be made
		gitCommit bool
	}{
		{Landlock, false, false, false, false, false},
		{Landlock, true, false, true, false, true}, // .gemini is still protected
		{Landlock, true, true, true, true, true},
		{Bwrap, false, false, false, true, false},
		{Bwrap, true, false, true, true, true},
	} {
		name := tt.method + map[bool]string{false: "", true: " allowing git"}[tt.allowGit] + map[bool]string{false: "", true: " without .gemini"}[tt.noGemini]
		t.Run(name, func(t *testing.T) {
			if tt.method == Bwrap {
				if _, err := exec.LookPath("bwrap"); err != nil {
					if os.Getenv("CI") == "true" {
						t.Fatal("CI needs bwrap (bubblewrap)")
					}
					t.Skip("bwrap (bubblewrap) is not installed")
				}
			}
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("git is not installed")
			}
			root := clean(t.TempDir())
			ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
			dirs := []string{filepath.Join(ws, "src"), home}
			if !tt.noGemini {
				dirs = append(dirs, filepath.Join(ws, ".gemini"))
			}
			for _, d := range dirs {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			git := func(args ...string) {
				cmd := exec.Command("git", args...)
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), "HOME="+home, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			if err := os.WriteFile(filepath.Join(ws, "top.txt"), []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			git("add", "top.txt")
			p, err := Build(Options{Method: tt.method, Name: PermissiveOpen, Workspace: []string{ws}, Home: home, Temp: filepath.Join(ws, "src"), AllowGitWrites: tt.allowGit})
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			// Made by Castor after the sandbox was: writable all the same.
			if err := os.WriteFile(filepath.Join(ws, "later.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				script string
				ok     bool
			}{
				{"echo b >> top.txt", true},
				{"echo b >> later.txt", true},
				{"mkdir -p src/a/b && echo x > src/a/b/c && rm src/a/b/c", true},
				{"echo x > .git/hooks/post-checkout", tt.hook},
				{"git config core.fsmonitor 'touch pwned'", tt.hook},
				{"touch newtop", tt.topLevel},
				{"git -c user.name=t -c user.email=t@t commit -qm m", tt.gitCommit},
				// Last: once made, .gemini is protected for the next.
				{"mkdir -p .gemini && echo x > .gemini/settings.json", tt.noGemini && tt.topLevel},
			} {
				cmd := exec.Command("/bin/sh", "-c", c.script)
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), "HOME="+home)
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				err := s.Start(cmd)
				if err == nil {
					err = cmd.Wait()
				}
				if (err == nil) != c.ok {
					t.Errorf("%q: %v, want success %v\n%s", c.script, err, c.ok, out.String())
				}
				if err != nil && c.script == "echo x > .git/hooks/post-checkout" {
					if note := s.DenialsIn(ws, out.String()); !strings.Contains(note, "tools.sandboxAllowGitWrites") {
						t.Errorf("the denied hook write is not explained: %q from %q", note, out.String())
					}
				}
			}
			if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "post-checkout")); (err == nil) != tt.hook {
				t.Errorf("hook planted: %v", err == nil)
			}
		})
	}
}

// preferBwrap: bubblewrap for a workspace holding .git or .gemini when
// bwrap is on PATH, Landlock otherwise.
func TestPreferBwrap(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain, repo, config := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(config, ".gemini")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name      string
		path      string
		workspace string
		gitWrites bool
		want      bool
	}{
		{"repository", bin, repo, false, true},
		{".gemini", bin, config, false, true},
		{"plain folder", bin, plain, false, false},
		{"git writes allowed", bin, repo, true, false},
		{"no bwrap", t.TempDir(), repo, false, false},
	} {
		t.Setenv("PATH", c.path)
		o := Options{Method: Landlock, Workspace: []string{c.workspace}, AllowGitWrites: c.gitWrites}
		if got := preferBwrap(o); got != c.want {
			t.Errorf("%s: preferBwrap = %v, want %v", c.name, got, c.want)
		}
	}
}
