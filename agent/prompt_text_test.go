package agent

import (
	"strings"
	"testing"
)

// TestSystemPromptCoversGuidance: the built-in prompt keeps the sections
// Gemini models are tuned for.
func TestSystemPromptCoversGuidance(t *testing.T) {
	p := defaultSystemPrompt(PromptOptions{InGitRepo: true})
	for _, want := range []string{
		"# Core Mandates", "**Conventions first:**", "**No assumed libraries:**", "**Comments:**", "**Proactiveness:**", "**Confirm ambiguity:**",
		"## Software engineering tasks", "## New applications", "## Tone and style", "## Security and safety", "## Tool usage",
		"**Parallelism:**", "background", "non-interactive", "**Memory:**", "# Examples", "# Git Repository", "# Final Reminder",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(defaultSystemPrompt(PromptOptions{}), "# Git Repository") {
		t.Error("git section outside a repository")
	}
}
