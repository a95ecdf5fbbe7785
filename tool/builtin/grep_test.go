package builtin

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/tool"
)

// grepStrategies returns the search strategies to test, each as a tool
// forced onto it. A strategy whose program is missing is nil: its subtest
// reports it (npmtest.Missing).
func grepStrategies(t *testing.T, env *Env) map[string]*grepTool {
	t.Helper()
	out := map[string]*grepTool{"walker": {env: env}, "git grep": nil, "ripgrep": nil}
	if git, err := exec.LookPath("git"); err == nil {
		out["git grep"] = &grepTool{env: env, gitPath: git}
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		out["ripgrep"] = &grepTool{env: env, rgPath: rg}
	}
	return out
}

// grepWorkspace builds a small workspace, a git work tree when git exists.
func grepWorkspace(t *testing.T) (*Env, string) {
	t.Helper()
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "README.md", "# Demo project\n\nThis is the README of the demo project.\nIt has three lines of body text.\n")
	fsWrite(t, ws, "a.txt", "hello world\nnothing here\nsay Hello again\n")
	fsWrite(t, ws, "sub/b.go", "package sub\n\n// hello from go\nfunc f() {}\n")
	fsWrite(t, ws, "sub/deeper/c.go", "package deeper // HELLO\n")
	fsWrite(t, ws, "long.txt", "start "+strings.Repeat("z", 2100)+" hello\n")
	fsWrite(t, ws, "bin.dat", "hello\x00binary\n")
	fsWrite(t, ws, "ctx.txt", "one\ntwo\nthree MARK\nfour\nfive\nsix\n")
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", ws)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	return env, ws
}

