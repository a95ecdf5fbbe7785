package acp_test

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestACPToolsKeepSIGPIPE: castor --acp catches SIGPIPE for its own
// writes but must not ignore it, since an ignored signal is inherited
// through exec and the programs a shell call starts (yes | head) rely on
// dying of it. Read from /proc, so Linux only.
func TestACPToolsKeepSIGPIPE(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads the signal mask from /proc/self/status")
	}
	e := e2etest.New(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "grep SigIgn /proc/self/status > sigign.txt"}),
		fakegemini.Text("done"))
	w := startRawACP(t, e, "--approval-mode", "yolo")
	w.prompt(3, w.session(e.WS), "look")
	if res, _ := w.answer(3)["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Fatalf("prompt answer %v; stderr:\n%s", res, w.Stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(e.WS, "sigign.txt"))
	if err != nil {
		t.Fatal(err)
	}
	mask, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(string(b), "SigIgn:")), 16, 64)
	if err != nil {
		t.Fatalf("SigIgn line %q: %v", b, err)
	}
	const sigpipe = 13
	if mask&(1<<(sigpipe-1)) != 0 {
		t.Errorf("the shell call's program ignores SIGPIPE (SigIgn %016x)", mask)
	}
}

// TestACPClientStopsReading: a client whose reading end of castor's stdout
// closes mid-turn while its input stays open is gone all the same: castor
// says so in one line on stderr, ends the turn, closes the session with
// the turn recorded and exits 0, instead of serving no one until its input
// closes.
func TestACPClientStopsReading(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("first chunk", " second chunk", " third chunk").Slow(200*time.Millisecond))
	w := startRawACP(t, e)
	w.prompt(3, w.session(e.WS), "unread")
	w.LineWhere("first chunk", func(line string) bool { return strings.Contains(line, "first chunk") })
	w.CloseStdout() // the client stops reading; its input stays open
	if err := w.Wait(); err != nil {
		t.Errorf("exit: %v; stderr:\n%s", err, w.Stderr)
	}
	// The sandbox's notice aside (on by default for ACP).
	lines := slices.DeleteFunc(strings.SplitAfter(w.Stderr.String(), "\n"), func(l string) bool { return strings.HasPrefix(l, "Sandbox: ") })
	if s := strings.Join(lines, ""); strings.Count(s, "\n") != 1 || !strings.Contains(s, "the client stopped reading") || !strings.Contains(s, "broken pipe") {
		t.Errorf("stderr %q, want one line saying the client stopped reading", s)
	}
	assertTurnKept(e, t, w.Stderr.String(), "unread")
}
