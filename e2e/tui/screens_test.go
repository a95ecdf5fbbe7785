package cli_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// The interactive terminal's end-to-end tests run the built castor in a
// real terminal, tmux, type into it with send-keys and compare what
// capture-pane shows with golden screens under testdata/tui (go test
// -run TUI -update rewrites them).

var updateTUI = flag.Bool("update", false, "rewrite the golden screens under testdata/tui")

// Terminal size of every test, so that the screens are stable.
const tuiWidth, tuiHeight = 100, 30

// term is castor running in its own tmux server.
type term struct {
	t    *testing.T
	e    *env
	sock string
}

// startTUI opens castor with args in a tmux pane sized tuiWidth×tuiHeight.
func (e *env) startTUI(args ...string) *term {
	e.t.Helper()
	return e.startTUIAfter("", args...)
}

// startTUIAfter is startTUI with a shell command run first in the pane,
// as a user's earlier work stays on the screen castor opens in.
func (e *env) startTUIAfter(before string, args ...string) *term {
	t := e.t
	t.Helper()
	npmtest.LookPath(t, "tmux") // skips without tmux, fails under CI=true
	bin := castorBinary(t)
	tm := &term{t: t, e: e, sock: fmt.Sprintf("castor-tui-%d-%d", os.Getpid(), time.Now().UnixNano())}
	envs := []string{
		"HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + e.srv.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"CASTOR_RETRY_BASE_DELAY=5ms",
		"EDITOR=true",
	}
	envs = append(envs, e.tuiEnv...)
	cmd := before + "cd " + shellQuote(e.ws) + " && env -i"
	for _, kv := range envs {
		cmd += " " + shellQuote(kv)
	}
	cmd += " " + shellQuote(bin)
	for _, a := range args {
		cmd += " " + shellQuote(a)
	}
	// The pane stays after castor exits, so its last words can be read.
	cmd += "; echo '[exited]'; sleep 600"
	tm.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", fmt.Sprint(tuiWidth), "-y", fmt.Sprint(tuiHeight), cmd)
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.sock, "kill-server").Run() })
	// The first frame comes before the session is assembled; a prompt
	// typed then is queued with a notice of its own, which is not the
	// screen the tests expect. Start-up is over when the footer no longer
	// says so.
	s := tm.waitUntil("the session ready", func(s string) bool {
		footer := s[strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")+1:]
		return strings.Contains(footer, "context left") && !strings.Contains(footer, startingStatus)
	})
	// Only the footer is looked at above, so that a start-up frame left
	// in the scrollback is reported as what it is: a rendering bug users
	// see too, not a slow test.
	if strings.Contains(s, startingStatus) {
		t.Errorf("the start-up frame stayed on screen above the live area:\n%s", s)
	}
	return tm
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Escape, C-c, BTab…).
func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	tm.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// typeText types text literally.
func (tm *term) typeText(s string) {
	tm.t.Helper()
	tm.tmux("send-keys", "-t", "main", "-l", s)
}

// submit types s and presses Enter, as a user sends a line.
func (tm *term) submit(s string) {
	tm.t.Helper()
	tm.typeText(s)
	tm.keys("Enter")
}

// screen is the pane's scrollback and visible screen, trailing blank lines
// removed.
func (tm *term) screen() string {
	tm.t.Helper()
	out := tm.tmux("capture-pane", "-p", "-t", "main", "-S", "-", "-E", "-")
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n") + "\n"
}

// How the screen is polled. A screen counts as settled once it has been
// the same for stablePolls polls in a row: castor draws a frame in several
// writes and prints above its live area before it redraws it, so a single
// capture can catch a frame half drawn. On a loaded machine castor or tmux
// may also stall for longer than that between two writes, which is why
// golden waits for the screen it expects rather than for any settled one.
// The deadline is generous: it only bounds a hang.
const (
	pollEvery    = 50 * time.Millisecond
	stablePolls  = 4
	screenWithin = 30 * time.Second
)

// waitUntil polls the normalised screen until ok holds for a screen that
// has stopped changing, and returns it. On the deadline it fails the test
// with what and the last screen.
func (tm *term) waitUntil(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	s, good := tm.poll(ok)
	if !good {
		tm.t.Fatalf("screen never showed %s:\n%s", what, s)
	}
	return s
}

// poll is waitUntil without the failure: it reports whether ok held
// before the deadline, and the last screen either way.
func (tm *term) poll(ok func(screen string) bool) (string, bool) {
	tm.t.Helper()
	deadline := time.Now().Add(screenWithin)
	last, same := "", 0
	for {
		s := tm.normalise(tm.screen())
		if s == last {
			same++
		} else {
			last, same = s, 1
		}
		if same >= stablePolls && ok(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return last, false
		}
		time.Sleep(pollEvery)
	}
}

// waitFor waits until the screen shows want and stops changing.
func (tm *term) waitFor(want string) string {
	tm.t.Helper()
	return tm.waitUntil(fmt.Sprintf("%q", want), func(s string) bool { return strings.Contains(s, want) })
}

