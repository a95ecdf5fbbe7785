package acp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
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
	io.WriteString(w.stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	w.answer(1)
	io.WriteString(w.stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+e2etest.MustJSON(e.WS)+`,"mcpServers":[]}}`+"\n")
	res, _ := w.answer(2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	io.WriteString(w.stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"look"}]}}`+"\n")
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
	cmd := e2etest.Command(t, "--acp")
	cmd.Dir, cmd.Env = e.WS, e.Environ()
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	next := func(match string) string {
		t.Helper()
		for sc.Scan() {
			if strings.Contains(sc.Text(), match) {
				return sc.Text()
			}
		}
		t.Fatalf("stdout ended before %s; stderr:\n%s", match, stderr.String())
		return ""
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	next(`"id":1`)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+e2etest.MustJSON(e.WS)+`,"mcpServers":[]}}`+"\n")
	var m struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(next(`"id":2`)), &m)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+m.Result.SessionID+`","prompt":[{"type":"text","text":"unread"}]}}`+"\n")
	next("first chunk")
	stdout.Close() // the client stops reading; its input stays open
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute): // a hang, not a timing assertion
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("castor --acp went on serving a client that stopped reading; stderr:\n%s", stderr.String())
	}
	// The sandbox's notice aside (on by default for ACP).
	lines := slices.DeleteFunc(strings.SplitAfter(stderr.String(), "\n"), func(l string) bool { return strings.HasPrefix(l, "Sandbox: ") })
	if s := strings.Join(lines, ""); strings.Count(s, "\n") != 1 || !strings.Contains(s, "the client stopped reading") || !strings.Contains(s, "broken pipe") {
		t.Errorf("stderr %q, want one line saying the client stopped reading", s)
	}
	assertTurnKept(e, t, stderr.String(), "unread")
}
