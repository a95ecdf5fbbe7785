package atpath

import (
	"fmt"
	"strings"
	"testing"
)

func show(parts []Part) string {
	var out []string
	for _, p := range parts {
		if p.IsRef() {
			out = append(out, fmt.Sprintf("[%s→%s]", p.Text, p.Path))
		} else {
			out = append(out, fmt.Sprintf("%q", p.Text))
		}
	}
	return strings.Join(out, " ")
}

func TestParse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"look at @README.md", `"look at " [@README.md→README.md]`},
		{"look at @main.go.", `"look at " [@main.go→main.go] "."`},
		{"@a.txt and @b/c.go, then", `[@a.txt→a.txt] " and " [@b/c.go→b/c.go] ", then"`},
		{`@my\ file.txt please`, `[@my\ file.txt→my file.txt] " please"`},
		{`@"with space.txt" ok`, `[@"with space.txt"→with space.txt] " ok"`},
		{`escaped \@not here`, `"escaped \\@not here"`},
		{"lone @ sign", `"lone @ sign"`},
		{"mail me@example.com now", `"mail me" [@example.com→example.com] " now"`},
		{"(see @src/)", `"(see " [@src/→src/] ")"`},
		{"@x?", `[@x→x] "?"`},
		{"@.hidden/file", `[@.hidden/file→.hidden/file]`},
		{"@", `"@"`},
		{"", ``},
	}
	for _, tt := range tests {
		if got := show(Parse(tt.in)); got != tt.want {
			t.Errorf("Parse(%q) = %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// FuzzParse: the parser never panics, references are non-empty and start
// with "@", and the parts' text appears in the input in order.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"look at @README.md.", `@a\ b @"c d" \@e`, "@@@", "a@b@c", "@\\", `@"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rest := s
		for _, p := range Parse(s) {
			i := strings.Index(rest, p.Text)
			if i < 0 {
				t.Fatalf("part %q not found in order in %q", p.Text, s)
			}
			rest = rest[i+len(p.Text):]
			if p.IsRef() && (!strings.HasPrefix(p.Text, "@") || len(p.Text) < 2) {
				t.Fatalf("bad reference %+v", p)
			}
		}
	})
}