// idle says the screen shows no work in progress: no start-up, no
// spinner.
func idle(s string) bool {
	return !strings.Contains(s, startingStatus) && !strings.Contains(s, "esc to cancel")
}

// startingStatus is the footer's word while the session is assembled.
const startingStatus = "starting…"

var (
	spinnerFrames = regexp.MustCompile(`[⣾⣽⣻⢿⡿⣟⣯⣷]`)
	elapsed       = regexp.MustCompile(`esc to cancel, \d+s`)
	uuidRE        = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	tmpRE         = regexp.MustCompile(`/tmp/castor-edit-[^ ]*`)
	// A long workspace path is cut on the left in the footer.
	cutWS = regexp.MustCompile(`(?m)^…\S*/ws  `)
)

// normalise replaces what changes from run to run: paths, ids, the
// spinner and the elapsed time.
func (tm *term) normalise(s string) string {
	s = strings.ReplaceAll(s, tm.e.ws, "<ws>")
	s = cutWS.ReplaceAllString(s, "<ws>  ")
	s = strings.ReplaceAll(s, tm.e.home, "<home>")
	s = strings.ReplaceAll(s, tm.e.srv.URL, "<server>")
	s = spinnerFrames.ReplaceAllString(s, "*")
	s = elapsed.ReplaceAllString(s, "esc to cancel, Ns")
	s = uuidRE.ReplaceAllString(s, "<session-id>")
	s = tmpRE.ReplaceAllString(s, "<tmp>")
	// Blank rows are left out: Bubble Tea's inline renderer sometimes
	// leaves a blank row more or less where the live area grew or shrank
	// while output was printed above it, which is cosmetic; every line of
	// text, and its order, is compared.
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n") + "\n"
}

