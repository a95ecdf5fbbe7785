package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// "Allow always and save" (security.enablePermanentToolApproval): the
// answer writes a rule to ~/.gemini/policies/auto-saved.toml, and a later
// castor process runs the same command without asking.

// enablePermanentApproval turns security.enablePermanentToolApproval on
// for the user.
func enablePermanentApproval(e *e2etest.Env) {
	e.T.Helper()
	dir := filepath.Join(e.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"security": {"enablePermanentToolApproval": true}}`), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

func autoSaved(e *e2etest.Env) string {
	e.T.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, ".gemini", "policies", "auto-saved.toml"))
	if err != nil {
		e.T.Fatalf("auto-saved.toml: %v", err)
	}
	return string(b)
}

const savedTouchRule = `[[rule]]
commandPrefix = ["touch"]
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "run_shell_command"
`

// runsSavedCommandUnasked runs a headless castor, which cannot ask, whose
// model calls touch again: the saved rule lets it run.
func runsSavedCommandUnasked(e *e2etest.Env, file string) {
	e.T.Helper()
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch " + file}), fakegemini.Text("Made it again."))
	r := e.Run("-p", "make another file")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Made it again.") {
		e.T.Fatalf("second castor: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, file)); err != nil {
		e.T.Errorf("the second castor did not run touch %s: %v\nstderr: %s", file, err, r.Stderr)
	}
}

// TestTUIAllowAlwaysAndSave chooses "Allow always and save" in the
// interactive terminal's dialog; a second castor process then runs the
// same command unasked.
func TestTUIAllowAlwaysAndSave(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	enablePermanentApproval(e)
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch first.txt"}), fakegemini.Text("Made it."))
	tm := e.StartTUI()
	tm.Submit("Make a file")
	screen := tm.WaitFor("Allow execution of: touch?")
	if !strings.Contains(screen, "3. Allow always and save ~/.gemini/policies/auto-saved.toml") {
		t.Fatalf("the dialog does not offer it:\n%s", screen)
	}
	tm.Keys("3")
	tm.WaitFor("Made it.")
	if _, err := os.Stat(filepath.Join(e.WS, "first.txt")); err != nil {
		t.Fatalf("touch did not run: %v", err)
	}
	if got := autoSaved(e); got != savedTouchRule {
		t.Errorf("auto-saved.toml:\n%s\nwant:\n%s", got, savedTouchRule)
	}
	runsSavedCommandUnasked(e, "second.txt")
}

// TestTUIWithoutPermanentApproval checks that the dialog does not offer
// the choice when the setting is off.
func TestTUIWithoutPermanentApproval(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch first.txt"}), fakegemini.Text("Made it."))
	tm := e.StartTUI()
	tm.Submit("Make a file")
	if screen := tm.WaitFor("Allow execution of: touch?"); strings.Contains(screen, "and save") {
		t.Fatalf("the dialog offers to save:\n%s", screen)
	}
	tm.Keys("Escape", "Escape")
}

// TestACPAllowAlwaysAndSave checks session/request_permission's options
// with the setting off and on, and that choosing proceed_always_and_save
// saves the rule a second castor process then follows.
func TestACPAllowAlwaysAndSave(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		t.Run(name, func(t *testing.T) {
			e := e2etest.New(t)
			if on {
				enablePermanentApproval(e)
			}
			e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch first.txt"}), fakegemini.Text("Made it."))
			var mu sync.Mutex
			var options []string
			c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{
				Permission: func(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
					mu.Lock()
					defer mu.Unlock()
					choice := sdk.PermissionOptionId("proceed_once")
					for _, o := range r.Options {
						options = append(options, string(o.OptionId)+"/"+string(o.Kind))
						if o.OptionId == "proceed_always_and_save" {
							choice = o.OptionId
						}
					}
					return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: choice}}}, nil
				},
			})
			if _, err := c.PromptText(context.Background(), sid, "make a file"); err != nil {
				t.Fatalf("prompt: %v; stderr:\n%s", err, stderr.String())
			}
			if err := c.Close(); err != nil {
				t.Errorf("close: %v; stderr:\n%s", err, stderr.String())
			}
			mu.Lock()
			got := strings.Join(options, " ")
			mu.Unlock()
			want := "proceed_once/allow_once proceed_always/allow_always cancel/reject_once"
			if on {
				want = "proceed_once/allow_once proceed_always/allow_always proceed_always_and_save/allow_always cancel/reject_once"
			}
			if got != want {
				t.Fatalf("options %s, want %s", got, want)
			}
			if _, err := os.Stat(filepath.Join(e.WS, "first.txt")); err != nil {
				t.Fatalf("touch did not run: %v", err)
			}
			saved := filepath.Join(e.Home, ".gemini", "policies", "auto-saved.toml")
			if !on {
				if _, err := os.Stat(saved); err == nil {
					t.Fatal("auto-saved.toml written with the setting off")
				}
				return
			}
			if got := autoSaved(e); got != savedTouchRule {
				t.Errorf("auto-saved.toml:\n%s\nwant:\n%s", got, savedTouchRule)
			}
			runsSavedCommandUnasked(e, "second.txt")
		})
	}
}

// TestMalformedAutoSavedFileKept answers "allow always and save" with an
// auto-saved.toml Castor cannot read: the file stays as it was, the
// warning names it, and the answer still holds for the session.
func TestMalformedAutoSavedFileKept(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	enablePermanentApproval(e)
	saved := filepath.Join(e.Home, ".gemini", "policies", "auto-saved.toml")
	os.MkdirAll(filepath.Dir(saved), 0o755)
	const broken = "[[rule]\ntoolName = \"mine\"\n"
	if err := os.WriteFile(saved, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	shell := func(cmd string) fakegemini.Reply {
		return fakegemini.Call("run_shell_command", map[string]any{"command": cmd})
	}
	e.Srv.Enqueue(shell("touch one.txt"), shell("touch two.txt"), fakegemini.Text("Done."))
	// A broken file stops a session (policy files are read whole or not
	// at all); past that, the answer is kept for the session only.
	p := e.StartStream("--ignore-policy-errors", "-p", "--input-format", "stream-json", "-o", "stream-json")
	p.Send(`{"type":"user","message":"make files"}`)
	first := p.Until("permission_request")
	p.Send(`{"type":"permission_response","tool_id":"` + first["tool_id"].(string) + `","decision":"proceed_always_and_save"}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Fatalf("result = %v", res)
	}
	if n := p.Count("permission_request"); n != 1 {
		t.Errorf("%d permission requests: the answer does not hold for the session", n)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(e.WS, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, p.Stderr.String())
	}
	if got, _ := os.ReadFile(saved); string(got) != broken {
		t.Errorf("auto-saved.toml changed to:\n%s", got)
	}
	if stderr := p.Stderr.String(); !strings.Contains(stderr, saved) || !strings.Contains(stderr, "for this session only") {
		t.Errorf("stderr does not name the file:\n%s", stderr)
	}
}
