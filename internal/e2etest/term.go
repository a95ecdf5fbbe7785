package e2etest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/internal/npmtest"
)

// The interactive terminal's end-to-end tests run the built castor in a
// real terminal, tmux, type into it with send-keys and compare what
// capture-pane shows with golden screens under testdata/tui (go test
// -run TUI -update rewrites them).

// Terminal size of every test, so that the screens are stable.
const tuiWidth, tuiHeight = 100, 30

// Term is castor running in its own tmux server.
type Term struct {
	t *testing.T
	e *Env
	// sock is the server's socket, in a folder of the test's own.
	sock string
}

// StartTUI opens castor with args in a tmux pane sized 100×30 and waits
// for the session to be ready.
func (e *Env) StartTUI(args ...string) *Term {
	e.T.Helper()
	return e.StartTUIAfter("", args...)
}

// StartTUIAfter is StartTUI with a shell command run first in the pane,
// as a user's earlier work stays on the screen castor opens in.
func (e *Env) StartTUIAfter(before string, args ...string) *Term {
	e.T.Helper()
	tm := e.LaunchTUI(before, args...)
	// The first frame comes before the session is assembled; a prompt
	// typed then is queued with a notice of its own, which is not the
	// screen the tests expect. Start-up is over when the footer no longer
	// says so.
	tm.WaitUntil("the session ready", func(s string) bool {
		footer := s[strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")+1:]
		return strings.Contains(footer, "context left") && !strings.Contains(footer, StartingStatus)
	})
	// A start-up frame left in the scrollback above the live area is a
	// rendering fault users see too, but only when the first frame comes
	// late (a loaded machine): it is reported, and the screens the tests
	// read leave it out (dropStartupFrames).
	if raw := tm.capture(); dropStartupFrames(raw) != raw {
		e.T.Logf("a start-up frame stayed on screen above the live area:\n%s", raw)
	}
	return tm
}

// LaunchTUI opens castor as StartTUIAfter does, without waiting for
// anything: for a test of what comes before the session is ready (a
// dialog at start-up).
func (e *Env) LaunchTUI(before string, args ...string) *Term {
	t := e.T
	t.Helper()
	tmux := npmtest.LookPath(t, "tmux") // skips without tmux, fails under CI=true
	bin := Binary(t)
	// A socket path must be short (about 100 bytes), which a test's
	// TempDir may not be.
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", tmuxDirPrefix, os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	tm := &Term{t: t, e: e, sock: filepath.Join(dir, "s")}
	// The server is this test binary's child (-D: no daemon), so that it
	// and castor in its pane end with the test binary even when go test's
	// timeout kills it and no cleanup runs.
	server := DieWithTest(exec.Command(tmux, "-D", "-S", tm.sock, "-f", "/dev/null"))
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command(tmux, "-S", tm.sock, "kill-server").Run()
		server.Process.Kill()
		server.Wait()
		os.RemoveAll(dir)
	})
	for deadline := time.Now().Add(ScreenWithin); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(tm.sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tmux -D made no socket at %s", tm.sock)
		}
	}
	envs := []string{
		"HOME=" + e.Home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"CASTOR_RETRY_BASE_DELAY=5ms",
		"EDITOR=true",
	}
	envs = append(envs, e.TUIEnv...)
	cmd := before + "cd " + shellQuote(e.WS) + " && env -i"
	for _, kv := range envs {
		cmd += " " + shellQuote(kv)
	}
	cmd += " " + shellQuote(bin)
	for _, a := range args {
		cmd += " " + shellQuote(a)
	}
	// The pane stays after castor exits, so its last words can be read;
	// the pane ends with its server.
	cmd += "; echo '[exited]'; sleep 600"
	tm.Tmux("new-session", "-d", "-s", "main", "-x", fmt.Sprint(tuiWidth), "-y", fmt.Sprint(tuiHeight), cmd)
	return tm
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Tmux runs a tmux command on this terminal's server.
func (tm *Term) Tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Keys sends tmux key names (Enter, Escape, C-c, BTab…).
func (tm *Term) Keys(keys ...string) {
	tm.t.Helper()
	tm.Tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// TypeText types text literally.
func (tm *Term) TypeText(s string) {
	tm.t.Helper()
	tm.Tmux("send-keys", "-t", "main", "-l", s)
}

// Submit types s and presses Enter, as a user sends a line.
func (tm *Term) Submit(s string) {
	tm.t.Helper()
	tm.TypeText(s)
	tm.Keys("Enter")
}

// capture is the pane's scrollback and visible screen, trailing blanks
// removed.
func (tm *Term) capture() string {
	tm.t.Helper()
	out := tm.Tmux("capture-pane", "-p", "-t", "main", "-S", "-", "-E", "-")
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n") + "\n"
}

// Screen is the pane's scrollback and visible screen, trailing blank
// lines removed, without a start-up frame left above the live area.
func (tm *Term) Screen() string {
	tm.t.Helper()
	return dropStartupFrames(tm.capture())
}

// dropStartupFrames removes a live area left above castor's banner. The
// banner is the first thing castor prints, above its first frame; when
// that frame comes late (a loaded machine), Bubble Tea's inline renderer
// may print the banner below the frame instead of above it, leaving a
// stale copy of the live area (rules, input, footer, maybe the spinner)
// in the scrollback, between the shell's earlier output and the banner.
// Users see it too, but it says nothing about what a test checks.
func dropStartupFrames(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	b := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "Castor ") && strings.Contains(l, "/help for commands") {
			b = i
			break
		}
	}
	if b < 0 {
		return s
	}
	// Castor runs as tmux's command, so nothing but such a frame can stand
	// above the banner; a frame drawn while an answer streamed holds the
	// answer's lines too (rewrapped by a resize), which is why every line
	// above the banner goes once a rule and the footer show it is a frame.
	rule, footer := false, false
	for _, l := range lines[:b] {
		rule = rule || isRule(l)
		footer = footer || strings.Contains(l, "context left") || strings.Contains(l, "(shift+tab)") || strings.Contains(l, StartingStatus)
	}
	if !rule || !footer {
		return s
	}
	return strings.Join(lines[b:], "\n") + "\n"
}

