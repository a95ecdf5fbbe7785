package textutil

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/internal/npmtest"
)

const namesGolden = "testdata/collate/names.golden"

// TestCollatorGolden sorts the names of testdata/collate/names.golden,
// which are in the order Node's localeCompare gives them (-update
// rewrites the file from Node), starting from the reverse order.
func TestCollatorGolden(t *testing.T) {
	want := readLines(t, namesGolden)
	if golden.Update() {
		want = nodeSort(t, want)
		if err := os.WriteFile(namesGolden, []byte(strings.Join(want, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortStableFunc(got, NewCollator().Compare)
	if !slices.Equal(got, want) {
		t.Errorf("order differs from Node's localeCompare:\ngot  %q\nwant %q", got, want)
	}
}

// TestCollatorMatchesNode sorts the golden names and a few thousand
// generated ones (ASCII punctuation, digits, both cases, accented Latin,
// ß, Greek, Cyrillic, CJK, an emoji, combining marks) with Node's
// localeCompare and with Collator, by Compare and by Key, and requires
// the same order. Ties in the collation are broken by UTF-8 byte order on
// both sides.
func TestCollatorMatchesNode(t *testing.T) {
	names := readLines(t, namesGolden)
	alphabet := []rune("abcxyzABCXYZ019 _-.,()[]{}@#~$+=éèÉçñöÖøåÅßæœ日本中文αβΓΩжЖ😀İıſK\u0301")
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for len(names) < 3000 {
		b := make([]rune, 1+r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if s := string(b); !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	want := nodeSort(t, names)

	c := NewCollator()
	byCompare := slices.Clone(names)
	slices.SortFunc(byCompare, c.Compare)
	if i := firstDiff(byCompare, want); i >= 0 {
		t.Errorf("Compare: at %d got %q, Node %q", i, byCompare[max(0, i-2):min(len(byCompare), i+3)], want[max(0, i-2):min(len(want), i+3)])
	}

	keys := map[string]string{}
	for _, n := range names {
		keys[n] = c.Key(n)
	}
	byKey := slices.Clone(names)
	slices.SortFunc(byKey, func(a, b string) int {
		if r := strings.Compare(keys[a], keys[b]); r != 0 {
			return r
		}
		return strings.Compare(a, b)
	})
	if i := firstDiff(byKey, want); i >= 0 {
		t.Errorf("Key: at %d got %q, Node %q", i, byKey[max(0, i-2):min(len(byKey), i+3)], want[max(0, i-2):min(len(want), i+3)])
	}
}

func TestCollatorCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "B", -1},
		{"a", "A", -1},
		{"e", "é", -1},
		{"é", "f", -1},
		{"zebra", "Ärger", 1}, // accented names no longer sort after "z"
		{"README.md", "go.mod", 1},
		{"_x", "a", -1},
		{"-x", "_x", 1},
		{"1", "a", -1},
		{"file10", "file2", -1},
		{"a.txt", "a.txt", 0},
		{"ab", "a", 1},
		{".env", "a", -1},
		{"l·l", "ll", 1}, // the dot an accent ("ŀl")
		{"l·l", "lm", -1},
		// Other scripts, as Node orders them.
		{"z", "α", -1},
		{"ω", "а", -1},
		{"е", "ё", -1},
		{"ё", "ж", -1},
		{"и", "й", -1},
		{"й", "к", -1},
		{"йа", "иб", 1},      // "й" a letter of its own
		{"їжак", "ізюм", -1}, // "ї" an accented "і" (x/text: a letter of its own)
		{"ўa", "уб", -1},
		{"ぁ", "あ", -1},
		{"あ", "ァ", -1},
		{"ァ", "ア", -1},
		{"ア", "中", -1},
		{"가", "あ", -1},
		{"~", "😀", -1},
		{"😀", "0", -1},
		{"$", "€", -1},
		{"€", "0", -1},
		{"٣", "4", -1},
		{"A", "Ａ", -1},
		{"Ａ", "b", -1},
		{"μ", "µ", -1},
		{"file", "ﬁle", -1},
		{"ﬁ", "fj", -1},
	}
	c := NewCollator()
	for _, tt := range tests {
		if got := c.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := c.Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

// FuzzCollatorKey checks what glob's sort relies on: keys (ties broken
// by byte order) order strings as Compare does, and a shared leading
// folder ("/w/") does not change how two names compare.
func FuzzCollatorKey(f *testing.F) {
	for _, p := range [][2]string{{"a.go", "a/b"}, {"B", "a"}, {"é", "z"}, {"x10", "x9"}, {"_a", "-a"}, {"A", "a"}, {"\x01", "!"}, {"e\u0301", "é"}, {"\u0301a", "a"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		c := NewCollator()
		want := c.Compare(a, b)
		got := strings.Compare(c.Key(a), c.Key(b))
		if got == 0 {
			got = strings.Compare(a, b)
		}
		if got != want {
			t.Fatalf("keys of %q and %q compare %d, Compare = %d", a, b, got, want)
		}
		if p := c.Compare("/w/"+a, "/w/"+b); p != want {
			t.Fatalf("with a leading folder %q and %q compare %d, without %d", a, b, p, want)
		}
	})
}

func BenchmarkCollatorKey(b *testing.B) {
	c := NewCollator()
	for b.Loop() {
		c.Key("internal/textutil/testdata/collate/names.golden")
	}
}

// nodeSort sorts names with Node's localeCompare (no locale), ties broken
// by UTF-8 byte order, or reports node missing (npmtest.Missing).
func nodeSort(t *testing.T, names []string) []string {
	t.Helper()
	node := npmtest.LookPath(t, "node")
	in, err := json.Marshal(names)
	if err != nil {
		t.Fatal(err)
	}
	const script = `let s = ''; process.stdin.on('data', d => s += d).on('end', () => {
  const names = JSON.parse(s);
  names.sort((a, b) => a.localeCompare(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
  process.stdout.write(JSON.stringify(names));
});`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var sorted []string
	if err := json.Unmarshal(out, &sorted); err != nil {
		t.Fatalf("node's output: %v", err)
	}
	return sorted
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// benchNames is a directory listing's worth of typical names.
var benchNames = []string{"README.md", "go.mod", "go.sum", "main.go", "main_test.go", ".gitignore", ".github",
	"cmd", "internal", "docs", "Makefile", "LICENSE", "node_modules", "package.json", "package-lock.json",
	"src", "dist", "build", "__pycache__", "setup.py", "requirements.txt", "Dockerfile", "docker-compose.yml",
	"CHANGELOG.md", "CONTRIBUTING.md", "test", "tests", "scripts", "a.txt", "A.txt", "file10.go", "file2.go",
	"tsconfig.json", ".eslintrc.js", "index.ts", "index.test.ts", "utils", "Utils.java", "config.yaml", "vendor"}

func BenchmarkCollatorCompare(b *testing.B) {
	c := NewCollator()
	for b.Loop() {
		for i := 1; i < len(benchNames); i++ {
			c.Compare(benchNames[i-1], benchNames[i])
		}
	}
}

func BenchmarkCollatorCompareLatin(b *testing.B) {
	names := []string{"école", "ecole", "Éclair", "éclair", "Straße", "strasse", "Ærø", "aero", "naïve", "naive", "Łódź", "lodz"}
	c := NewCollator()
	for b.Loop() {
		for i := 1; i < len(names); i++ {
			c.Compare(names[i-1], names[i])
		}
	}
}

func BenchmarkCollatorSort(b *testing.B) {
	c := NewCollator()
	s := make([]string, len(benchNames))
	for b.Loop() {
		copy(s, benchNames)
		slices.SortFunc(s, c.Compare)
	}
}
