package semver

import "testing"

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"v0", "v0.0.0", true},
		{"0.1", "v0.1.0", true},
		{"v1.2.3", "v1.2.3", true},
		{"1.2.3-rc.1", "v1.2.3-rc.1", true},
		{"1.2.3+build", "v1.2.3", true},
		{"", "", false},
		{"v", "", false},
		{"01", "", false},
		{"1.2.3.4", "", false},
		{"1.0.0-", "", false},
	} {
		got, ok := Parse(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSatisfies(t *testing.T) {
	for _, tt := range []struct {
		have, want string
		ok         bool
	}{
		{"v0.0.0", "v0.0.0", true},
		{"v0.1.0", "v0.2.0", false},
		{"v0.2.3", "v0.2.1", true},
		{"v0.2.0", "v0.2.1", false},
		{"v1.4.0", "v1.2.0", true},
		{"v1.2.0", "v1.4.0", false},
		{"v2.0.0", "v1.0.0", false},
		{"v1.0.0", "v1.0.0-rc.1", true},
		{"v1.0.0-rc.1", "v1.0.0", false},
	} {
		if got := Satisfies(tt.have, tt.want); got != tt.ok {
			t.Errorf("Satisfies(%s, %s) = %v, want %v", tt.have, tt.want, got, tt.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"v0", "1.2.3", "v1.0.0-rc.1+b", "01", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Parse(s)
		if ok && !Satisfies(v, v) {
			t.Fatalf("%q does not satisfy itself", s)
		}
		if !ok && v != "" {
			t.Fatalf("Parse(%q) refused it but returned %q", s, v)
		}
	})
}
