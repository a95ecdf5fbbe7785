package mcp

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
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
	blocks := mcptest.HugeBlocks(300)
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
