package headless_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/sandbox"
)

// needLandlock skips a test on a kernel without Landlock (network rules
// included), and fails it under CI, where the kernel must have it.
func needLandlock(t *testing.T) {
	t.Helper()
	if _, err := sandbox.New(sandbox.Profile{Method: sandbox.Landlock}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs Landlock: %v", err)
		}
		t.Skipf("no Landlock here: %v", err)
	}
}

// needBwrap skips a test where bubblewrap is missing (fails it under
// CI, which installs it: .ci/run).
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI needs bwrap (bubblewrap)")
		}
		t.Skip("bwrap (bubblewrap) is not installed")
	}
}

// sandboxEnv is an env whose temporary directory is its own, so that
// the rest of the test's directory (beside the workspace) is outside
// every writable root.
func sandboxEnv(t *testing.T, replies ...fakegemini.Reply) (*e2etest.Env, []string, string) {
	e := e2etest.New(t, replies...)
	root := filepath.Dir(e.WS)
	tmp, outside := filepath.Join(root, "tmp"), filepath.Join(root, "outside")
	for _, d := range []string{tmp, outside, filepath.Join(e.Home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".ssh", "id_ed25519"), []byte("PRIVATE-KEY-BYTES\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return e, append(e.Environ(), "TMPDIR="+tmp), outside
}

// listen opens a loopback listener that accepts and closes connections.
func listen(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// TestSandboxConfinesShellE2E: under castor -s -y the model's shell
// commands write in the workspace but not beside it, cannot read an SSH
// key in the home directory, and, in a *-closed profile, cannot connect
// to a loopback port the same command reaches without the sandbox.
func TestSandboxConfinesShellE2E(t *testing.T) {
	t.Parallel()
	shell := func(c string) fakegemini.Reply {
		return fakegemini.Call("run_shell_command", map[string]any{"command": c})
	}
	for _, tt := range []struct {
		name    string
		args    []string
		env     string
		profile string
		// confined is whether the sandbox is on, so the escapes fail.
		confined bool
	}{
		{"sandboxed closed", []string{"-s"}, "", sandbox.PermissiveClosed, true},
		{"restrictive closed", []string{"--sandbox"}, "", sandbox.RestrictiveClosed, true},
		{"bwrap", nil, "GEMINI_SANDBOX=bwrap", sandbox.PermissiveClosed, true},
		{"bwrap restrictive", nil, "GEMINI_SANDBOX=bwrap", sandbox.RestrictiveClosed, true},
		{"turned off", []string{"--sandbox=false"}, "", sandbox.PermissiveClosed, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			switch {
			case tt.env == "GEMINI_SANDBOX=bwrap":
				needBwrap(t)
			case tt.confined:
				needLandlock(t)
			}
			port := listen(t)
			e, environ, outside := sandboxEnv(t)
			target := filepath.Join(outside, "escaped.txt")
			e.Srv.Enqueue(
				shell("echo in > inside.txt"),
				shell("echo out > "+target),
				shell("cat "+filepath.Join(e.Home, ".ssh", "id_ed25519")),
				shell("exec 3<>/dev/tcp/127.0.0.1/"+port+" && echo con\"\"nected"),
				fakegemini.Text("done"))
			environ = append(environ, "SEATBELT_PROFILE="+tt.profile)
			if tt.env != "" {
				environ = append(environ, tt.env)
			}
			r := e2etest.RunCastor(t, e.WS, environ, append(tt.args, "-y", "-p", "go")...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
			}
			if got := strings.Contains(r.Stderr, "Sandbox: "+tt.profile); got != tt.confined {
				t.Errorf("profile notice shown %v, want %v:\n%s", got, tt.confined, r.Stderr)
			}
			if _, err := os.Stat(filepath.Join(e.WS, "inside.txt")); err != nil {
				t.Errorf("write inside the workspace failed: %v", err)
			}
			_, err := os.Stat(target)
			if escaped := err == nil; escaped == tt.confined {
				t.Errorf("file written outside the workspace: %v, want %v", escaped, !tt.confined)
			}
			reqs := e.Srv.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d requests", len(reqs))
			}
			out := func(i int) string {
				_, resp := e2etest.FunctionResponse(t, reqs[i].LastContent(), 0)
				return e2etest.MustJSON(resp)
			}
			if read := strings.Contains(out(3), "PRIVATE-KEY-BYTES"); read == tt.confined {
				t.Errorf("key read %v, want %v: %s", read, !tt.confined, out(3))
			}
			if connected := strings.Contains(out(4), "connected"); connected == tt.confined {
				t.Errorf("connected %v, want %v: %s", connected, !tt.confined, out(4))
			}
			if tt.confined && !strings.Contains(out(2), target+" denied (outside the workspace") {
				t.Errorf("the denied write is not explained: %s", out(2))
			}
		})
	}
}

// TestSandboxFailsClosedE2E: a sandbox asked for and unavailable stops
// castor with exit 44 naming the cause before any command runs; one on
// by default (yolo) and unavailable warns and runs.
func TestSandboxFailsClosedE2E(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		env   []string
		args  []string
		code  int
		cause string
	}{
		{"forced unavailable", []string{sandbox.ForceUnavailableEnv + "=1"}, []string{"-s"}, 44, sandbox.ForceUnavailableEnv + " is set"},
		{"bwrap not on PATH", []string{"GEMINI_SANDBOX=bwrap", "PATH=/nonexistent"}, nil, 44, "bwrap not found on PATH"},
		{"docker without its engine", []string{"GEMINI_SANDBOX=docker", "PATH=" + fakeEngine(t, "docker", "") + ":" + os.Getenv("PATH")}, nil, 44,
			"sandbox docker unavailable: docker is installed but its engine does not answer (docker info: exit status 1: Cannot connect to the Docker daemon"},
		{"podman missing", []string{"GEMINI_SANDBOX=podman", "PATH=/nonexistent"}, nil, 44, "podman not found on PATH"},
		{"sandbox-exec off macOS", []string{"GEMINI_SANDBOX=sandbox-exec"}, nil, 44, "sandbox-exec (Seatbelt) is macOS only"},
		{"proxied under Landlock", []string{"SEATBELT_PROFILE=permissive-proxied"}, []string{"-s"}, 44, "needs sandbox-exec (macOS)"},
		{"unknown method", []string{"GEMINI_SANDBOX=chroot"}, nil, 44, `invalid sandbox command "chroot"`},
		{"default on, unavailable", []string{sandbox.ForceUnavailableEnv + "=1"}, nil, 0, "tools run without a sandbox"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e2etest.New(t,
				fakegemini.Call("run_shell_command", map[string]any{"command": "touch ran.txt"}),
				fakegemini.Text("done"))
			environ := e.Environ()
			for _, kv := range tt.env {
				if strings.HasPrefix(kv, "PATH=") {
					environ = slices.DeleteFunc(environ, func(s string) bool { return strings.HasPrefix(s, "PATH=") })
				}
				environ = append(environ, kv)
			}
			r := e2etest.RunCastor(t, e.WS, environ, append(tt.args, "-y", "-p", "go")...)
			if r.Code != tt.code || !strings.Contains(r.Stderr, tt.cause) {
				t.Fatalf("exit %d, want %d naming %q\nstderr %s", r.Code, tt.code, tt.cause, r.Stderr)
			}
			_, err := os.Stat(filepath.Join(e.WS, "ran.txt"))
			if ran := err == nil; ran != (tt.code == 0) {
				t.Errorf("command ran %v with exit %d", ran, r.Code)
			}
		})
	}
}

