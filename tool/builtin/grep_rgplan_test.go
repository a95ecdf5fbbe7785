package builtin

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

func TestRgPlanRules(t *testing.T) {
	defer func(s []int) { rgChunkSizes = s }(rgChunkSizes)
	rgChunkSizes = []int{1, 4}
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "src/x/1.go", "src/x/2.go", "src/x/3.go", "src/y.go", "z.txt"} {
		fsWrite(t, dir, f, "x\n")
	}
	p := newRgPlan(dir, nil)
	if p == nil {
		t.Fatal("no plan for a directory of three entries")
	}
	// src is opened, then src/x: the first runs take one file, then four
	// entries at whatever depth, then the rest.
	var units []string
	for _, u := range p.units {
		units = append(units, u.rel)
	}
	if got, want := strings.Join(units, " "), "a.txt src/x/1.go src/x/2.go src/x/3.go src/y.go z.txt"; got != want {
		t.Fatalf("units %q, want %q", got, want)
	}
	want := []string{
		"/*\n!/a.txt\n!/src\n/src/*\n!/src/x\n/src/x/*\n",
		"/*\n!/src\n/src/*\n!/src/y.go\n!/src/x\n/src/x/*\n!/src/x/1.go\n!/src/x/2.go\n!/src/x/3.go\n",
		// The last run hides only what was searched.
		"/a.txt\n/src/x/1.go\n/src/x/2.go\n/src/x/3.go\n/src/y.go\n",
	}
	for i, w := range want {
		if u := p.pending(); u == "" {
			t.Fatalf("run %d: nothing pending", i)
		}
		rules, ok := p.next(dir, true)
		if !ok || rules != w {
			t.Errorf("run %d: rules\n%s\nwant\n%s", i, rules, w)
		}
	}
	if _, ok := p.next(dir, true); ok || p.pending() != "" {
		t.Error("a fourth run after the last")
	}
}

func TestRgPlainName(t *testing.T) {
	for name, want := range map[string]bool{
		"main.go": true, "a b": true, "π.txt": true, ".hidden": true,
		"": false, "a*": false, "!x": false, "#x": false, "[x]": false, "a\\b": false,
		" x": false, "x ": false, "a\nb": false, "\xff": false, "{a,b}": false, "a?": false,
	} {
		if got := rgPlainName(name); got != want {
			t.Errorf("rgPlainName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRgPlanMatchesOneRun checks that a search split into runs gives the
// answer one ripgrep run over the whole tree gives, whatever the ignore
// files say (a .gitignore whitelisting a file every run then reads, an
// .ignore only ripgrep honours, ignored and excluded directories) and
// whatever the caps, and that a dense search stops after its first runs.
func TestRgPlanMatchesOneRun(t *testing.T) {
	rg := npmtest.LookPath(t, "rg")
	// Sizes for a tree of about 130 entries: three runs over it.
	defer func(s []int) { rgChunkSizes = s }(rgChunkSizes)
	rgChunkSizes = []int{16, 64}
	env, ws := fsTestEnv(t)
	rnd := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		return []string{"alpha", "beta", "needle", "gamma", "NEEDLE here", "delta"}[rnd.IntN(6)]
	}
	file := func(rel string, lines int) {
		var b strings.Builder
		for range lines {
			b.WriteString(word() + "\n")
		}
		fsWrite(t, ws, rel, b.String())
	}
	for i := range 30 {
		file(fmt.Sprintf("d%02d/f%d.txt", i, i), 1+rnd.IntN(40))
		file(fmt.Sprintf("d%02d/sub/g%d.txt", i, i), 1+rnd.IntN(10))
		if i%3 == 0 {
			file(fmt.Sprintf("top%02d.txt", i), 1+rnd.IntN(5))
		}
	}
	file("ign/i.txt", 20)
	file("rgonly/r.txt", 20)
	file("keep.txt", 20)
	file("dist/d.txt", 20)
	file("z.log", 20)
	fsWrite(t, ws, ".gitignore", "ign/\n!keep.txt\n")
	fsWrite(t, ws, ".ignore", "rgonly/\n")
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "init", "-q", ws).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	env.Filter = searchBenchEnv(ws).Filter
	gt := &grepTool{env: env, rgPath: rg}
	for _, args := range []map[string]any{
		{"pattern": "needle"},
		{"pattern": "needle", "total_max_matches": 1.0},
		{"pattern": "needle", "total_max_matches": 7.0, "after": 2.0},
		{"pattern": "needle", "total_max_matches": 40.0, "before": 1.0, "max_matches_per_file": 2.0},
		{"pattern": "needle", "total_max_matches": 25.0, "exclude_pattern": "here"},
		{"pattern": "needle", "total_max_matches": 1000.0},
		{"pattern": "gamma", "total_max_matches": 3.0, "include": "g*.txt"},
		{"pattern": "nowhere"},
		{"pattern": "n.w.h.e.r.e"},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			c, terr := fsPrepare(gt, "", args)
			if terr != nil {
				t.Fatal(terr.Message)
			}
			call := c.(*grepCall)
			split, err := call.searchRipgrep(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			runs := call.rgRuns
			whole := &rgKept{o: call.o, keep: call.newKeep()}
			if err := call.runRipgrep(t.Context(), "", whole); err != nil {
				t.Fatal(err)
			}
			got, want := call.format(call.postProcess(split)).LLMText, call.format(call.postProcess(whole.lines)).LLMText
			if got != want {
				t.Errorf("%d runs and one run disagree:\n--- runs ---\n%s\n--- one run ---\n%s", runs, grepHead(got), grepHead(want))
			}
			for _, gone := range []string{"ign/", "rgonly/", "dist/", "z.log"} {
				if strings.Contains(got, "File: "+gone) {
					t.Errorf("%s searched:\n%s", gone, grepHead(got))
				}
			}
			if n := strings.Count(got, "File: keep.txt\n"); n > 1 {
				t.Errorf("keep.txt listed %d times", n)
			}
			if args["total_max_matches"] == 1.0 && runs != 1 {
				t.Errorf("a search capped at one match ran ripgrep %d times, want 1", runs)
			}
			// A search whose first entries cannot hold a match (none holds
			// its literal) is one run; without a literal to look for, a
			// first run without a match goes on with the rest at once.
			// Matches fewer than the cap take every run.
			if args["pattern"] == "nowhere" && runs != 1 {
				t.Errorf("a search finding nothing ran ripgrep %d times, want 1", runs)
			}
			if args["pattern"] == "n.w.h.e.r.e" && runs != 2 {
				t.Errorf("a search without a literal finding nothing ran ripgrep %d times, want 2", runs)
			}
			if args["total_max_matches"] == 1000.0 && runs != len(rgChunkSizes)+1 {
				t.Errorf("a search finding fewer matches than its cap ran ripgrep %d times, want %d", runs, len(rgChunkSizes)+1)
			}
		})
	}
}

// TestRgPlanFallsBack checks the directories searched in one run: a name
// no ignore rule can hold literally, and a single entry.
func TestRgPlanFallsBack(t *testing.T) {
	for name, files := range map[string][]string{
		"glob character": {"a.txt", "b[1].txt", "c.txt"},
		"single file":    {"only.txt"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if p := newRgPlan(dir, nil); p != nil {
				t.Errorf("plan %v, want one run", p.units)
			}
		})
	}
}