func isRule(l string) bool {
	l = strings.TrimSpace(l)
	return l != "" && strings.Trim(l, "─") == ""
}

// How the screen is polled. A screen counts as settled once it has been
// the same for stablePolls polls in a row: castor draws a frame in several
// writes and prints above its live area before it redraws it, so a single
// capture can catch a frame half drawn. On a loaded machine castor or tmux
// may also stall for longer than that between two writes, which is why
// Golden waits for the screen it expects rather than for any settled one.
// The deadline is generous: it only bounds a hang.
const (
	// PollEvery is how often the screen is read.
	PollEvery   = 50 * time.Millisecond
	stablePolls = 4
	// ScreenWithin bounds the wait for a screen: a hang, not a timing.
	ScreenWithin = 60 * time.Second
)

// WaitUntil polls the normalised screen until ok holds for a screen that
// has stopped changing, and returns it. On the deadline it fails the test
// with what and the last screen.
func (tm *Term) WaitUntil(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	s, good := tm.Poll(ok)
	if !good {
		tm.t.Fatalf("screen never showed %s:\n%s", what, s)
	}
	return s
}

// WaitRaw polls the screen as it is (blank rows kept, not normalised)
// until ok holds, without waiting for it to settle: for a screen that
// keeps changing, as while an answer streams.
func (tm *Term) WaitRaw(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(ScreenWithin)
	for {
		s := tm.Screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %s:\n%s", what, s)
		}
		time.Sleep(PollEvery)
	}
}

// Poll is WaitUntil without the failure: it reports whether ok held
// before the deadline, and the last screen either way.
func (tm *Term) Poll(ok func(screen string) bool) (string, bool) {
	tm.t.Helper()
	deadline := time.Now().Add(ScreenWithin)
	last, same := "", 0
	for {
		s := tm.Normalise(tm.Screen())
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
		time.Sleep(PollEvery)
	}
}

// WaitFor waits until the screen shows want and stops changing.
func (tm *Term) WaitFor(want string) string {
	tm.t.Helper()
	return tm.WaitUntil(fmt.Sprintf("%q", want), func(s string) bool { return strings.Contains(s, want) })
}

// Idle says the screen shows no work in progress: no start-up, no
// spinner.
func Idle(s string) bool {
	return !strings.Contains(s, StartingStatus) && !strings.Contains(s, "esc to cancel")
}

// StartingStatus is the footer's word while the session is assembled.
const StartingStatus = "starting…"

var (
	spinnerFrames = regexp.MustCompile(`[⣾⣽⣻⢿⡿⣟⣯⣷]`)
	elapsed       = regexp.MustCompile(`esc to cancel, \d+s`)
	uuidRE        = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	tmpRE         = regexp.MustCompile(`/tmp/castor-edit-[^ ]*`)
	// Background shells are named by their process ids, whose width
	// moves what follows them on the line.
	pidRE  = regexp.MustCompile(`\(PID: \d+\)`)
	spaces = regexp.MustCompile(` {2,}`)
	// A long workspace path is cut on the left in the footer.
	cutWS = regexp.MustCompile(`(?m)^…\S*/ws  `)
)

// Normalise replaces what changes from run to run: paths, ids, the
// spinner and the elapsed time.
func (tm *Term) Normalise(s string) string {
	s = strings.ReplaceAll(s, tm.e.WS, "<ws>")
	s = cutWS.ReplaceAllString(s, "<ws>  ")
	s = strings.ReplaceAll(s, tm.e.Home, "<home>")
	s = strings.ReplaceAll(s, tm.e.Srv.URL, "<server>")
	s = spinnerFrames.ReplaceAllString(s, "*")
	s = elapsed.ReplaceAllString(s, "esc to cancel, Ns")
	s = uuidRE.ReplaceAllString(s, "<session-id>")
	s = tmpRE.ReplaceAllString(s, "<tmp>")
	s = normalisePIDs(s)
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

// normalisePIDs names every process id <pid>, the spaces of a line
// holding one collapsed.
func normalisePIDs(s string) string {
	if !pidRE.MatchString(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if pidRE.MatchString(l) {
			lines[i] = spaces.ReplaceAllString(pidRE.ReplaceAllString(l, "(PID: <pid>)"), " ")
		}
	}
	return strings.Join(lines, "\n")
}

// Golden compares the screen with testdata/tui/name.txt. The screen the
// caller waited for may still be on its way to the one expected (the
// spinner not yet gone, output printed above a live area not yet redrawn),
// so while it differs Golden keeps reading the screen until it matches,
// and fails with the last settled screen at the deadline. With -update it
// writes the first settled, idle screen.
func (tm *Term) Golden(name, screen string) {
	tm.t.Helper()
	name = "tui/" + name + ".txt"
	if golden.Update() {
		got := screen
		if !Idle(got) {
			got = tm.WaitUntil("an idle screen for "+name, Idle)
		}
		golden.Write(tm.t, name, got)
		return
	}
	want := string(golden.Read(tm.t, name))
	if screen == want {
		return
	}
	if got, ok := tm.Poll(func(s string) bool { return s == want }); !ok {
		tm.t.Errorf("screen %s differs from the golden file (-update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// T is the test the terminal belongs to, for helpers that compare what
// it shows in their own way.
func (tm *Term) T() *testing.T { return tm.t }