func TestGrepStrategies(t *testing.T) {
	env, _ := grepWorkspace(t)
	tests := []struct {
		name    string
		args    map[string]any
		golden  string
		want    string
		display string
		noGit   bool // uses a feature git grep cannot provide
	}{
		{name: "demo", args: map[string]any{"pattern": "demo"},
			want:    "Found 2 matches for pattern \"demo\" in path \".\":\n---\nFile: README.md\nL1: # Demo project\nL3: This is the README of the demo project.\n---",
			display: "Found 2 matches"},
		{name: "case insensitive across files", args: map[string]any{"pattern": "hello", "include": "*.go"}, golden: "grep/include_go.golden", display: "Found 2 matches"},
		{name: "in a subdirectory", args: map[string]any{"pattern": "hello", "path": "sub"}, golden: "grep/subdir.golden", display: "Found 2 matches"},
		{name: "one match", args: map[string]any{"pattern": `func\s+f`},
			want: "Found 1 match for pattern \"func\\s+f\" in path \".\":\n---\nFile: sub/b.go\nL4: func f() {}\n---", display: "Found 1 match"},
		{name: "long line cut", args: map[string]any{"pattern": "^start"}, golden: "grep/long_line.golden", display: "Found 1 match"},
		{name: "no match", args: map[string]any{"pattern": "zzz-nothing"},
			want: "No matches found for pattern \"zzz-nothing\" in path \".\".", display: "No matches found"},
		{name: "no match with filter", args: map[string]any{"pattern": "zzz", "include": "*.md"},
			want: "No matches found for pattern \"zzz\" in path \".\" (filter: \"*.md\").", display: "No matches found"},
		{name: "capped", args: map[string]any{"pattern": "hello", "total_max_matches": 2.0}, golden: "grep/capped.golden", display: "Found 2 matches (limited)"},
		{name: "grep_search parameters", args: map[string]any{"pattern": "hello", "dir_path": "sub", "include_pattern": "*.go", "case_sensitive": true},
			want: "Found 1 match for pattern \"hello\" in path \"sub\" (filter: \"*.go\"):\n---\nFile: b.go\nL3: // hello from go\n---", display: "Found 1 match"},
		{name: "names only", args: map[string]any{"pattern": "hello", "names_only": true, "include": "*.txt"},
			want: "Found 2 files with matches for pattern \"hello\" in path \".\" (filter: \"*.txt\"):\na.txt\nlong.txt", display: "Found 2 files"},
		{name: "exclude pattern", args: map[string]any{"pattern": "hello", "exclude_pattern": "again|start", "include": "*.txt"},
			want: "Found 1 match for pattern \"hello\" in path \".\" (filter: \"*.txt\"):\n---\nFile: a.txt\nL1: hello world\n---", display: "Found 1 match"},
		{name: "context lines", args: map[string]any{"pattern": "MARK", "before": 1.0, "after": 2.0},
			want: "Found 1 match for pattern \"MARK\" in path \".\":\n---\nFile: ctx.txt\nL2- two\nL3: three MARK\nL4- four\nL5- five\n---", display: "Found 1 match", noGit: true},
		{name: "single file", args: map[string]any{"pattern": "hello", "path": "a.txt"},
			want: "Found 2 matches for pattern \"hello\" in path \"a.txt\":\n---\nFile: a.txt\nL1: hello world\nL3: say Hello again\n---", display: "Found 2 matches"},
	}
	for strategy, gt := range grepStrategies(t, env) {
		t.Run(strategy, func(t *testing.T) {
			if gt == nil {
				npmtest.Missing(t, "the program behind %s is not on PATH", strategy)
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					c, err := fsPrepare(gt, "", tt.args)
					if err != nil {
						t.Fatalf("%s: %s", err.Type, err.Message)
					}
					if strategy == "git grep" {
						if tt.noGit {
							t.Skip("git grep cannot report context lines; the walker answers")
						}
						gc := c.(*grepCall)
						if !gc.o.searchIsFile {
							if !gc.canUseGitGrep(t.Context()) {
								t.Fatal("git grep not chosen in a git work tree")
							}
							if _, err := gc.searchGitGrep(t.Context()); err != nil {
								t.Fatalf("git grep failed (the walker would answer instead): %v", err)
							}
						}
					}
					if strategy == "ripgrep" {
						if _, err := c.(*grepCall).searchRipgrep(t.Context()); err != nil {
							t.Fatalf("ripgrep failed (a fallback would answer instead): %v", err)
						}
					}
					r := c.Execute(t.Context(), nil)
					if r.Error != nil {
						t.Fatalf("%s: %s", r.Error.Type, r.Error.Message)
					}
					if tt.golden != "" {
						fsGolden(t, tt.golden, r.LLMText)
					} else if r.LLMText != tt.want {
						t.Errorf("llmContent\n%s\nwant\n%s", r.LLMText, tt.want)
					}
					if r.Display != tt.display {
						t.Errorf("display %q, want %q", r.Display, tt.display)
					}
				})
			}
		})
	}
}

func TestGrepAliasAndIgnore(t *testing.T) {
	env, _ := grepWorkspace(t)
	fsWithFilter(env, "sub")
	gt := &grepTool{env: env}
	c, err := fsPrepare(gt, "grep_search", map[string]any{"pattern": "hello", "dir_path": "."})
	if err != nil {
		t.Fatalf("grep_search alias: %s", err.Message)
	}
	r := c.Execute(t.Context(), nil)
	if strings.Contains(r.LLMText, "sub/") {
		t.Errorf("ignored directory searched:\n%s", r.LLMText)
	}
	if !strings.Contains(r.LLMText, "File: a.txt") {
		t.Errorf("a.txt missing:\n%s", r.LLMText)
	}
}

