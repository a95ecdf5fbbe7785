package castor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/sandbox"
	"github.com/castor-dev/castor/policy"
)

// TestWithSandbox: an SDK agent built WithSandbox runs the model's shell
// commands confined (a write beside the workspace fails, the model is
// told the path and the rule, a key in ~/.ssh stays unread, the
// workspace's .git stays read-only), writes inside; once it is closed, an
// agent without a sandbox is not confined.
func TestWithSandbox(t *testing.T) {
	if _, err := sandbox.New(sandbox.Profile{Method: sandbox.Landlock}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs Landlock: %v", err)
		}
		t.Skipf("no Landlock here: %v", err)
	}
	root := t.TempDir()
	home, ws, outside := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "outside")
	e2etest.WriteFiles(t, root, map[string]string{"home/.ssh/id_ed25519": "PRIVATE-KEY\n", "ws/.git/config": "[core]\n", "ws/src/.keep": "", "outside/.keep": ""})
	shell := func(c string) fakegemini.Reply {
		return fakegemini.Call("run_shell_command", map[string]any{"command": c})
	}
	escape := filepath.Join(outside, "escaped.txt")
	srv := fakegemini.Start(t,
		shell("echo in > src/inside.txt"),
		shell("echo out > "+escape),
		shell("cat "+filepath.Join(home, ".ssh", "id_ed25519")),
		shell("echo x >> .git/config"),
		fakegemini.Text("done"),
		// The second agent, unconfined.
		shell("echo out > "+escape),
		fakegemini.Text("done"))
	env := map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": srv.URL, "PATH": os.Getenv("PATH"), "TMPDIR": filepath.Join(ws, "src")}
	opts := []castor.Option{castor.WithWorkDir(ws), castor.WithHomeDir(home), castor.WithoutRecording(),
		castor.WithEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }),
		castor.WithApprovalMode(policy.ModeYolo)}
	a, err := castor.New(context.Background(), append(opts, castor.WithSandbox(castor.Sandbox{Method: "landlock", Profile: "permissive-closed"}))...)
	if err != nil {
		t.Fatal(err)
	}
	if p := a.SandboxProfile(); !strings.HasPrefix(p, "permissive-closed (landlock;") {
		t.Errorf("SandboxProfile = %q", p)
	}
	if _, err := a.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	reqs := srv.Requests()
	out := func(i int) string {
		_, resp := e2etest.FunctionResponse(t, reqs[i].LastContent(), 0)
		return e2etest.MustJSON(resp)
	}
	if _, err := os.Stat(filepath.Join(ws, "src", "inside.txt")); err != nil {
		t.Errorf("the write inside failed: %v (%s)", err, out(1))
	}
	if _, err := os.Stat(escape); err == nil {
		t.Error("the write outside the workspace went through")
	}
	if !strings.Contains(out(2), "sandbox: write to "+escape+" denied (outside the workspace; profile permissive-closed)") {
		t.Errorf("the denied write is not explained: %s", out(2))
	}
	if strings.Contains(out(3), "PRIVATE-KEY") {
		t.Errorf("the key was read: %s", out(3))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config was written: %q (%s)", b, out(4))
	}
	b, err := castor.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(escape); err != nil {
		t.Errorf("the sandbox outlived its agent: %v", err)
	}
}

// TestWithSandboxFailsClosed: a sandbox that cannot be had fails New
// with ErrSandboxUnavailable naming the cause; no agent, nothing run.
func TestWithSandboxFailsClosed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		s     castor.Sandbox
		env   string
		cause string
	}{
		{"forced", castor.Sandbox{}, sandbox.ForceUnavailableEnv, sandbox.ForceUnavailableEnv + " is set"},
		{"unknown method", castor.Sandbox{Method: "chroot"}, "", `invalid sandbox command "chroot" (from castor.WithSandbox)`},
		{"unknown profile", castor.Sandbox{Profile: "lenient"}, "", `unknown sandbox profile "lenient"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv(tt.env, "1")
			}
			a, err := castor.New(context.Background(), castor.WithWorkDir(t.TempDir()), castor.WithHomeDir(t.TempDir()),
				castor.WithoutSettings(), castor.WithoutRecording(), castor.WithClient(nil), castor.WithSandbox(tt.s))
			if err == nil {
				a.Close()
				t.Fatal("New succeeded")
			}
			if !errors.Is(err, castor.ErrSandboxUnavailable) || !strings.Contains(err.Error(), tt.cause) {
				t.Errorf("err = %v, want ErrSandboxUnavailable naming %q", err, tt.cause)
			}
		})
	}
}
