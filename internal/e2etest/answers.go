package e2etest

import (
	"fmt"
	"strings"
)

// TemplatedAnswer is the answer issue 26 saw stopped at its tenth
// paragraph with "loop detected": fourteen paragraphs sharing a template,
// the package name the only change. Gemini CLI prints it whole.
func TemplatedAnswer() string {
	var b strings.Builder
	for _, p := range []string{"agent", "model", "tool", "policy", "config", "command", "mcp",
		"ide", "acp", "a2a", "internal/setup", "internal/cli", "internal/tui", "internal/proc"} {
		fmt.Fprintf(&b, "For the %s package, run go test ./%s/... from the repository root, then read the first failure before the others, since it usually explains them.\n\n", p, p)
	}
	return strings.TrimSuffix(b.String(), "\n\n")
}

// Pieces splits text into n-byte pieces, as a model streams it.
func Pieces(text string, n int) []string {
	var out []string
	for i := 0; i < len(text); i += n {
		out = append(out, text[i:min(i+n, len(text))])
	}
	return out
}
