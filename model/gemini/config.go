package gemini

import (
	"strings"

	"google.golang.org/genai"
)

// thinkingBudget25 is the thinking budget Gemini CLI gives 2.5 chat models.
const thinkingBudget25 = 8192

// ThinkingConfig returns the thinking settings Gemini CLI uses for chat
// with modelID: a budget of 8192 tokens for Gemini 2.5 models, level HIGH
// for Gemini 3, and nil for models that cannot think (Gemini 2.0 and
// older, and unknown models), which reject a thinking config.
func ThinkingConfig(modelID string) *genai.ThinkingConfig {
	m := strings.ToLower(strings.TrimPrefix(modelID, "models/"))
	switch {
	case strings.HasPrefix(m, "gemini-3"):
		return &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevelHigh}
	case strings.HasPrefix(m, "gemini-2.5"):
		return &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr[int32](thinkingBudget25)}
	}
	return nil
}

// DefaultGenerationConfig returns Gemini CLI's "chat-base" generation
// settings for modelID: temperature 1, topP 0.95, topK 64, plus
// ThinkingConfig. Callers add the system instruction and tools.
func DefaultGenerationConfig(modelID string) *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{
		Temperature:    genai.Ptr[float32](1),
		TopP:           genai.Ptr[float32](0.95),
		TopK:           genai.Ptr[float32](64),
		ThinkingConfig: ThinkingConfig(modelID),
	}
}
