package extension

import (
	"context"
	"slices"
	"testing"
)

// TestGitEnvUnattended: the background check's git commands cannot make
// ssh ask at the terminal; a foreground install may (a passphrase).
func TestGitEnvUnattended(t *testing.T) {
	t.Setenv("GIT_SSH_COMMAND", "")
	t.Setenv("GIT_SSH", "")
	batch := "GIT_SSH_COMMAND=ssh -o BatchMode=yes"
	if env := gitEnv(context.Background()); slices.Contains(env, batch) || !slices.Contains(env, "GIT_TERMINAL_PROMPT=0") {
		t.Errorf("foreground env: %v", env)
	}
	unattended := context.WithValue(context.Background(), unattendedKey{}, true)
	if env := gitEnv(unattended); !slices.Contains(env, batch) {
		t.Errorf("unattended env lacks %q", batch)
	}
	t.Setenv("GIT_SSH_COMMAND", "ssh -i mykey")
	if env := gitEnv(unattended); slices.Contains(env, batch) {
		t.Errorf("the user's GIT_SSH_COMMAND was overridden")
	}
}
