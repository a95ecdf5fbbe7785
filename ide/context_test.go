package ide

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestNormalize(t *testing.T) {
	long := strings.Repeat("é", MaxSelectedTextLen) // two bytes, one UTF-16 unit each
	tests := []struct {
		name string
		in   *Context
		want *Context
	}{
		{"nil", nil, nil},
		{"no workspace state", &Context{}, &Context{}},
		{
			"sorted newest first, only the newest active",
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{
				{Path: "/a", Timestamp: 1, IsActive: true, Cursor: &Cursor{1, 1}, SelectedText: "x"},
				{Path: "/b", Timestamp: 3, IsActive: true, Cursor: &Cursor{2, 2}, SelectedText: "y"},
				{Path: "/c", Timestamp: 2},
			}, IsTrusted: ptr(true)}},
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{
				{Path: "/b", Timestamp: 3, IsActive: true, Cursor: &Cursor{2, 2}, SelectedText: "y"},
				{Path: "/c", Timestamp: 2},
				{Path: "/a", Timestamp: 1},
			}, IsTrusted: ptr(true)}},
		},
		{
			"newest not active: none is",
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{
				{Path: "/a", Timestamp: 1, IsActive: true, Cursor: &Cursor{1, 1}},
				{Path: "/b", Timestamp: 2},
			}}},
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/b", Timestamp: 2}, {Path: "/a", Timestamp: 1}}}},
		},
		{
			"virtual files dropped",
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{
				{Path: "untitled:Untitled-1", Timestamp: 9, IsActive: true},
				{Path: "", Timestamp: 8},
				{Path: "relative/file.go", Timestamp: 7},
				{Path: "/real", Timestamp: 1},
			}}},
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/real", Timestamp: 1}}}},
		},
		{
			"windows paths are files",
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: `C:\src\a.go`, Timestamp: 1, IsActive: true}}}},
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: `C:\src\a.go`, Timestamp: 1, IsActive: true}}}},
		},
		{
			"ties keep the editor's order",
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/x", Timestamp: 5}, {Path: "/y", Timestamp: 5}}}},
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/x", Timestamp: 5}, {Path: "/y", Timestamp: 5}}}},
		},
		{
			"selection cut at 16 KiB of UTF-16",
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/a", Timestamp: 1, IsActive: true, SelectedText: long + "tail"}}}},
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/a", Timestamp: 1, IsActive: true, SelectedText: long + "... [TRUNCATED]"}}}},
		},
	}
	var eleven []File
	var ten []File
	for i := range 11 {
		f := File{Path: "/f" + string(rune('a'+i)), Timestamp: int64(100 - i)}
		eleven = append(eleven, f)
		if i < 10 {
			ten = append(ten, f)
		}
	}
	tests = append(tests, struct {
		name string
		in   *Context
		want *Context
	}{"ten files at most", &Context{WorkspaceState: &WorkspaceState{OpenFiles: eleven}}, &Context{WorkspaceState: &WorkspaceState{OpenFiles: ten}}})

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Normalize(tt.in)); diff != "" {
				t.Errorf("Normalize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTruncateSelectionSurrogates(t *testing.T) {
	// An emoji takes two UTF-16 units: the cut must not split it.
	s := strings.Repeat("a", MaxSelectedTextLen-1) + "😀" + "b"
	got := truncateSelection(s)
	want := strings.Repeat("a", MaxSelectedTextLen-1) + truncatedMarker
	if got != want {
		t.Errorf("cut = ...%q", got[len(got)-20:])
	}
}

func TestParseContext(t *testing.T) {
	tests := []struct {
		name    string
		params  string
		want    *Context
		wantErr bool
	}{
		{"vs code shape", `{"workspaceState":{"openFiles":[{"path":"/a","timestamp":1700000000000,"isActive":true,"cursor":{"line":3,"character":4},"selectedText":"sel"}],"isTrusted":true}}`,
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/a", Timestamp: 1700000000000, IsActive: true, Cursor: &Cursor{3, 4}, SelectedText: "sel"}}, IsTrusted: ptr(true)}}, false},
		{"empty", `{}`, &Context{}, false},
		{"fractional numbers", `{"workspaceState":{"openFiles":[{"path":"/a","timestamp":1.5,"isActive":true,"cursor":{"line":2.9,"character":1}}]}}`,
			&Context{WorkspaceState: &WorkspaceState{OpenFiles: []File{{Path: "/a", Timestamp: 1, IsActive: true, Cursor: &Cursor{2, 1}}}}}, false},
		{"missing timestamp", `{"workspaceState":{"openFiles":[{"path":"/a"}]}}`, nil, true},
		{"missing path", `{"workspaceState":{"openFiles":[{"timestamp":1}]}}`, nil, true},
		{"path not a string", `{"workspaceState":{"openFiles":[{"path":1,"timestamp":1}]}}`, nil, true},
		{"cursor without character", `{"workspaceState":{"openFiles":[{"path":"/a","timestamp":1,"cursor":{"line":1}}]}}`, nil, true},
		{"not an object", `[1]`, nil, true},
		{"no params", ``, nil, true},
		{"null params", `null`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseContext([]byte(tt.params))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// files builds a normalised context: the first path is active with the
// given cursor and selection.
func files(cursor *Cursor, selected string, paths ...string) *Context {
	c := &Context{WorkspaceState: &WorkspaceState{}}
	for i, p := range paths {
		f := File{Path: p, Timestamp: int64(100 - i)}
		if i == 0 {
			f.IsActive, f.Cursor, f.SelectedText = true, cursor, selected
		}
		c.WorkspaceState.OpenFiles = append(c.WorkspaceState.OpenFiles, f)
	}
	return c
}

func inactive(paths ...string) *Context {
	c := &Context{WorkspaceState: &WorkspaceState{}}
	for i, p := range paths {
		c.WorkspaceState.OpenFiles = append(c.WorkspaceState.OpenFiles, File{Path: p, Timestamp: int64(100 - i)})
	}
	return c
}

// TestPromptTexts pins the texts the model receives, byte for byte, in
// golden files: they are Gemini CLI's.
func TestPromptTexts(t *testing.T) {
	tests := []struct {
		name      string
		last, cur *Context
	}{
		{"first", nil, files(&Cursor{12, 5}, "func main() {\n\t<b>&</b>\u2028\n}", "/ws/main.go", "/ws/util.go", "/ws/README.md")},
		{"first_no_active", nil, inactive("/ws/a.go", "/ws/b.go")},
		{"first_active_only", nil, files(nil, "", "/ws/only.go")},
		{"nothing_open", nil, &Context{WorkspaceState: &WorkspaceState{}}},
		{"opened_closed_switched", files(&Cursor{1, 1}, "", "/ws/a.go", "/ws/b.go"), files(&Cursor{4, 2}, "sel", "/ws/c.go", "/ws/a.go")},
		{"cursor_moved", files(&Cursor{1, 1}, "", "/ws/a.go"), files(&Cursor{9, 3}, "", "/ws/a.go")},
		{"selection_changed", files(&Cursor{1, 1}, "old", "/ws/a.go"), files(&Cursor{1, 1}, "new text", "/ws/a.go")},
		{"selection_cleared", files(&Cursor{1, 1}, "old", "/ws/a.go"), files(&Cursor{1, 1}, "", "/ws/a.go")},
		{"no_active_file_any_more", files(&Cursor{1, 1}, "", "/ws/a.go"), inactive("/ws/a.go")},
		{"unchanged", files(&Cursor{1, 1}, "", "/ws/a.go"), files(&Cursor{1, 1}, "", "/ws/a.go")},
		{"all_closed", files(&Cursor{1, 1}, "", "/ws/a.go"), &Context{WorkspaceState: &WorkspaceState{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text string
			if tt.last == nil {
				text = FullContextText(tt.cur)
			} else {
				text = DeltaText(tt.last, tt.cur)
			}
			golden.Check(t, filepath.Join("prompt", tt.name+".golden"), text)
		})
	}
}

func TestPrompter(t *testing.T) {
	var p prompter
	a := files(&Cursor{1, 1}, "", "/a")
	b := files(&Cursor{2, 1}, "", "/a")
	steps := []struct {
		cur    *Context
		first  bool
		prefix string
	}{
		{a, true, fullContextIntro},
		{a, false, ""},
		{b, false, deltaContextIntro},
		{nil, false, ""},
		// Nothing was sent last time, so the whole context goes again.
		{b, false, fullContextIntro},
		{b, true, fullContextIntro},
	}
	for i, s := range steps {
		got := p.next(s.cur, s.first)
		if s.prefix == "" && got != "" || !strings.HasPrefix(got, s.prefix) {
			t.Errorf("step %d: %q, want prefix %q", i, got, s.prefix)
		}
	}
}

func TestUnescapeLineSeparators(t *testing.T) {
	tests := map[string]string{
		`"a\u2028b\u2029c"`: "\"a\u2028b\u2029c\"",
		`"a\\u2028"`:        `"a\\u2028"`,
		`"a\\\u2028"`:       "\"a\\\\\u2028\"",
		`"\u2027"`:          `"\u2027"`,
		`plain`:             `plain`,
	}
	for in, want := range tests {
		if got := string(unescapeLineSeparators([]byte(in))); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

// FuzzParseContext feeds arbitrary notifications: parsing must not panic,
// and whatever it accepts must come out normalised and render to valid
// JSON.
func FuzzParseContext(f *testing.F) {
	f.Add([]byte(`{"workspaceState":{"openFiles":[{"path":"/a","timestamp":1,"isActive":true,"cursor":{"line":1,"character":2},"selectedText":"x"}],"isTrusted":false}}`))
	f.Add([]byte(`{"workspaceState":{"openFiles":[{"path":"untitled:1","timestamp":1e308},{"path":"/b","timestamp":-1,"isActive":true}]}}`))
	f.Add([]byte(`{"workspaceState":null}`))
	f.Add([]byte(`{"workspaceState":{"openFiles":[{"path":"/a","timestamp":"1"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseContext(data)
		if err != nil {
			return
		}
		fs := c.Files()
		if len(fs) > MaxOpenFiles {
			t.Fatalf("%d files", len(fs))
		}
		for i, file := range fs {
			if isVirtual(file.Path) {
				t.Fatalf("virtual file kept: %q", file.Path)
			}
			if i > 0 && (file.IsActive || file.Cursor != nil || file.SelectedText != "") {
				t.Fatalf("file %d keeps active state: %+v", i, file)
			}
			if i > 0 && file.Timestamp > fs[i-1].Timestamp {
				t.Fatalf("not sorted: %+v", fs)
			}
			if n := len(utf16.Encode([]rune(file.SelectedText))); n > MaxSelectedTextLen+len(truncatedMarker) {
				t.Fatalf("selection of %d units", n)
			}
		}
		for _, text := range []string{FullContextText(c), DeltaText(c, Normalize(&Context{})), DeltaText(&Context{}, c)} {
			if text == "" {
				continue
			}
			if !utf8.ValidString(text) {
				t.Fatal("invalid UTF-8")
			}
			_, js, _ := strings.Cut(text, "```json\n")
			js = strings.TrimSuffix(js, "\n```")
			if !json.Valid([]byte(js)) {
				t.Fatalf("invalid JSON:\n%s", js)
			}
		}
	})
}
