package agent

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// packages names the paragraphs of templated answers.
var packages = []string{"agent", "model", "tool", "policy", "config", "command", "mcp",
	"ide", "acp", "a2a", "internal/setup", "internal/cli", "internal/tui", "internal/proc"}

// templated is the answer issue 26 saw cut at its tenth paragraph: one
// sentence per package, the package name the only change.
func templated() string {
	var b strings.Builder
	for _, p := range packages {
		fmt.Fprintf(&b, "For the %s package, run go test ./%s/... from the root of the repository and read the failures from the top, since the first one usually explains the rest.\n\n", p, p)
	}
	return b.String()
}

func repeatf(n int, format string, args ...func(i int) any) string {
	var b strings.Builder
	for i := range n {
		vals := make([]any, len(args))
		for j, f := range args {
			vals[j] = f(i)
		}
		fmt.Fprintf(&b, format, vals...)
	}
	return b.String()
}

func idx(i int) any { return i }
func pkg(i int) any { return packages[i%len(packages)] + fmt.Sprint(i/len(packages)) }

// legitimate are repetitive answers a model gives on purpose; none may be
// cut, however the stream is split.
var legitimate = []struct{ name, text string }{
	{"templated paragraphs", templated()},
	{"templated numbered list", repeatf(14, "%d. For the %s package, run go test with -race and -count=1 so that a cached result does not hide a failure in it.\n", idx, pkg)},
	{"templated bullet list", repeatf(30, "- The %s package: run go vet, then staticcheck, then the tests; report anything that fails to the owner of the package.\n", pkg)},
	{"markdown table, identical rows", "| package | status | notes |\n| --- | --- | --- |\n" +
		strings.Repeat("| internal/example/package | ok | no changes needed in this package |\n", 80)},
	{"markdown table, similar rows", "| package | status | notes |\n|---|---|---|\n" +
		repeatf(60, "| %s | ok | no changes were needed in this package this time |\n", pkg)},
	{"box-drawn table", "┌──────────┬────┐\n" + strings.Repeat("│ package  │ ok │ nothing to change in this package at all │\n", 40) + "└──────────┴────┘\n"},
	{"log in a code block", "Here is the log:\n\n```\n" +
		strings.Repeat("2026-12-07 00:00:00 INFO waiting for the database to accept connections on port 5432\n", 200) + "```\n\nThe database never came up.\n"},
	{"unfenced log with timestamps", repeatf(120, "2026-12-07T00:%02d:%02dZ INFO request served path=/api/v1/items status=200 bytes=5120\n",
		func(i int) any { return i / 60 }, func(i int) any { return i % 60 })},
	{"generated code in a block", "```go\n" + repeatf(30, "func TestCase%d(t *testing.T) {\n\tt.Parallel()\n\tif got := run(t, cases[%d]); got != cases[%d].want {\n\t\tt.Errorf(\"got %%v, want %%v\", got, cases[%d].want)\n\t}\n}\n\n", idx, idx, idx, idx) + "```\n"},
	{"generated code without a fence", repeatf(30, "func TestCase%d(t *testing.T) {\n\tt.Parallel()\n\tif got := run(t, cases[%d]); got != cases[%d].want {\n\t\tt.Errorf(\"mismatch in case number %d\")\n\t}\n}\n\n", idx, idx, idx, idx)},
	{"two code blocks in one piece", strings.Repeat("Run this:\n```sh\ngo test ./... && go test ./... && go test ./... && go test ./...\n```\n", 30)},
	{"refrain between verses", repeatf(12, "Verse %d tells of the %s package and what it holds.\nAnd the build is green, and the tests all pass, and we ship it at the end of the day.\n", idx, pkg)},
	{"chant fenced with tildes", "~~~\n" + strings.Repeat("I will now try again to fix the failing test suite. ", 40) + "\n~~~\n"},
	{"indented list items", repeatf(40, "    - step %d: copy the file into the build folder and check its checksum matches\n", idx)},
}