// TestSandboxKeepsGitReadOnlyE2E: under castor -s -y (Landlock, and
// bubblewrap) the model's commands cannot plant a hook in the
// workspace's .git nor commit, and the model is told the path and the
// rule; tools.sandboxAllowGitWrites: true lets git commit.
func TestSandboxKeepsGitReadOnlyE2E(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, tt := range []struct {
		name, env string
		allow     bool
		// fixedTop: Landlock keeps .git read-only by fixing the
		// workspace's own entries.
		fixedTop bool
	}{
		{"landlock", "GEMINI_SANDBOX=landlock", false, true},
		{"landlock allowing git", "GEMINI_SANDBOX=landlock", true, false},
		{"bwrap", "GEMINI_SANDBOX=bwrap", false, false},
		// -s picks bubblewrap for a repository where it is installed.
		{"auto", "", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.env != "GEMINI_SANDBOX=landlock" {
				needBwrap(t)
			}
			needLandlock(t)
			shell := func(c string) fakegemini.Reply {
				return fakegemini.Call("run_shell_command", map[string]any{"command": c})
			}
			e, environ, _ := sandboxEnv(t,
				shell("echo 'touch pwned' > .git/hooks/post-commit"),
				shell("git add notes.txt && git -c user.name=m -c user.email=m@m commit -qm model && echo com\"\"mitted"),
				shell("mkdir -p sub/deeper && echo ok > sub/deeper/made.txt"),
				shell("touch top.txt"),
				fakegemini.Text("done"))
			git := exec.Command("git", "init", "-q")
			git.Dir = e.WS
			if out, err := git.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			e.Write("notes.txt", "hi\n")
			e2etest.WriteFiles(t, e.WS, map[string]string{"sub/.keep": ""})
			if tt.allow {
				e.WriteUserSettings(`{"tools": {"sandboxAllowGitWrites": true}}`)
			}
			if tt.env != "" {
				environ = append(environ, tt.env)
			}
			r := e2etest.RunCastor(t, e.WS, environ, "-s", "-y", "-p", "go")
			if r.Code != 0 {
				t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
			}
			if got := strings.Contains(r.Stderr, ".git read-only"); got == tt.allow {
				t.Errorf("notice says .git read-only: %v\n%s", got, r.Stderr)
			}
			reqs := e.Srv.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d requests", len(reqs))
			}
			out := func(i int) string {
				_, resp := e2etest.FunctionResponse(t, reqs[i].LastContent(), 0)
				return e2etest.MustJSON(resp)
			}
			hook := filepath.Join(e.WS, ".git", "hooks", "post-commit")
			_, err := os.Stat(hook)
			if planted := err == nil; planted != tt.allow {
				t.Errorf("hook planted %v, want %v: %s", planted, tt.allow, out(1))
			}
			if committed := strings.Contains(out(2), "committed"); committed != tt.allow {
				t.Errorf("committed %v, want %v: %s", committed, tt.allow, out(2))
			}
			if !tt.allow && !strings.Contains(out(1), "sandbox: write to "+hook+" denied (the workspace's .git is read-only") {
				t.Errorf("the denied hook write is not explained: %s", out(1))
			}
			if _, err := os.Stat(filepath.Join(e.WS, "sub", "deeper", "made.txt")); err != nil {
				t.Errorf("a write beneath the workspace failed: %v (%s)", err, out(3))
			}
			if _, err := os.Stat(filepath.Join(e.WS, "top.txt")); (err == nil) == tt.fixedTop {
				t.Errorf("made a file at the top: %v, want %v (%s)", err == nil, !tt.fixedTop, out(4))
			}
			if tt.name == "auto" && !strings.Contains(r.Stderr, "(bwrap;") {
				t.Errorf("-s in a repository did not pick bwrap:\n%s", r.Stderr)
			}
		})
	}
}

