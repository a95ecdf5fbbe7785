package builtin

// Benchmarks of the search tools over Go's own source tree, against
// ripgrep run directly on the same tree (bench/search.sh turns them into
// the ratios of the targets).

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/tool"
)

// searchBenchPatterns are the searches compared: a literal with about a
// thousand matches, a regular expression, and a literal found nowhere
// (all time goes to reading files).
var searchBenchPatterns = []struct{ name, pattern string }{
	{"literal", "NewReader"},
	{"regexp", `func \w+\(ctx context\.Context`},
	{"none", "zqxjv_not_anywhere"},
	// Far more matches than the cap, in every directory: ripgrep is cut
	// short by the cap (bench/startup.sh's tree holds "needle" in a third
	// of its files).
	{"capped", "needle|return"},
}

var (
	goSourceOnce sync.Once
	goSourceDir  string
)

// searchBenchRoot returns $CASTOR_SEARCH_BENCH_ROOT (bench/startup.sh
// points it at a tree of many small files, for the benchmarks only), else
// $(go env GOROOT)/src, or skips.
func searchBenchRoot(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("CASTOR_SEARCH_BENCH_ROOT"); d != "" {
		if _, ok := tb.(*testing.B); ok {
			return d
		}
	}
	goSourceOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return
		}
		d := filepath.Join(strings.TrimSpace(string(out)), "src")
		if r, err := filepath.EvalSymlinks(d); err == nil {
			goSourceDir = r
		}
	})
	if goSourceDir == "" {
		tb.Skip("no GOROOT/src to search")
	}
	return goSourceDir
}

// searchBenchEnv is an Env over root with the ignore filter the engine
// uses, as a session started there would have.
func searchBenchEnv(root string) *Env {
	var mu sync.Mutex
	filters := map[tool.FilterOptions]tool.FileFilter{}
	return &Env{
		Workspace: tool.NewWorkspace(root),
		TempDir:   os.TempDir(),
		Filter: func(o tool.FilterOptions) tool.FileFilter {
			mu.Lock()
			defer mu.Unlock()
			f, ok := filters[o]
			if !ok {
				f = config.NewFileFilter(root, o)
				filters[o] = f
			}
			return f
		},
	}
}

// reportCPU adds the CPU time per operation (this process and the
// programs it ran, user and system) since start, a figure that other
// load on the machine changes less than the wall time.
func reportCPU(b *testing.B, start int64) {
	b.Helper()
	if b.N > 0 {
		b.ReportMetric(float64(cpuTimeNS()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// runSearchBench runs one tool call per iteration and fails on errors.
func runSearchBench(b *testing.B, tl tool.Tool, args map[string]any) {
	b.Helper()
	defer reportCPU(b, cpuTimeNS())
	for b.Loop() {
		_, c, terr := tool.NewRegistry(tl).Prepare(tl.Name(), args, nil)
		if terr != nil {
			b.Fatal(terr.Message)
		}
		r := c.Execute(context.Background(), nil)
		if r.Error != nil {
			b.Fatal(r.Error.Message)
		}
	}
}

// runCommandBench runs a command per iteration, discarding its output.
// Exit status 1 (ripgrep's "no match") is not a failure.
func runCommandBench(b *testing.B, name string, args ...string) {
	b.Helper()
	defer reportCPU(b, cpuTimeNS())
	for b.Loop() {
		cmd := exec.Command(name, args...)
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSearchTool times search_file_content with each backend.
func BenchmarkSearchTool(b *testing.B) {
	root := searchBenchRoot(b)
	env := searchBenchEnv(root)
	rg, _ := exec.LookPath("rg")
	for _, p := range searchBenchPatterns {
		args := map[string]any{"pattern": p.pattern}
		b.Run("backend=ripgrep/"+p.name, func(b *testing.B) {
			if rg == "" {
				npmtest.Missing(b, "rg is not on PATH")
			}
			runSearchBench(b, &grepTool{env: env, rgPath: rg}, args)
		})
		b.Run("backend=go/"+p.name, func(b *testing.B) {
			runSearchBench(b, &grepTool{env: env}, args)
		})
	}
}

// BenchmarkSearchRipgrepDirect times ripgrep itself on the same searches,
// as a user would run it: case-insensitive (as the tool searches), line
// numbers, ripgrep's own thread count.
func BenchmarkSearchRipgrepDirect(b *testing.B) {
	root := searchBenchRoot(b)
	rg := npmtest.LookPath(b, "rg")
	for _, p := range searchBenchPatterns {
		b.Run(p.name, func(b *testing.B) {
			runCommandBench(b, rg, "--ignore-case", "--line-number", "--regexp", p.pattern, root)
		})
	}
}

// BenchmarkSearchGlob times glob "**/*.go" over the tree.
func BenchmarkSearchGlob(b *testing.B) {
	root := searchBenchRoot(b)
	runSearchBench(b, NewGlob(searchBenchEnv(root)), map[string]any{"pattern": "**/*.go"})
}

// BenchmarkSearchRgFiles times `rg --files` over the tree, the listing
// glob is measured against.
func BenchmarkSearchRgFiles(b *testing.B) {
	root := searchBenchRoot(b)
	rg := npmtest.LookPath(b, "rg")
	runCommandBench(b, rg, "--files", root)
}