// TestRgPlanSparseRuns checks when a search that found nothing yet takes
// every entry left: after a first run that searched a full first size,
// but not after one of a few files standing before a big folder (Go's
// src/: Make.dist, all.bash, ... then archive/), where matches may still
// be everywhere.
func TestRgPlanSparseRuns(t *testing.T) {
	defer func(s []int) { rgChunkSizes = s }(rgChunkSizes)
	rgChunkSizes = []int{8, 16}
	for _, tt := range []struct {
		name  string
		files []string
		runs  int // runs when no run finds a match
	}{
		// big/ is opened: its first files fill the first run.
		{"few files, then a big folder", []string{"a.txt", "b.txt", "big/1", "big/2", "big/3", "big/4", "big/5", "big/6", "c/1", "d/1", "e/1", "f/1", "g/1", "h/1", "i/1", "j/1", "k/1", "l/1", "m/1", "n/1", "o/1", "p/1", "q/1"}, 2},
		// Four folders down there is still no file: the first run stays
		// small and the next one is not the last.
		{"few files, then a deep folder", []string{"a.txt", "b.txt", "d1/d2/d3/d4/d5/1", "d1/d2/d3/d4/d5/2", "d1/d2/d3/d4/d5/3", "d1/d2/d3/d4/d5/4", "d1/d2/d3/d4/d5/5", "d1/d2/d3/d4/d5/6", "e/1", "f/1", "g/1", "h/1", "i/1", "j/1", "k/1", "l/1", "m/1", "n/1", "o/1", "p/1", "q/1", "r/1"}, 3},
		{"a full first run", []string{"a1", "a2", "a3", "a4", "b/1", "c/1", "d/1", "e/1", "f/1", "g/1", "h/1", "i/1", "j/1", "k/1", "l/1", "m/1", "n/1", "o/1"}, 2},
	} {
		dir := t.TempDir()
		for _, f := range tt.files {
			fsWrite(t, dir, f, "x\n")
		}
		p := newRgPlan(dir, nil)
		if p == nil {
			t.Fatalf("%s: no plan", tt.name)
		}
		runs := 0
		for {
			if _, ok := p.next(dir, false); !ok {
				break
			}
			runs++
		}
		if runs != tt.runs {
			t.Errorf("%s: %d runs, want %d", tt.name, runs, tt.runs)
		}
	}
}

