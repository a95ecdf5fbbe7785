package castor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// TestPolicyFileMistakeIsConfigError: a program whose policy file has a
// mistake gets a *castor.ConfigError naming the file, line and key, not an
// agent with fewer rules; WithIgnorePolicyErrors brings the warning back.
func TestPolicyFileMistakeIsConfigError(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.toml")
	os.WriteFile(rules, []byte("[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"deny\"\npriority = 1\n\n[[rule]]\ntoolName = \"x\"\ndecision = \"perhaps\"\n"), 0o644)
	base := []castor.Option{castor.WithClient(fake.Script(fake.Text("hi"))), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir), castor.WithoutRecording(), castor.WithPolicyFiles(rules)}
	_, err := castor.New(context.Background(), base...)
	var ce *castor.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), rules+": rule #2 (line 6): decision:") {
		t.Fatalf("New: %v, want a *castor.ConfigError naming the file, line and key", err)
	}
	var warnings []string
	a, err := castor.New(context.Background(), append(base, castor.WithIgnorePolicyErrors(), castor.WithWarnings(func(s string) { warnings = append(warnings, s) }))...)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if !strings.Contains(strings.Join(warnings, "\n"), "rule #2 (line 6): decision:") {
		t.Errorf("warnings %q", warnings)
	}
}