// golden compares the screen with testdata/tui/name.txt. The screen the
// caller waited for may still be on its way to the one expected (the
// spinner not yet gone, output printed above a live area not yet redrawn),
// so while it differs golden keeps reading the screen until it matches,
// and fails with the last settled screen at the deadline. With -update it
// writes the first settled, idle screen.
func (tm *term) golden(name, screen string) {
	tm.t.Helper()
	path := filepath.Join("testdata", "tui", name+".txt")
	if *updateTUI {
		got := screen
		if !idle(got) {
			got = tm.waitUntil("an idle screen for "+name, idle)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tm.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tm.t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tm.t.Fatalf("%v (run with -update to create it)", err)
	}
	want := string(b)
	if screen == want {
		return
	}
	if got, ok := tm.poll(func(s string) bool { return s == want }); !ok {
		tm.t.Errorf("screen %s differs from the golden file (-update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestTUIStartupAndQuit(t *testing.T) {
	e := newEnv(t)
	tm := e.startTUI()
	tm.golden("startup", tm.waitFor("context left"))
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("start-up made %d model calls", n)
	}
	tm.keys("C-d")
	s := tm.waitFor("[exited]")
	// Nothing was said, so nothing was recorded: a --resume hint would
	// point at a session that does not exist (TestTUIExitClearsLiveArea
	// sees the hint after a prompt).
	if strings.Contains(s, "To resume it") {
		t.Errorf("a resume hint for a session never recorded:\n%s", s)
	}
}

const markdownAnswer = "# Plan\n\nThree steps:\n\n1. **Read** the code\n2. Write the `fix`\n3. Run the tests\n\n" +
	"```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\n| tool | use |\n| --- | --- |\n| go | build |\n\nDone.\n"

func TestTUIStreamedMarkdown(t *testing.T) {
	e := newEnv(t)
	// The answer arrives in small pieces, cut in the middle of blocks.
	var pieces []string
	for i := 0; i < len(markdownAnswer); i += 7 {
		pieces = append(pieces, markdownAnswer[i:min(i+7, len(markdownAnswer))])
	}
	e.srv.Enqueue(fakegemini.Text(pieces...))
	tm := e.startTUI("Make a plan")
	tm.golden("markdown", tm.waitFor("Done."))
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

func TestTUIToolCall(t *testing.T) {
	e := newEnv(t)
	e.write("README.md", readme)
	e.srv.Enqueue(
		fakegemini.Parts(fakegemini.ThoughtPart("**Reading the README**\n\nFirst look."), fakegemini.CallPart("read_file", map[string]any{"absolute_path": filepath.Join(e.ws, "README.md")})),
		fakegemini.Text("The README describes a demo project."),
	)
	tm := e.startTUI("-i", "What is this project?")
	tm.golden("tool_call", tm.waitFor("describes a demo project"))
}

func TestTUIEditAcceptedWithEnter(t *testing.T) {
	e := newEnv(t)
	e.write("notes.txt", "one\ntwo\nthree\n")
	e.srv.Enqueue(
		fakegemini.Call("replace", map[string]any{"file_path": filepath.Join(e.ws, "notes.txt"), "old_string": "two", "new_string": "TWO", "instruction": "shout two"}),
		fakegemini.Text("Changed it."),
	)
	tm := e.startTUI()
	tm.submit("Shout the second line")
	tm.golden("edit_dialog", tm.waitFor("Apply this change?"))
	tm.keys("Enter")
	tm.golden("edit_accepted", tm.waitFor("Changed it."))
	if got, _ := os.ReadFile(filepath.Join(e.ws, "notes.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Errorf("notes.txt = %q", got)
	}
}

func TestTUIShellRejected(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch pwned"}))
	tm := e.startTUI()
	tm.submit("Create a file")
	tm.waitFor("Allow execution of: touch?")
	tm.keys("Escape")
	tm.waitFor("What should the model do instead?")
	tm.keys("Enter") // no note: just reject
	tm.golden("shell_rejected", tm.waitFor("Rejected."))
	if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
		t.Error("the rejected command ran")
	}
	// The next prompt carries the cancelled response to the model.
	e.srv.Enqueue(fakegemini.Text("Understood, no file."))
	tm.submit("Never mind")
	tm.waitFor("Understood, no file.")
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1].Contents
	if !strings.Contains(mustJSON(last), "User denied execution") {
		t.Errorf("the cancelled response is not in the next request: %s", mustJSON(last))
	}
}

func TestTUIHelp(t *testing.T) {
	e := newEnv(t)
	tm := e.startTUI()
	tm.typeText("/he")
	tm.waitFor("/help  Show the commands") // the completion list
	tm.keys("Tab")                         // completes the command
	tm.waitFor("> /help")
	tm.keys("Enter")
	tm.golden("help", tm.waitFor("Ctrl-D"))
}

func TestTUIEscCancelsTurn(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Hang())
	tm := e.startTUI()
	tm.submit("Take your time")
	tm.waitFor("esc to cancel")
	tm.keys("Escape")
	tm.golden("cancelled", tm.waitFor("Request cancelled."))
	// The session goes on: history stays valid for the next prompt.
	e.srv.Enqueue(fakegemini.Text("Back again."))
	tm.submit("Hello?")
	tm.waitFor("Back again.")
}

func TestTUIResize(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Text("A line long enough to be wrapped once the terminal gets narrower than it is now, which it will."))
	tm := e.startTUI("Say something long")
	tm.waitFor("will.")
	tm.tmux("resize-window", "-t", "main", "-x", "60", "-y", "20")
	// The terminal reflows what was printed, and the live area is drawn
	// again at the new width. Bubble Tea's inline renderer may leave rows
	// of the old, wider live area (reflowed by the terminal) between the
	// two; that is cosmetic, so the conversation on top and the live area
	// at the bottom are compared, not the rows between them.
	want, err := os.ReadFile(filepath.Join("testdata", "tui", "resized.txt"))
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	top, live := wantLines[:len(wantLines)-4], wantLines[len(wantLines)-4:]
	resized := func(s string) bool {
		gotLines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		return len(gotLines) >= len(wantLines) &&
			strings.Join(gotLines[:len(top)], "\n") == strings.Join(top, "\n") &&
			strings.Join(gotLines[len(gotLines)-len(live):], "\n") == strings.Join(live, "\n")
	}
	// The redraw at the new width may come a while after the resize on a
	// loaded machine: wait for it.
	if s, ok := tm.poll(resized); !ok {
		t.Errorf("screen after resize:\n%s\n--- want (top and bottom of)\n%s", s, want)
	}
}

func TestTUIResume(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Text("The **first** answer."))
	r := e.run("-p", "First question")
	if r.code != 0 {
		t.Fatalf("headless run: exit %d: %s", r.code, r.stderr)
	}
	tm := e.startTUI("--resume")
	tm.golden("resumed", tm.waitFor("Resumed session"))
}

func TestTUIPromptInteractiveNeedsTerminal(t *testing.T) {
	e := newEnv(t)
	r := e.run("-i", "hello")
	if r.code != 42 || !strings.Contains(r.stderr, "--prompt-interactive flag cannot be used when input is piped") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestTUIShellMode(t *testing.T) {
	e := newEnv(t)
	e.write("hello.txt", "hi\n")
	tm := e.startTUI()
	tm.submit("!ls")
	tm.waitFor("(exit 0)")
	// The command and its output reach the model with the next prompt.
	e.srv.Enqueue(fakegemini.Text("I saw hello.txt."))
	tm.submit("What did you see?")
	s := tm.waitFor("I saw hello.txt.")
	if !strings.Contains(s, "hello.txt") {
		t.Errorf("no ls output on screen:\n%s", s)
	}
	reqs := e.srv.Requests()
	if got := mustJSON(reqs[len(reqs)-1].Contents); !strings.Contains(got, "I ran the following shell command") || !strings.Contains(got, "hello.txt") {
		t.Errorf("the shell command is not in the conversation: %s", got)
	}
}