func TestGrepErrors(t *testing.T) {
	env, ws := grepWorkspace(t)
	outside := fsTempDir(t)
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	notInWS := func(p string) string { return fsNotInWorkspace(env, p) }
	tests := []struct {
		name string
		args map[string]any
		typ  tool.ErrorType
		msg  string
	}{
		{"missing pattern", map[string]any{}, tool.ErrInvalidParams, "params must have required property 'pattern'"},
		{"empty pattern", map[string]any{"pattern": ""}, tool.ErrInvalidParams, "The 'pattern' parameter cannot be empty."},
		{"invalid regex", map[string]any{"pattern": "a(b"}, tool.ErrInvalidParams, "Invalid regular expression pattern provided: a(b. Error: missing closing ): `a(b`"},
		{"invalid exclude", map[string]any{"pattern": "a", "exclude_pattern": "[z"}, tool.ErrInvalidParams, "Invalid regular expression pattern provided: [z. Error: missing closing ]: `[z`"},
		{"bad max", map[string]any{"pattern": "a", "total_max_matches": 0.0}, tool.ErrInvalidParams, "params/total_max_matches must be >= 1"},
		{"fractional context", map[string]any{"pattern": "a", "context": 1.5}, tool.ErrInvalidParams, "params/context must be integer"},
		{"missing path", map[string]any{"pattern": "a", "path": "nope"}, tool.ErrFileNotFound, "Path does not exist: " + filepath.Join(ws, "nope")},
		{"dot-dot", map[string]any{"pattern": "a", "path": ".."}, tool.ErrPathNotInWorkspace, notInWS(filepath.Dir(ws))},
		{"symlink outside", map[string]any{"pattern": "a", "dir_path": "out"}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(ws, "out"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fsPrepare(NewGrep(env), "", tt.args)
			if err == nil || err.Type != tt.typ || err.Message != tt.msg {
				t.Errorf("got %+v\nwant %s %q", err, tt.typ, tt.msg)
			}
		})
	}
}

func TestIncludeMatches(t *testing.T) {
	tests := []struct {
		include, rel string
		want         bool
	}{
		{"", "a/b.go", true},
		{"*.go", "a/b.go", true},
		{"*.go", "b.go", true},
		{"*.{ts,tsx}", "src/x.tsx", true},
		{"src/**", "src/a/b.ts", true},
		{"src/**", "lib/a.ts", false},
		{"*.go", "b.txt", false},
		{"./*.md", "README.md", true},
	}
	for _, tt := range tests {
		if got := includeMatches(tt.include, tt.rel); got != tt.want {
			t.Errorf("includeMatches(%q, %q) = %v", tt.include, tt.rel, got)
		}
	}
}

func TestGitUnsafePatterns(t *testing.T) {
	for pat, unsafe := range map[string]bool{
		`\d+`: true, `a*?`: true, `(?i)x`: true, `\bword\b`: false, `foo|bar`: false, `x{2}?`: true, `\w+\s`: false,
	} {
		if got := gitUnsafeRE.Get().MatchString(pat); got != unsafe {
			t.Errorf("%q: unsafe = %v, want %v", pat, got, unsafe)
		}
	}
}

