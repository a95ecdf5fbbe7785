package builtin

import (
	"slices"
	"strings"
	"testing"
)

func TestShellEnvRedact(t *testing.T) {
	environ := func() []string { return []string{"PATH=/bin", "API_TOKEN=s3cret", "PLAIN=ok"} }
	dropSecrets := func(env []string) []string {
		return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.Contains(kv, "TOKEN") })
	}
	tests := []struct {
		name string
		env  *Env
		want []string
	}{
		{"no redaction", &Env{Environ: environ},
			[]string{"PATH=/bin", "API_TOKEN=s3cret", "PLAIN=ok", "GEMINI_CLI=1", "CASTOR=1", "TERM=xterm-256color", "PAGER=cat", "GIT_PAGER=cat"}},
		{"redacted", &Env{Environ: environ, Redact: dropSecrets},
			[]string{"PATH=/bin", "PLAIN=ok", "GEMINI_CLI=1", "CASTOR=1", "TERM=xterm-256color", "PAGER=cat", "GIT_PAGER=cat"}},
		// Redaction sees the agent's own variables too.
		{"redaction comes last", &Env{Environ: environ, Redact: func([]string) []string { return nil }}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shellEnv(tt.env); !slices.Equal(got, tt.want) {
				t.Errorf("shellEnv = %q, want %q", got, tt.want)
			}
		})
	}
}
