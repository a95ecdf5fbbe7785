package frontmatter

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in    string
		front, body string
		ok          bool
	}{
		{"basic", "---\nname: a\n---\nbody\n", "name: a", "body\n", true},
		{"crlf", "---\r\nname: a\r\n---\r\nbody", "name: a", "body", true},
		{"byte order mark", "\uFEFF---\r\nname: a\r\n---\r\nbody", "name: a", "body", true},
		{"no body", "---\nname: a\n---", "name: a", "", true},
		{"no front matter", "name: a\n", "", "", false},
		{"unclosed", "---\nname: a\n", "", "", false},
		{"leading blank line", "\n---\nname: a\n---\n", "", "", false},
		{"first closing wins", "---\na: 1\n---\nx\n---\ny", "a: 1", "x\n---\ny", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front, body, ok := Split(tt.in)
			if front != tt.front || body != tt.body || ok != tt.ok {
				t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tt.in, front, body, ok, tt.front, tt.body, tt.ok)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	type doc struct {
		Name  string   `yaml:"name"`
		Tools []string `yaml:"tools"`
	}
	tests := []struct {
		name, front string
		strict      bool
		want        string // "" for success
	}{
		{"ok", "name: a\ntools: [x, y]", true, ""},
		{"empty", "", true, ""},
		{"syntax", "name: a\ndescription: x: y", false, "f.md:3: invalid YAML front matter: mapping values are not allowed in this context"},
		{"type", "name: a\ntools: 3", true, "f.md:3: invalid YAML front matter: cannot unmarshal !!int `3` into []string"},
		{"unknown key", "name: a\ncolour: red", true, "f.md:3: invalid YAML front matter: field colour not found in type frontmatter.doc"},
		{"unknown key allowed", "name: a\ncolour: red", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Decode("f.md", tt.front, &d, tt.strict)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Decode: %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzSplitDecode(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\r\nname: [\r\n---\r\n",
		"---\n---\n",
		"---\nname: a: b\n---",
		"---\n- 1\n- 2\n---\n",
		"---\n&a [*a]\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		front, body, ok := Split(s)
		if !ok {
			return
		}
		if !strings.HasPrefix(s, "---") || len(front)+len(body) > len(s) {
			t.Fatalf("Split(%q) = %q, %q", s, front, body)
		}
		var m map[string]any
		if err := Decode("f.md", front, &m, false); err != nil {
			if e, ok := err.(*Error); !ok || e.File != "f.md" || e.Line < 0 {
				t.Fatalf("bad error %#v", err)
			}
		}
	})
}