// TestGrepBackendsAgreeOnGoSource runs the same searches with ripgrep and
// the Go walker over a real tree, part of Go's own source, and requires
// the same text: plain and folded literals (with the k and s that Unicode
// folding treats specially), anchors, context lines, and caps small
// enough that both backends stop early.
func TestGrepBackendsAgreeOnGoSource(t *testing.T) {
	rg := npmtest.LookPath(t, "rg")
	root := filepath.Join(searchBenchRoot(t), "net")
	env := searchBenchEnv(root)
	tests := []map[string]any{
		{"pattern": "NewReader"},
		{"pattern": `func \w+\(ctx context\.Context`},
		{"pattern": "(?i)ks"},
		{"pattern": "Kelvin|LONG S", "case_sensitive": true},
		{"pattern": `^\s*return nil$`},
		{"pattern": "(", "fixed_strings": true, "include": "*_test.go"},
		{"pattern": "e", "total_max_matches": 50.0},
		{"pattern": "err", "before": 2.0, "after": 1.0, "total_max_matches": 30.0},
		{"pattern": "TODO", "max_matches_per_file": 1.0},
		{"pattern": "conn", "exclude_pattern": "Conn", "case_sensitive": true, "total_max_matches": 40.0},
		// Caps far below the matches, so that ripgrep's stream is cut
		// many times over while it runs.
		{"pattern": "return", "max_matches_per_file": 3.0, "total_max_matches": 7.0, "after": 2.0},
		{"pattern": "t", "before": 1.0, "total_max_matches": 3.0},
		{"pattern": "a", "exclude_pattern": "the", "total_max_matches": 11.0},
	}
	for _, args := range tests {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			var texts []string
			for _, gt := range []*grepTool{{env: env, rgPath: rg}, {env: env}} {
				c, terr := fsPrepare(gt, "", args)
				if terr != nil {
					t.Fatal(terr.Message)
				}
				r := c.Execute(t.Context(), nil)
				if r.Error != nil {
					t.Fatalf("%s: %s", r.Error.Type, r.Error.Message)
				}
				texts = append(texts, r.LLMText)
			}
			if texts[0] != texts[1] {
				t.Errorf("ripgrep and the Go walker disagree:\n--- ripgrep ---\n%s\n--- walker ---\n%s", grepHead(texts[0]), grepHead(texts[1]))
			}
		})
	}
}

// grepHead is the start of a long search result, for failure messages.
func grepHead(s string) string {
	lines := strings.SplitN(s, "\n", 41)
	return strings.Join(lines[:min(len(lines), 40)], "\n")
}

func TestGrepPrefilter(t *testing.T) {
	tests := []struct {
		expr   string
		needle string // "" = no prefilter
		fold   bool
	}{
		{"NewReader", "NewReader", false},
		{"(?i)NewReader", "newreader", true},
		{`(?i)func \w+\(ctx context\.Context`, "(ctx context.context", true},
		{"(?i)ask", "a", true}, // too short once k and s are cut
		{"(?i)Kelvin", "elvin", true},
		{"(?i)12345", "12345", false},
		{"foo|bar", "", false},
		{"(abc)+def", "abc", false},
		{"x*yyyz", "yyyz", false},
		{"(?:abcd){2}", "abcd", false},
		{"ab?cde", "cde", false},
		{"a\uFFFDbcd", "bcd", false},
		{"(?i)héllo", "llo", true},
	}
	for _, tt := range tests {
		p := newGrepPrefilter(tt.expr)
		switch {
		case tt.needle == "" || len(tt.needle) < grepMinNeedle:
			if p != nil {
				t.Errorf("%q: prefilter %q, want none", tt.expr, p.needle)
			}
		case p == nil:
			t.Errorf("%q: no prefilter, want %q", tt.expr, tt.needle)
		case string(p.needle) != tt.needle || p.fold != tt.fold:
			t.Errorf("%q: prefilter %q fold=%v, want %q fold=%v", tt.expr, p.needle, p.fold, tt.needle, tt.fold)
		}
	}
}

// FuzzGrepBuffer checks the whole-file search against the line-by-line
// reader on arbitrary content: both must report the same lines.
func FuzzGrepBuffer(f *testing.F) {
	f.Add("hello world\nsay Hello\r\n\nlast", "(?i)hello", 1, 1)
	f.Add("a\r\r\nb\n\nKELVIN \u212a\n", "(?i)kelvin", 0, 0)
	f.Add("x\ny\nx\n", "^x$", 2, 0)
	f.Fuzz(func(t *testing.T, content, pattern string, before, after int) {
		re, err := regexp.Compile(pattern)
		if err != nil || strings.ContainsRune(content, 0) {
			return
		}
		o := &grepOptions{re: re, pre: newGrepPrefilter(pattern), maxMatches: 1000,
			before: before & 3, after: after & 3}
		buf := []byte(content)
		got := grepBuffer(buf, "f", o)
		o.pre = nil
		want := grepBuffer(buf, "f", o)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("prefiltered %v\nplain       %v", got, want)
		}
		streamed, _ := grepStream(context.Background(), bytes.NewReader(buf), "f", o)
		if fmt.Sprint(streamed) != fmt.Sprint(want) {
			t.Fatalf("streamed %v\nbuffered %v", streamed, want)
		}
	})
}

