package setup

import (
	"slices"
	"testing"

	"github.com/castor-dev/castor/config"
)

// TestLSPEnvironWithholdsSecrets: a language server gets no API key, but
// the Go module patterns it needs.
func TestLSPEnvironWithholdsSecrets(t *testing.T) {
	for k, v := range map[string]string{"PATH": "/bin", "GEMINI_API_KEY": "k", "GOPRIVATE": "example.com/*", "MY_TOKEN": "t"} {
		t.Setenv(k, v)
	}
	a := &Agent{Settings: &config.Settings{}, Env: NewEnv(nil)}
	got := lspEnviron(a)
	for _, want := range []string{"PATH=/bin", "GOPRIVATE=example.com/*"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s withheld: %v", want, got)
		}
	}
	for _, gone := range []string{"GEMINI_API_KEY=k", "MY_TOKEN=t"} {
		if slices.Contains(got, gone) {
			t.Errorf("%s passed: %v", gone, got)
		}
	}
}
