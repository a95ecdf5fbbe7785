package cli

import (
	"slices"
	"testing"
)

func TestJoinOptionalValues(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"--resume", "3", "-p", "x"}, []string{"--resume=3", "-p", "x"}},
		{[]string{"-r", "latest"}, []string{"-r=latest"}},
		{[]string{"--resume", "-p", "x"}, []string{"--resume", "-p", "x"}},
		{[]string{"--resume"}, []string{"--resume"}},
		{[]string{"--", "--resume", "3"}, []string{"--", "--resume", "3"}},
	}
	for _, tt := range tests {
		if got := joinOptionalValues(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("joinOptionalValues(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