// TestRgKeptMatchesFullSearch feeds rgKept the lines of a search file by
// file in a scrambled order, as parallel ripgrep writes them, and checks
// that what it keeps gives the same result as keeping every line.
func TestRgKeptMatchesFullSearch(t *testing.T) {
	tests := []struct {
		name string
		o    grepOptions
		// inOrder feeds the files in path order, so that the first cut is
		// already the last one.
		inOrder bool
	}{
		{"cap", grepOptions{maxMatches: 5}, false},
		{"cap, in order", grepOptions{maxMatches: 5, after: 2}, true},
		{"cap and after", grepOptions{maxMatches: 7, after: 3}, false},
		{"cap and before", grepOptions{maxMatches: 3, before: 2}, false},
		{"per file", grepOptions{maxMatches: 20, maxPerFile: 2, after: 1}, false},
		{"exclude", grepOptions{maxMatches: 9, exclude: regexp.MustCompile("x"), after: 2}, false},
		{"cap above the matches", grepOptions{maxMatches: 5000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := rgKeptInput(tt.o, 400, 12)
			if tt.inOrder {
				sort.SliceStable(lines, func(i, j int) bool { return grepPathLess(lines[i].file, lines[j].file) })
			}
			call := &grepCall{tool: &grepTool{}, o: &tt.o}
			want := call.format(call.postProcess(lines)).LLMText
			k := rgKept{o: &tt.o, keep: call.newKeep()}
			for _, l := range lines {
				k.add(l)
			}
			if k.cut.file == "" && tt.o.maxMatches < 1000 {
				t.Fatal("rgKept never cut the stream: the test does not exercise it")
			}
			if len(k.lines) >= len(lines) && tt.o.maxMatches < 1000 {
				t.Errorf("rgKept kept all %d lines", len(lines))
			}
			if got := call.format(call.postProcess(k.lines)).LLMText; got != want {
				t.Errorf("rgKept changed the result:\n--- got ---\n%s\n--- want ---\n%s", grepHead(got), grepHead(want))
			}
		})
	}
}

// rgKeptInput makes the lines of a search over files files of up to
// perFile matches each, with the context lines o asks for, file by file
// in a scrambled but fixed order.
func rgKeptInput(o grepOptions, files, perFile int) []grepMatch {
	rnd := rand.New(rand.NewPCG(1, 2))
	order := rnd.Perm(files)
	var out []grepMatch
	for _, f := range order {
		name := fmt.Sprintf("d%d/f%03d.go", f%7, f)
		line := 1
		for range 1 + rnd.IntN(perFile) {
			line += 1 + rnd.IntN(6)
			for b := max(1, line-o.before); b < line; b++ {
				out = append(out, grepMatch{file: name, line: b, text: "ctx", context: true})
			}
			text := "match"
			if rnd.IntN(3) == 0 {
				text = "match x"
			}
			out = append(out, grepMatch{file: name, line: line, text: text})
			for a := line + 1; a <= line+o.after; a++ {
				out = append(out, grepMatch{file: name, line: a, text: "ctx", context: true})
			}
			line += o.after
		}
	}
	return out
}

