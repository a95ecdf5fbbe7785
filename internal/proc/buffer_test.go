package proc

import (
	"strings"
	"testing"
)

// TestBuffer: past the limit the oldest bytes go, OnFull is called once,
// and a write is never refused.
func TestBuffer(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		writes    []string
		want      string
		truncated bool
	}{
		{"under the limit", 10, []string{"abc", "def"}, "abcdef", false},
		{"at the limit", 6, []string{"abc", "def"}, "abcdef", false},
		{"past the limit keeps the end", 4, []string{"abc", "def"}, "cdef", true},
		{"one write past the limit", 3, []string{"abcdefgh"}, "fgh", true},
		{"no limit", 0, []string{strings.Repeat("x", 1000)}, strings.Repeat("x", 1000), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := 0
			b := &Buffer{Limit: tt.limit, OnFull: func() { full++ }}
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			_, _ = b.Write(nil)
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if b.Truncated() != tt.truncated {
				t.Errorf("Truncated() = %v", b.Truncated())
			}
			if wantFull := map[bool]int{true: 1}[tt.truncated]; full != wantFull {
				t.Errorf("OnFull called %d times, want %d", full, wantFull)
			}
		})
	}
}

func TestBufferTailAndHead(t *testing.T) {
	b := &Buffer{}
	_, _ = b.Write([]byte("one\ntwo\nthree\n"))
	tests := []struct {
		n    int
		tail string
		head string
	}{
		{100, "one\ntwo\nthree\n", "one\ntwo\nthree\n"},
		{8, "three\n", "one\ntwo\n"}, // "o\nthree\n" cut at the line start
		{5, "", "one\nt"},            // "ree\n": the only newline ends it
		{0, "", ""},
	}
	for _, tt := range tests {
		if got := b.Tail(tt.n); got != tt.tail {
			t.Errorf("Tail(%d) = %q, want %q", tt.n, got, tt.tail)
		}
		if got := string(b.Head(tt.n)); got != tt.head {
			t.Errorf("Head(%d) = %q, want %q", tt.n, got, tt.head)
		}
	}
}

func TestEnv(t *testing.T) {
	base := []string{"A=1", "SECRET=x"}
	redact := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "SECRET=") {
				out = append(out, kv)
			}
		}
		return out
	}
	got := Env(base, []string{"B=2", "SECRET=y"}, redact)
	if strings.Join(got, " ") != "A=1 B=2" {
		t.Errorf("Env = %q: what is added must be redacted too", got)
	}
	if strings.Join(base, " ") != "A=1 SECRET=x" {
		t.Errorf("base changed: %q", base)
	}
	if got := Env(base, nil, nil); strings.Join(got, " ") != "A=1 SECRET=x" {
		t.Errorf("Env without redaction = %q", got)
	}
}