// loops are answers that chant; each must be cut.
var loops = []struct{ name, text string }{
	{"sentence chanted", strings.Repeat("I will now try again to fix the failing test suite. ", 30)},
	{"chant after other text", templated() + strings.Repeat("I will now try again to fix the failing test suite. ", 30)},
	{"chant after a code block", "```go\nfunc f() {}\n```\n" + strings.Repeat("Let me look at the function once more to be sure. ", 30)},
	{"chanted lines", strings.Repeat("Let me check the configuration file once more.\n", 30)},
	{"two sentences alternating", strings.Repeat("I should read the file again. Then I will edit the function. ", 30)},
	{"chant after a table", "| a | b |\n|---|---|\n| 1 | 2 |\n" + strings.Repeat("The table above is correct and complete as written. ", 30)},
}

// chunkings split a text as models stream it.
var chunkings = []struct {
	name  string
	split func(string) []string
}{
	{"whole", func(s string) []string { return []string{s} }},
	{"bytes", func(s string) []string { return pieces(s, 1) }},
	{"7 bytes", func(s string) []string { return pieces(s, 7) }},
	{"97 bytes", func(s string) []string { return pieces(s, 97) }},
	{"lines", func(s string) []string { return strings.SplitAfter(s, "\n") }},
}

func pieces(s string, n int) []string {
	var out []string
	for i := 0; i < len(s); i += n {
		out = append(out, s[i:min(i+n, len(s))])
	}
	return out
}

func feed(d *loopDetector, parts []string) bool {
	for _, p := range parts {
		if _, loop := d.content(p); loop {
			return true
		}
	}
	return false
}

func TestLoopDetectorContent(t *testing.T) {
	for _, c := range chunkings {
		for _, tt := range legitimate {
			t.Run("legitimate/"+tt.name+"/"+c.name, func(t *testing.T) {
				if feed(newLoopDetector(false), c.split(tt.text)) {
					t.Errorf("a legitimate answer was cut:\n%s", tt.text)
				}
			})
		}
		for _, tt := range loops {
			t.Run("loop/"+tt.name+"/"+c.name, func(t *testing.T) {
				if !feed(newLoopDetector(false), c.split(tt.text)) {
					t.Errorf("a loop was not detected:\n%s", tt.text)
				}
				if feed(newLoopDetector(true), c.split(tt.text)) {
					t.Error("detected with loop detection disabled")
				}
			})
		}
	}
}

// TestChantingCloseTogether: ten recurrences of a 50-byte window within
// a short span are a loop; the same window recurring far apart is not.
func TestChantingCloseTogether(t *testing.T) {
	unique := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "w%d ", i)
		}
		return b.String()
	}
	const sentence = "I will try the very same thing once more now. "
	var spread strings.Builder
	for i := range 12 {
		spread.WriteString(sentence)
		spread.WriteString(unique(300) + fmt.Sprint(i))
	}
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"chanting from the start", strings.Repeat(sentence, 12), true},
		{"chanting after other text", unique(2500) + strings.Repeat(sentence, 12), true},
		{"chanting after the history limit", unique(3*chantHistoryLimit) + strings.Repeat(sentence, 12), true},
		{"too few recurrences", strings.Repeat(sentence, 8), false},
		{"recurrences far apart", spread.String(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, loop := newLoopDetector(false).content(tt.text); loop != tt.want {
				t.Errorf("loop = %v, want %v (%d characters)", loop, tt.want, len(tt.text))
			}
		})
	}
}

// TestLoopDetectorBounded: a long answer keeps the detector's memory
// bounded (the prose kept and the windows remembered).
func TestLoopDetectorBounded(t *testing.T) {
	d := newLoopDetector(false)
	for i := range 20000 {
		if _, loop := d.content(fmt.Sprintf("Sentence number %d of a very long and varied answer. ", i)); loop {
			t.Fatal("varied prose taken for a loop")
		}
	}
	if len(d.chunks) > 2*chantHistoryLimit+chantHistoryLimit {
		t.Errorf("kept %d bytes and %d windows", len(d.hist), len(d.chunks))
	}
}