func TestRgParseLine(t *testing.T) {
	tests := []struct {
		line    string
		path    string
		number  int
		text    string
		context bool
		ok      bool
	}{
		{"/w/a.go\x0012:func main() {", "/w/a.go", 12, "func main() {", false, true},
		{"/w/a.go\x003-// a: b", "/w/a.go", 3, "// a: b", true, true},
		{"/w/a:1.go\x007:x:y", "/w/a:1.go", 7, "x:y", false, true},
		{"/w/a.go\x001:", "/w/a.go", 1, "", false, true},
		{"--", "", 0, "", false, false},
		{"/w/bin\x00: binary file matches", "", 0, "", false, false},
		{"/w/a.go\x00x:1", "", 0, "", false, false},
		{"/w/a.go\x0012345678901:x", "", 0, "", false, false},
	}
	for _, tt := range tests {
		path, number, text, context, ok := rgParseLine([]byte(tt.line))
		if ok != tt.ok || (ok && (string(path) != tt.path || number != tt.number || string(text) != tt.text || context != tt.context)) {
			t.Errorf("rgParseLine(%q) = %q %d %q %v %v", tt.line, path, number, text, context, ok)
		}
	}
}

// FuzzRgParseLine: a parsed line gives back its parts, in order.
func FuzzRgParseLine(f *testing.F) {
	f.Add([]byte("/w/a.go\x0012:func main() {"))
	f.Add([]byte("--"))
	f.Fuzz(func(t *testing.T, line []byte) {
		path, number, text, context, ok := rgParseLine(line)
		if !ok {
			return
		}
		sep := ":"
		if context {
			sep = "-"
		}
		if got := string(path) + "\x00" + strconv.Itoa(number) + sep + string(text); !strings.HasSuffix(string(line), got[len(path)+1+len(strconv.Itoa(number)):]) || number < 0 {
			t.Errorf("rgParseLine(%q) = %q %d %q %v", line, path, number, text, context)
		}
	})
}

// TestGrepRipgrepOddFiles: ripgrep and the walker agree on binary files,
// lines that are not UTF-8 and a user's ripgrep config that would change
// ripgrep's output.
func TestGrepRipgrepOddFiles(t *testing.T) {
	rg := npmtest.LookPath(t, "rg")
	dir := t.TempDir()
	for name, content := range map[string]string{
		"bin.dat":    "hello\x00world\nhello again\n",
		"latin1.txt": "h\xe9llo hello\nhello plain\n",
		"ok.txt":     "hello there\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(t.TempDir(), "ripgreprc")
	if err := os.WriteFile(rc, []byte("--json\n--column\n--heading\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RIPGREP_CONFIG_PATH", rc)
	env := searchBenchEnv(dir)
	for _, args := range []map[string]any{{"pattern": "hello"}, {"pattern": "hello", "path": "bin.dat"}, {"pattern": "hello", "path": "latin1.txt"}} {
		var texts []string
		for _, gt := range []*grepTool{{env: env, rgPath: rg}, {env: env}} {
			c, terr := fsPrepare(gt, "", args)
			if terr != nil {
				t.Fatal(terr.Message)
			}
			if gt.rgPath != "" {
				if _, err := c.(*grepCall).searchRipgrep(t.Context()); err != nil {
					t.Fatalf("ripgrep failed: %v", err)
				}
			}
			texts = append(texts, c.Execute(t.Context(), nil).LLMText)
		}
		if texts[0] != texts[1] {
			t.Errorf("%v: ripgrep and the walker disagree:\n--- ripgrep ---\n%s\n--- walker ---\n%s", args, texts[0], texts[1])
		}
	}
}

// NewGrep looks for rg and git at the first search, not when the tool is
// made (at every start, where most runs search nothing).
func TestGrepFindsBinariesAtFirstSearch(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an executable shell script is the fake rg")
	}
	bin := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	gt := NewGrep(&Env{Workspace: tool.NewWorkspace(t.TempDir())}).(*grepTool)
	for _, name := range []string{"rg", "git"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	if rg, git := gt.rg(), gt.git(); rg != filepath.Join(bin, "rg") || git != filepath.Join(bin, "git") {
		t.Errorf("rg, git = %q, %q; want those of %s", rg, git, bin)
	}
}
