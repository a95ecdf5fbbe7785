package setup

import (
	"context"

	"google.golang.org/genai"
)

// ExpandPrompt turns what a user typed into the parts sent to the model.
// Every face calls it, so that one rule serves them all: today the text
// is sent as typed; `@path` includes and custom commands are expanded
// here once they exist.
func (a *Agent) ExpandPrompt(ctx context.Context, text string) ([]*genai.Part, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	parts := []*genai.Part{genai.NewPartFromText(text)}
	if n := a.SubagentNudge(text); n != nil {
		parts = append(parts, n)
	}
	return parts, nil
}
