package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// "Allow always and save" (security.enablePermanentToolApproval): the
// answer writes a rule to ~/.gemini/policies/auto-saved.toml, and a later
// castor process runs the same command without asking.

// enablePermanentApproval turns security.enablePermanentToolApproval on
// for the user.
func (e *env) enablePermanentApproval() {
	e.t.Helper()
	dir := filepath.Join(e.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"security": {"enablePermanentToolApproval": true}}`), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) autoSaved() string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.home, ".gemini", "policies", "auto-saved.toml"))
	if err != nil {
		e.t.Fatalf("auto-saved.toml: %v", err)
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
func (e *env) runsSavedCommandUnasked(file string) {
	e.t.Helper()
	e.srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch " + file}), fakegemini.Text("Made it again."))
	r := e.run("-p", "make another file")
	if r.code != 0 || !strings.Contains(r.stdout, "Made it again.") {
		e.t.Fatalf("second castor: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, file)); err != nil {
		e.t.Errorf("the second castor did not run touch %s: %v\nstderr: %s", file, err, r.stderr)
	}
}

// TestTUIAllowAlwaysAndSave chooses "Allow always and save" in the
// interactive terminal's dialog; a second castor process then runs the
// same command unasked.
func TestTUIAllowAlwaysAndSave(t *testing.T) {
	e := newEnv(t)
	e.enablePermanentApproval()
	e.srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch first.txt"}), fakegemini.Text("Made it."))
	tm := e.startTUI()
	tm.submit("Make a file")
	screen := tm.waitFor("Allow execution of: touch?")
	if !strings.Contains(screen, "3. Allow always and save ~/.gemini/policies/auto-saved.toml") {
		t.Fatalf("the dialog does not offer it:\n%s", screen)
	}
	tm.keys("3")
	tm.waitFor("Made it.")
	if _, err := os.Stat(filepath.Join(e.ws, "first.txt")); err != nil {
		t.Fatalf("touch did not run: %v", err)
	}
	if got := e.autoSaved(); got != savedTouchRule {
		t.Errorf("auto-saved.toml:\n%s\nwant:\n%s", got, savedTouchRule)
	}
	e.runsSavedCommandUnasked("second.txt")
}

// TestTUIWithoutPermanentApproval checks that the dialog does not offer
// the choice when the setting is off.
func TestTUIWithoutPermanentApproval(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch first.txt"}), fakegemini.Text("Made it."))
	tm := e.startTUI()
	tm.submit("Make a file")
	if screen := tm.waitFor("Allow execution of: touch?"); strings.Contains(screen, "and save") {
		t.Fatalf("the dialog offers to save:\n%s", screen)
	}
	tm.keys("Escape", "Escape")
}

// TestACPAllowAlwaysAndSave checks session/request_permission's options
// with the setting off and on, and that choosing proceed_always_and_save
// saves the rule a second castor process then follows.
func TestACPAllowAlwaysAndSave(t *testing.T) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			if on {
				e.enablePermanentApproval()
			}
			e.srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch first.txt"}), fakegemini.Text("Made it."))
			var mu sync.Mutex
			var options []string
			c, sid, stderr := startACPClient(t, e, acp.Handler{
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
			if _, err := os.Stat(filepath.Join(e.ws, "first.txt")); err != nil {
				t.Fatalf("touch did not run: %v", err)
			}
			saved := filepath.Join(e.home, ".gemini", "policies", "auto-saved.toml")
			if !on {
				if _, err := os.Stat(saved); err == nil {
					t.Fatal("auto-saved.toml written with the setting off")
				}
				return
			}
			if got := e.autoSaved(); got != savedTouchRule {
				t.Errorf("auto-saved.toml:\n%s\nwant:\n%s", got, savedTouchRule)
			}
			e.runsSavedCommandUnasked("second.txt")
		})
	}
}

// TestMalformedAutoSavedFileKept answers "allow always and save" with an
// auto-saved.toml Castor cannot read: the file stays as it was, the
// warning names it, and the answer still holds for the session.
func TestMalformedAutoSavedFileKept(t *testing.T) {
	e := newEnv(t)
	e.enablePermanentApproval()
	saved := filepath.Join(e.home, ".gemini", "policies", "auto-saved.toml")
	os.MkdirAll(filepath.Dir(saved), 0o755)
	const broken = "[[rule]\ntoolName = \"mine\"\n"
	if err := os.WriteFile(saved, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	shell := func(cmd string) fakegemini.Reply {
		return fakegemini.Call("run_shell_command", map[string]any{"command": cmd})
	}
	e.srv.Enqueue(shell("touch one.txt"), shell("touch two.txt"), fakegemini.Text("Done."))
	// A broken file stops a session (policy files are read whole or not
	// at all); past that, the answer is kept for the session only.
	p := e.startStream("--ignore-policy-errors", "-p", "--input-format", "stream-json", "-o", "stream-json")
	p.send(`{"type":"user","message":"make files"}`)
	first := p.until("permission_request")
	p.send(`{"type":"permission_response","tool_id":"` + first["tool_id"].(string) + `","decision":"proceed_always_and_save"}`)
	if res := p.until("result"); res["status"] != "success" {
		t.Fatalf("result = %v", res)
	}
	if n := p.count("permission_request"); n != 1 {
		t.Errorf("%d permission requests: the answer does not hold for the session", n)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(e.ws, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if code := p.close(); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, p.stderr.String())
	}
	if got, _ := os.ReadFile(saved); string(got) != broken {
		t.Errorf("auto-saved.toml changed to:\n%s", got)
	}
	if stderr := p.stderr.String(); !strings.Contains(stderr, saved) || !strings.Contains(stderr, "for this session only") {
		t.Errorf("stderr does not name the file:\n%s", stderr)
	}
}
