package extension

import (
	"context"
	"os"
)

// unattendedKey marks a context whose git commands run with no one to
// answer them (CheckAll, behind the interactive terminal).
type unattendedKey struct{}

// gitEnv is the environment of the git commands run for ctx. git itself
// never prompts (GIT_TERMINAL_PROMPT=0). Unattended, ssh does not either:
// it opens the terminal itself for a host key or a passphrase, and its
// question would land in the middle of the interactive screen with no
// one expecting it. A user's own GIT_SSH_COMMAND is kept.
func gitEnv(ctx context.Context) []string {
	env := append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if ctx.Value(unattendedKey{}) != nil && os.Getenv("GIT_SSH_COMMAND") == "" && os.Getenv("GIT_SSH") == "" {
		env = append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	return env
}
