package mcp

import (
	"sort"
	"strings"

	"github.com/castor-dev/castor/internal/redaction"
)

// Environment redaction for stdio servers, after Gemini CLI's
// environmentSanitization: a server gets the user's environment minus what
// looks like a secret, plus what its configuration sets explicitly.

// redactEnv returns environ ("K=V" entries) without the variables that
// look like secrets by name or value (package redaction). allowed and
// blocked are extra variable names (case-insensitive) to keep or drop.
// Gemini CLI redacts a stdio server's environment whether or not
// security.environmentVariableRedaction.enabled is set, with the allowed
// names as given (unlike the shell's, see redaction.Rules.Secure).
func redactEnv(environ []string, allowed, blocked []string) []string {
	return redaction.Rules{Enabled: true, Allowed: allowed, Blocked: blocked}.Apply(environ)
}

// mergeEnv returns base with every key of over set (over wins), sorted for
// a reproducible child environment.
func mergeEnv(base []string, over map[string]string) []string {
	m := make(map[string]string, len(base)+len(over))
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	for k, v := range over {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
