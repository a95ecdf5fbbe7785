package headless_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/proc/proctest"
)

// TestBackgroundProcessStartReadKill: a run_shell_command with
// is_background leaves its command running and says its PID; a later
// turn reads its output with read_background_output, kills its group
// through the shell as Gemini CLI's description says, and
// list_background_processes shows it exited by the signal.
func TestBackgroundProcessStartReadKill(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		args    []string
		setting string // tools.sandbox in the user's settings
	}{
		// The sandbox yolo brings (Landlock here): each command has a
		// domain of its own, which may not signal the background one;
		// Castor performs the kill.
		{"sandboxed", nil, ""},
		// bubblewrap: each command has a pid namespace of its own.
		{"bwrap", nil, `"bwrap"`},
		{"unsandboxed", []string{"--sandbox=false"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			switch {
			case tt.setting != "":
				needBwrap(t)
			case tt.args == nil:
				needLandlock(t)
			}
			testBackgroundStartReadKill(t, tt.args, tt.setting)
		})
	}
}

func testBackgroundStartReadKill(t *testing.T, args []string, setting string) {
	e := e2etest.New(t)
	if setting != "" {
		e.WriteUserSettings(`{"tools":{"sandbox":` + setting + `}}`)
	}
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "echo server-ready; exec sleep 600", "is_background": true}),
		fakegemini.Text("Started."),
	)
	p := e.StartStream(append([]string{"--input-format", "stream-json", "-o", "stream-json", "-y"}, args...)...)
	p.Send(`{"type":"user","message":"start the server"}`)
	res := p.Until("tool_result")
	out, _ := res["output"].(string)
	m := regexp.MustCompile(`^Command moved to background \(PID: (\d+)\)\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("background start answered %v", res)
	}
	pid, _ := strconv.Atoi(m[1])
	p.Until("result")
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("background process %d is not running: %v", pid, err)
	}

	e.Srv.Enqueue(
		fakegemini.Call("read_background_output", map[string]any{"pid": pid}),
		// Killed through the shell, then waited for until castor reaped it.
		fakegemini.Call("run_shell_command", map[string]any{"command": fmt.Sprintf("kill -- -%d; while kill -0 %d 2>/dev/null; do sleep 0.05; done", pid, pid)}),
		fakegemini.Call("list_background_processes", map[string]any{}),
		fakegemini.Text("Stopped."),
	)
	p.Send(`{"type":"user","message":"read it, then stop it"}`)
	if r := p.Until("result"); r["status"] != "success" {
		t.Fatalf("result %v", r)
	}
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d: %s", code, p.Stderr.String())
	}
	reqs := e.Srv.Requests()
	answer := func(i int) string {
		_, resp := e2etest.FunctionResponse(t, reqs[i].LastContent(), 0)
		s, _ := resp["output"].(string)
		if s == "" {
			s = fmt.Sprint(resp)
		}
		return s
	}
	if got := answer(3); got != "Full Log Output:\nserver-ready" {
		t.Errorf("read_background_output answered %q", got)
	}
	want := fmt.Sprintf("- [PID %d] EXITED: `echo server-ready; exec sleep 600` (Signal: 15)", pid)
	if got := answer(5); got != want {
		t.Errorf("list_background_processes answered %q, want %q", got, want)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("process %d still alive", pid)
	}
	if d := e2etest.DeclaredSet(reqs[0]); !d["list_background_processes"] || !d["read_background_output"] {
		t.Errorf("declared %v", d)
	}
	if !strings.Contains(answer(4), "Output: (empty)") {
		t.Errorf("kill answered %q", answer(4))
	}
}

// TestBackgroundProcessEndsWithSession: what is still running when the
// session ends is stopped with it.
func TestBackgroundProcessEndsWithSession(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "exec sleep 600", "is_background": true}),
		fakegemini.Text("Started."),
	)
	p := e.StartStream("--input-format", "stream-json", "-o", "stream-json", "-y")
	p.Send(`{"type":"user","message":"start it"}`)
	res := p.Until("tool_result")
	m := regexp.MustCompile(`PID: (\d+)`).FindStringSubmatch(fmt.Sprint(res["output"]))
	if m == nil {
		t.Fatalf("tool_result %v", res)
	}
	pid, _ := strconv.Atoi(m[1])
	p.Until("result")
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("background process %d outlived castor", pid)
	}
}

// TestSandboxedKillStaysInside: with the sandbox on, Castor performs
// only the kills whose every target the session started; a sandboxed
// command still cannot signal a process of the user's that Castor did
// not start, nor Castor itself, nor does naming one of the session's
// processes beside an unrelated one carry the unrelated one through.
func TestSandboxedKillStaysInside(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, setting string }{{"landlock", ""}, {"bwrap", `"bwrap"`}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.setting != "" {
				needBwrap(t)
			} else {
				needLandlock(t)
			}
			v, exited := proctest.Bystander(t)

			e := e2etest.New(t)
			if tt.setting != "" {
				e.WriteUserSettings(`{"tools":{"sandbox":` + tt.setting + `}}`)
			}
			e.Srv.Enqueue(
				fakegemini.Call("run_shell_command", map[string]any{"command": "exec sleep 600", "is_background": true}),
				fakegemini.Text("Started."),
			)
			p := e.StartStream("--input-format", "stream-json", "-o", "stream-json", "-y")
			p.Send(`{"type":"user","message":"start it"}`)
			m := regexp.MustCompile(`PID: (\d+)`).FindStringSubmatch(fmt.Sprint(p.Until("tool_result")["output"]))
			if m == nil {
				t.Fatal("no background PID")
			}
			bg, _ := strconv.Atoi(m[1])
			p.Until("result")

			e.Srv.Enqueue(
				fakegemini.Call("run_shell_command", map[string]any{"command": fmt.Sprintf("kill -TERM %d", v)}),
				fakegemini.Call("run_shell_command", map[string]any{"command": fmt.Sprintf("kill -- -%d %d", bg, v)}),
				fakegemini.Call("run_shell_command", map[string]any{"command": "kill -KILL $PPID"}),
				fakegemini.Call("run_shell_command", map[string]any{"command": fmt.Sprintf("kill -KILL %d", p.Cmd.Process.Pid)}),
				fakegemini.Text("Tried."),
			)
			p.Send(`{"type":"user","message":"kill them"}`)
			if r := p.Until("result"); r["status"] != "success" {
				t.Fatalf("result %v", r)
			}
			reqs := e.Srv.Requests()
			// $PPID is refused under Landlock; under bubblewrap it is
			// the namespace's init, which ignores it. Either way Castor
			// lives on to run the next command and exit.
			for _, i := range []int{3, 4, 6} {
				_, resp := e2etest.FunctionResponse(t, reqs[i].LastContent(), 0)
				if out := fmt.Sprint(resp["output"]); strings.Contains(out, "Exit Code: (none)") || strings.Contains(out, "Output: (empty)") {
					t.Errorf("kill %d went through: %s", i-2, out)
				}
			}
			select {
			case <-exited:
				t.Error("the user's process was killed from the sandbox")
			default:
			}
			if err := syscall.Kill(bg, 0); err != nil {
				t.Errorf("the background process was killed beside the user's: %v", err)
			}
			if code := p.Close(); code != 0 {
				t.Fatalf("castor exit %d: %s", code, p.Stderr.String())
			}
		})
	}
}