// fakeEngine is a folder holding a fake container engine called name:
// with log empty it answers as an engine that is not running; otherwise
// it answers info and image inspect, and for run writes its arguments,
// one a line, to log and prints IN-CONTAINER instead of running
// anything.
func fakeEngine(t *testing.T, name, log string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n"
	if log != "" {
		script = "#!/bin/sh\ncase \"$1\" in\nrun) printf '%s\\n' \"$@\" > " + log + "; echo IN-CONTAINER;;\nesac\nexit 0\n"
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSandboxContainerE2E: GEMINI_SANDBOX=docker runs the model's shell
// command through the engine (a fake one here: no engine runs on these
// machines) with the image GEMINI_SANDBOX_IMAGE names, the workspace
// mounted at its own path, no network in a closed profile, and the
// command itself.
func TestSandboxContainerE2E(t *testing.T) {
	t.Parallel()
	e, environ, _ := sandboxEnv(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "echo hi"}),
		fakegemini.Text("done"))
	log := filepath.Join(t.TempDir(), "args")
	environ = slices.DeleteFunc(environ, func(s string) bool { return strings.HasPrefix(s, "PATH=") })
	environ = append(environ, "GEMINI_SANDBOX=docker", "GEMINI_SANDBOX_IMAGE=example.com/castor-test:1", "SEATBELT_PROFILE=permissive-closed",
		"PATH="+fakeEngine(t, "docker", log)+":"+os.Getenv("PATH"))
	r := e2etest.RunCastor(t, e.WS, environ, "-y", "-p", "go")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "Sandbox: permissive-closed (docker;") {
		t.Errorf("no notice of the docker sandbox:\n%s", r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	_, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
	if out := e2etest.MustJSON(resp); !strings.Contains(out, "IN-CONTAINER") {
		t.Errorf("the command did not go through the engine: %s", out)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, want := range [][]string{{"run", "-i", "--rm", "--init"}, {"--network", "none"}, {"--volume", e.WS + ":" + e.WS}, {"--workdir", e.WS},
		{"example.com/castor-test:1", "bash", "-c"}} {
		if !containsRun(args, want) {
			t.Errorf("engine arguments lack %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "k") && strings.Contains(string(b), "GEMINI_API_KEY=") {
		t.Errorf("a variable's value is in the engine's arguments:\n%s", b)
	}
}

// containsRun reports whether want appears in args as a run.
func containsRun(args, want []string) bool {
	for i := range args {
		if i+len(want) <= len(args) && slices.Equal(args[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