func TestLoopDetectorToolCalls(t *testing.T) {
	args := map[string]any{"dir_path": "."}
	tests := []struct {
		name  string
		steps []string // "call", "other" (another call) or text
		want  bool
	}{
		{"five identical calls", []string{"call", "call", "call", "call", "call"}, true},
		{"four identical calls", []string{"call", "call", "call", "call"}, false},
		{"text between the calls does not break the row", []string{"call", "Let me look again.", "call", "call", "And again.", "call", "call"}, true},
		{"another call breaks the row", []string{"call", "call", "call", "other", "call", "call"}, false},
		{"a cycle of two, five times", []string{"call", "other", "call", "other", "call", "other", "call", "other", "call", "other"}, true},
		{"a cycle of two, four times and a half", []string{"call", "other", "call", "other", "call", "other", "call", "other", "call"}, false},
		{"a cycle of three, five times", slices.Repeat([]string{"call", "other", "third"}, 5), true},
		{"a cycle of five, five times", slices.Repeat([]string{"call", "other", "third", "c4", "c5"}, 5), true},
		{"a cycle of six is work", slices.Repeat([]string{"call", "other", "third", "c4", "c5", "c6"}, 5), false},
		{"a cycle broken once", append(slices.Repeat([]string{"call", "other"}, 4), "third", "call", "other"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newLoopDetector(false)
			got := false
			for _, s := range tt.steps {
				var loop bool
				switch s {
				case "call":
					_, loop = d.toolCall("list_directory", args)
				case "other":
					_, loop = d.toolCall("list_directory", map[string]any{"dir_path": "sub"})
				case "third", "c4", "c5", "c6":
					_, loop = d.toolCall("read_file", map[string]any{"file_path": s})
				default:
					_, loop = d.content(s)
				}
				got = got || loop
			}
			if got != tt.want {
				t.Errorf("loop = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMarkdownStructure(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"| a | b |", true},
		{"## Heading", true},
		{"> quoted", true},
		{"- item", true},
		{"* item", true},
		{"12. item", true},
		{"3) item", true},
		{"---", true},
		{"───────", true},
		{"plain words repeating", false},
		{"3.14 is pi", false},
		{"-1 is negative", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := markdownStructure(tt.s); got != tt.want {
			t.Errorf("markdownStructure(%q) = %v", tt.s, got)
		}
	}
}

func BenchmarkLoopDetectorContent(b *testing.B) {
	text := pieces(templated(), 40)
	d := newLoopDetector(false)
	b.ReportAllocs()
	for b.Loop() {
		d.reset() // once per prompt, as a session does
		feed(d, text)
	}
}

// TestChantingSurvivesPrune: pruning the windows of prose no longer
// tracked keeps the live ones, so a chant under way when the map is
// pruned is caught at the same recurrence as without the prune. The map
// is pruned every few thousand bytes of streamed prose; the prefix
// lengths put a prune at each point of the chant's first sentences.
func TestChantingSurvivesPrune(t *testing.T) {
	const sentence = "I will try the very same thing once more now. "
	var b strings.Builder
	for i := 0; b.Len() < 4*chantHistoryLimit; i++ {
		fmt.Fprintf(&b, "w%d ", i)
	}
	unique := b.String()
	caughtAt := func(prefix string) int {
		d := newLoopDetector(false)
		for len(prefix) > 0 { // streamed, so every window is recorded
			n := min(100, len(prefix))
			if _, loop := d.content(prefix[:n]); loop {
				t.Fatal("the unique prefix taken for a loop")
			}
			prefix = prefix[n:]
		}
		for k := 1; k <= 40; k++ {
			if _, loop := d.content(sentence); loop {
				return k
			}
		}
		return 0
	}
	want := caughtAt("")
	if want == 0 {
		t.Fatal("the chant alone is not caught")
	}
	for n := 2 * chantHistoryLimit; n <= 3*chantHistoryLimit+200; n += 23 {
		if got := caughtAt(unique[:n]); got != want {
			t.Fatalf("after %d bytes of other prose the chant is caught at sentence %d, want %d", n, got, want)
		}
	}
}
