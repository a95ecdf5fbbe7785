package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/npmtest"
)

// BenchmarkEditDiagnosticsGopls is the time an edit spends on gopls's
// diagnostics (BeforeEdit, the write, AfterEdit), in a one-file module
// and a 200-file one; each edit alternately breaks and fixes a type.
// It reports the note's bytes per edit (what the functionResponse
// grows by), gopls's memory and this process's heap, apart.
//
//	go test -run XXX -bench EditDiagnostics ./internal/lsp/
func BenchmarkEditDiagnosticsGopls(b *testing.B) {
	bin := npmtest.LookPath(b, "gopls")
	for _, files := range []int{1, 200} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			ws := b.TempDir()
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			write("go.mod", "module example.com/bench\n\ngo 1.22\n")
			for i := 1; i < files; i++ {
				write(fmt.Sprintf("f%03d.go", i), fmt.Sprintf("package main\n\n// F%03d adds.\nfunc F%03d(a, b int) int { return a + b + %d }\n", i, i, i))
			}
			main := filepath.Join(ws, "main.go")
			write("main.go", "package main\n\nfunc main() {\n\tvar n int = 1\n\t_ = n\n}\n")
			m := New(Options{Servers: []ServerConfig{{Name: "gopls", Command: bin, Extensions: []string{".go"}, RootMarkers: []string{"go.mod"}, Configured: true}}, Workspace: ws, Wait: time.Minute})
			b.Cleanup(func() { m.Close() })
			ctx := context.Background()
			texts := []string{
				"package main\n\nfunc main() {\n\tvar n int = \"one\"\n\t_ = n\n}\n",
				"package main\n\nfunc main() {\n\tvar n int = 2\n\t_ = n\n}\n",
			}
			edit := func(i int) string {
				old := texts[(i+1)%2]
				m.BeforeEdit(ctx, main, &old)
				write("main.go", texts[i%2])
				return m.AfterEdit(ctx, main, texts[i%2])
			}
			// The first edit starts gopls and loads the module: measured
			// apart, as the cold start.
			start := time.Now()
			if note := edit(0); note == "" {
				b.Fatal("no diagnostic for the type error")
			}
			cold := time.Since(start)
			edit(1)
			noteBytes := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				noteBytes += len(edit(i))
			}
			b.StopTimer()
			b.ReportMetric(float64(cold.Milliseconds()), "cold-ms")
			// Half the edits break the type (a note), half fix it (none).
			b.ReportMetric(float64(noteBytes)/float64(b.N), "note-bytes/op")
			if st := m.Status(); len(st) == 1 {
				b.ReportMetric(float64(st[0].MemoryKB)/1024, "gopls-MB")
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "castor-heap-MB")
		})
	}
}