// TestRgPlanFirstRunMayMatch: the first run is skipped (one run over
// everything) only when no file it would search holds the literal every
// match holds; a file ripgrep would skip anyway does not count, and what
// the probe cannot read cheaply counts as a match.
func TestRgPlanFirstRunMayMatch(t *testing.T) {
	defer func(s []int) { rgChunkSizes = s }(rgChunkSizes)
	rgChunkSizes = []int{8, 16}
	// The first run: a/1 … a/4 (a/ opened), b.txt, c/1, c/2; with one
	// more entry in a/, c/ goes to the next run.
	base := []string{"a/1", "a/2", "a/3", "a/4", "b.txt", "c/1", "c/2", "d/1", "e/1", "f/1", "g/1", "h/1", "i/1", "j/1", "k/1", "l/1", "m/1", "n/1", "o/1"}
	for _, tt := range []struct {
		name    string
		extra   map[string]string // more files, and their content
		include string
		link    bool // a/0 is a link to a later file holding the literal
		want    bool
	}{
		{name: "nowhere", want: false},
		{name: "in a file of the first run", extra: map[string]string{"a/3": "x needle x\n"}, want: true},
		{name: "in a file of a later run only", extra: map[string]string{"o/1": "needle\n"}, want: false},
		{name: "folded", extra: map[string]string{"c/2": "NeEdLe\n"}, want: true},
		{name: "in a folder ripgrep never enters", extra: map[string]string{"a/node_modules/x.js": "needle\n"}, want: false},
		{name: "in a file ripgrep excludes", extra: map[string]string{"a/3.log": "needle\n"}, want: false},
		{name: "in a file the include glob leaves out", extra: map[string]string{"b.txt": "needle\n"}, include: "*.go", want: false},
		{name: "in a file the include glob takes", extra: map[string]string{"a/2.go": "needle\n"}, include: "*.go", want: true},
		{name: "in a binary file", extra: map[string]string{"b.txt": "\x00needle\n"}, want: true},
		{name: "past what the probe reads", extra: map[string]string{"b.txt": strings.Repeat("x", rgProbeBytes+1)}, want: true},
		{name: "behind a link ripgrep does not follow", link: true, want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range base {
				fsWrite(t, dir, f, "hay\n")
			}
			for f, content := range tt.extra {
				fsWrite(t, dir, f, content)
			}
			if tt.link {
				if err := os.Symlink(filepath.Join(dir, "o", "1"), filepath.Join(dir, "a", "0")); err != nil {
					t.Skip("no symlinks here:", err)
				}
				if err := os.WriteFile(filepath.Join(dir, "o", "1"), []byte("needle\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := newRgPlan(dir, nil)
			if p == nil {
				t.Fatal("no plan")
			}
			if got := p.firstRunMayMatch(dir, newGrepPrefilter("(?i)needle"), tt.include); got != tt.want {
				t.Errorf("firstRunMayMatch = %v, want %v", got, tt.want)
			}
		})
	}
	// A first run of a few files before a deep folder tells nothing: a
	// miss there would not end the plan, so it is never skipped.
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", "d1/d2/d3/d4/d5/1", "d1/d2/d3/d4/d5/2", "d1/d2/d3/d4/d5/3", "d1/d2/d3/d4/d5/4", "d1/d2/d3/d4/d5/5", "d1/d2/d3/d4/d5/6", "e/1", "f/1", "g/1", "h/1", "i/1", "j/1", "k/1", "l/1", "m/1", "n/1", "o/1", "p/1", "q/1", "r/1"} {
		fsWrite(t, dir, f, "hay\n")
	}
	if p := newRgPlan(dir, nil); p == nil || !p.firstRunMayMatch(dir, newGrepPrefilter("(?i)needle"), "") {
		t.Error("a first run too small to tell was skipped")
	}
	// A first run that is one folder (the first run takes at least one
	// entry) too big to read cheaply is left to ripgrep.
	dir = t.TempDir()
	for i := range 200 {
		fsWrite(t, dir, fmt.Sprintf("a/b/c/d/e/%03d", i), "hay\n")
	}
	for _, f := range []string{"f/1", "g/1", "h/1", "i/1", "j/1", "k/1", "l/1", "m/1", "n/1", "o/1", "p/1", "q/1", "r/1", "s/1", "t/1"} {
		fsWrite(t, dir, f, "hay\n")
	}
	if p := newRgPlan(dir, nil); p == nil || p.units[0].rel != "a" || !p.firstRunMayMatch(dir, newGrepPrefilter("(?i)needle"), "") {
		t.Error("a first run of a folder too big to probe was skipped")
	}
}
