package setup

import (
	"github.com/castor-dev/castor/config"
	envredact "github.com/castor-dev/castor/internal/redaction"
)

// envRules reads security.environmentVariableRedaction (enabled, allowed,
// blocked): how the environment of hooks is redacted, and, made secure,
// that of shell commands. Stdio MCP servers are redacted whatever enabled
// says (see openMCP).
func envRules(st *config.Settings) envredact.Rules {
	on, _ := st.GetBool("security.environmentVariableRedaction.enabled")
	return envredact.Rules{Enabled: on, Allowed: redaction(st, "allowed"), Blocked: redaction(st, "blocked")}
}

// RedactShellEnv filters environ, the environment a shell command is about
// to start with, as Gemini CLI does for its shell tool and shell mode:
// with security.environmentVariableRedaction.enabled (or in GitHub
// Actions) secrets are withheld, and the allowed list cannot let through a
// variable whose name looks secret. Faces that run commands themselves
// (the terminal's shell mode) call it too.
func (a *Agent) RedactShellEnv(environ []string) []string {
	return envRules(a.Settings).Secure().Apply(environ)
}
