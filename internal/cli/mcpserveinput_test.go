package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestParseGuard(t *testing.T) {
	tests := []struct {
		name, in, wantPassed string
		wantErrors           int
	}{
		{"valid lines pass whole", "{\"a\":1}\n[{\"b\":2}]\n", "{\"a\":1}\n[{\"b\":2}]\n", 0},
		{"a broken line is answered and dropped", "{not json\n{\"a\":1}\n", "{\"a\":1}\n", 1},
		{"a scalar is not a message", "5\n\"x\"\n{\"a\":1}", "{\"a\":1}", 2},
		{"blank lines are skipped", "\n  \n{\"a\":1}\n", "{\"a\":1}\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			var warned int
			g := newParseGuard(strings.NewReader(tt.in), &out, func(string) { warned++ })
			got, err := io.ReadAll(g)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.wantPassed {
				t.Errorf("passed %q, want %q", got, tt.wantPassed)
			}
			if n := strings.Count(out.String(), `"code":-32700`); n != tt.wantErrors || warned != tt.wantErrors {
				t.Errorf("%d parse errors answered, %d warned, want %d:\n%s", n, warned, tt.wantErrors, out.String())
			}
		})
	}
}
