package headless_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/mcp/mcptest"
)

// TestSilentModelStream: a model stream that sends one chunk and then
// nothing ends castor -p with an error saying so, instead of hanging
// (CASTOR_STREAM_IDLE_TIMEOUT shortens the 2 minutes of the default).
func TestSilentModelStream(t *testing.T) {
	e := e2etest.New(t, fakegemini.Text("first words ", "never sent").StallAfter(1))
	r := e.RunExtraEnv([]string{"CASTOR_STREAM_IDLE_TIMEOUT=300ms"}, "-p", "hi")
	t.Logf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	if r.Code == 0 {
		t.Fatalf("exit 0 on a silent stream; stdout:\n%s", r.Stdout)
	}
	if want := "the model stream went silent for 300ms after 1 chunk"; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "first words") {
		t.Errorf("the chunk that came is not shown; stdout:\n%s", r.Stdout)
	}
	if n := len(e.Srv.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1 (output had been shown: no retry)", n)
	}

	bad := e.RunExtraEnv([]string{"CASTOR_STREAM_IDLE_TIMEOUT=soon"}, "-p", "hi")
	if bad.Code == 0 || !strings.Contains(bad.Stderr, `CASTOR_STREAM_IDLE_TIMEOUT="soon"`) {
		t.Errorf("a bad CASTOR_STREAM_IDLE_TIMEOUT is not named (exit %d):\n%s", bad.Code, bad.Stderr)
	}
}

// TestTerminateLongStream: SIGTERM while the model streams a long answer
// (16 MiB reached the terminal already) ends castor with 130, and it does
// end: the test fails only on a hang, since it asserts no time. The
// quadratic join that once kept castor busy after the signal (14 s here
// for 16 MiB, minutes for more) is pinned by agent's
// TestCurateMergesStreamedTextByteForByte and BenchmarkCurateStreamedText,
// not by this test.
func TestTerminateLongStream(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signals to a child on Windows")
	}
	const chunk = 4096
	const before = 16 << 20
	// Random words, so that the loop detector sees no chanting.
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := make([]string, 2*before/chunk)
	for i := range pieces {
		b := make([]byte, chunk)
		for j := range b {
			b[j] = "abcdefghijklmnopqrstuvwxyz     "[rng.IntN(31)]
		}
		b[chunk-1] = '\n'
		pieces[i] = string(b)
	}
	e := e2etest.New(t, fakegemini.Text(pieces...).StallAfter(len(pieces)))
	p := e.Start(e2etest.Options{}, "-p", "write a lot")
	read := 0
	p.LineWhere("16 MiB of the answer", func(line string) bool {
		read += len(line) + 1
		return read >= before
	})
	start := time.Now()
	p.Signal(syscall.SIGTERM)
	p.WantExit(130)
	t.Logf("exited %v after SIGTERM; CPU user %v sys %v", time.Since(start), p.Cmd.ProcessState.UserTime(), p.Cmd.ProcessState.SystemTime())
}

// TestHugeMCPResult: castor -p calling a remote MCP tool whose result is
// 300 MB stays far below that in memory (the whole process's peak RSS):
// the model gets the truncated output naming the file that holds it all.
func TestHugeMCPResult(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from Linux's rusage")
	}
	blocks := mcptest.HugeBlocks(300)
	hs := httptest.NewServer(mcptest.HugeResult(blocks, true))
	t.Cleanup(hs.Close)
	e := e2etest.New(t, fakegemini.Call("huge", map[string]any{}), fakegemini.Text("done"))
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"big": map[string]any{"httpUrl": hs.URL, "trust": true}}})
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := e2etest.Command(t, "-p", "call huge")
	cmd.Dir = e.WS
	cmd.Env = e.Environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("peak RSS %d MiB", rss>>20)
	if rss > 200<<20 {
		t.Errorf("castor's peak RSS was %d MiB for a 300 MB result, want under 200 MiB", rss>>20)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; stderr:\n%s", len(reqs), stderr.String())
	}
	got, _ := json.Marshal(reqs[1].LastContent().Parts)
	const notice = "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: "
	_, after, ok := strings.Cut(string(got), notice)
	if !ok || len(got) > 100000 {
		t.Fatalf("the model got %d bytes without the notice: %.500s", len(got), got)
	}
	file, _, _ := strings.Cut(after, `\n`)
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(blocks * len(mcptest.HugeBlockText)); st.Size() != want {
		t.Errorf("%s holds %d bytes, want %d", file, st.Size(), want)
	}
}
