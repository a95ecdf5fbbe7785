package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/castor-dev/castor/mcp/mcptest"
)

// TestHugeRemoteResult: a 300 MB tool result from a streamable HTTP
// server is cut while it is read: the model gets Gemini CLI's truncated
// output naming a file that holds the whole text, and memory stays far
// below the result's size (it took 3.8 GB when the SDK read it whole).
func TestHugeRemoteResult(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 300 MB")
	}
	// Under -race every byte costs several times the time and memory, so
	// the result is 50 MB: still far past what the bound lets the heap
	// hold (it took over a GB before the bound). The 300 MB run through
	// the built binary is e2e/headless's TestHugeMCPResult.
	size := 300
	if raceDetector {
		size = 50
	}
	blocks := mcptest.HugeBlocks(size)
	for _, sse := range []bool{true, false} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			hs := httptest.NewServer(mcptest.HugeResult(blocks, sse))
			t.Cleanup(hs.Close)
			dir := t.TempDir()
			m, d := startManager(t, Options{
				Servers:     []*ServerConfig{{Name: "big", HTTPURL: hs.URL}},
				OutputLimit: 40000, OutputDir: dir,
			})
			if st, _ := m.Status("big"); st.Status != StatusConnected {
				t.Fatalf("status = %+v\n%s", st, d)
			}

			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				var ms runtime.MemStats
				for {
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
					select {
					case <-stop:
						return
					default:
						runtime.Gosched()
					}
				}
			}()
			r := run(t, m, "huge", nil)
			close(stop)
			<-sampled
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("peak HeapInuse %d MiB, allocated %d MiB during the call", peak.Load()>>20, alloc>>20)
			if peak.Load() > 200<<20 || alloc > 200<<20 {
				t.Errorf("reading the result took %d MiB of heap (allocated %d MiB), want under 200 MiB", peak.Load()>>20, alloc>>20)
			}

			if r.Error != nil {
				t.Fatalf("call failed: %v", r.Error)
			}
			// The notice is fenced as every remote server's output is.
			text := strings.TrimSuffix(strings.TrimPrefix(r.LLMParts[0].Text, "<untrusted_context>\n"), "\n</untrusted_context>")
			head, _, _ := strings.Cut(text, "\n")
			file, ok := strings.CutPrefix(head, "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: ")
			if !ok {
				t.Fatalf("the model's text does not start with the truncation notice: %.300q", text)
			}
			if len(text) > 60000 {
				t.Errorf("the model gets %d bytes", len(text))
			}
			if !strings.HasSuffix(text, strings.Repeat(mcptest.HugeBlockText, 3)) || !strings.Contains(text, "\n"+mcptest.HugeBlockText) {
				t.Errorf("the text's start or end is not the decoded result: %.300q … %.300q", text, text[len(text)-300:])
			}
			st, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(blocks * len(mcptest.HugeBlockText)); st.Size() != want {
				t.Errorf("%s holds %d bytes, want the whole text's %d", file, st.Size(), want)
			}
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			start := make([]byte, 4*len(mcptest.HugeBlockText))
			if _, err := io.ReadFull(f, start); err != nil || string(start) != strings.Repeat(mcptest.HugeBlockText, 4) {
				t.Errorf("the file starts %q (%v)", start, err)
			}

			// The server stays usable: the next call is answered.
			if r := run(t, m, "huge", nil); r.Error != nil {
				t.Errorf("second call: %v", r.Error)
			}
		})
	}
}

// TestHugeStdioResult: a stdio server's line longer than the bound is
// spooled as a remote one's message is, and the session goes on.
func TestHugeStdioResult(t *testing.T) {
	dir := t.TempDir()
	m, d := startManager(t, Options{
		Servers:     []*ServerConfig{helperConfig(t, "banner", "banner")},
		OutputLimit: 1000, OutputDir: dir, MaxMessageBytes: 1 << 20,
	})
	if st, _ := m.Status("banner"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	r := run(t, m, "big", nil)
	if r.Error != nil {
		t.Fatalf("big: %v", r.Error)
	}
	text := r.LLMParts[0].Text
	_, after, ok := strings.Cut(text, "Output too large. Showing first 200 and last 800 characters. For full output see: ")
	if !ok || len(text) > 2000 || !strings.Contains(text, strings.Repeat("x", 800)) {
		t.Fatalf("big gave the model %d bytes: %.300q", len(text), text)
	}
	file, _, _ := strings.Cut(after, "\n")
	// Spooled while read (mcp_<server>_…), not cut after it was held whole
	// (<tool>_…).
	if !strings.HasPrefix(filepath.Base(file), "mcp_banner_") {
		t.Errorf("the output was not spooled while read: %s", file)
	}
	if st, err := os.Stat(file); err != nil || st.Size() != 17<<20 {
		t.Errorf("the saved output: %v, %v", st, err)
	}
	if r := run(t, m, "echo", map[string]any{"message": "hi"}); r.Error != nil || r.Display != "Echo: hi" {
		t.Errorf("echo after the big result = %+v", r)
	}
}

// FuzzSpooler: whatever a server sends, the spooler does not fail; the
// text of a result, however split and escaped, is saved exactly as
// encoding/json decodes it, and the stand-in answers the message's id.
func FuzzSpooler(f *testing.F) {
	f.Add([]byte("plain"), 3)
	f.Add([]byte("é😀\"\\\n\t\x00\xff"), 1)
	f.Add([]byte(`{"id":"x","result":{"text":"\ud83d"}}`), 5)
	f.Fuzz(func(t *testing.T, text []byte, split int) {
		wire, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": string(text)}}}})
		var want string
		_ = json.Unmarshal(must(json.Marshal(string(text))), &want)
		l := messageLimit{dir: t.TempDir(), server: "s", maxChars: 1 << 20}
		for i, msg := range [][]byte{wire, text} {
			sp := l.newSpooler()
			split := min(max(split, 0), len(msg))
			sp.write(msg[:split])
			sp.write(msg[split:])
			out := sp.finish()
			if i > 0 {
				continue // raw input: only no panic
			}
			var got struct {
				ID     int `json:"id"`
				Result struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &got); err != nil || got.ID != 7 || len(got.Result.Content) != 1 {
				t.Fatalf("stand-in %s: %v", out, err)
			}
			saved, err := os.ReadFile(sp.out.Path())
			if err != nil || string(saved) != want {
				t.Fatalf("saved %q, want %q (%v)", saved, want, err)
			}
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
