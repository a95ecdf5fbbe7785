package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/castor-dev/castor/tool"
)

// UpdateTopicTool is update_topic (Gemini CLI's topicTool.ts): the model
// names the chapter of the work it is in and its immediate intent, which
// the tool keeps for UIs and echoes back to the model.
type UpdateTopicTool struct {
	mu            sync.Mutex
	topic, intent string
}

// NewUpdateTopic returns update_topic, with no topic yet.
func NewUpdateTopic(*Env) tool.Tool { return &UpdateTopicTool{} }

// Topic returns the current topic and intent ("" before any).
func (t *UpdateTopicTool) Topic() (topic, intent string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.topic, t.intent
}

// Name is "update_topic".
func (t *UpdateTopicTool) Name() string { return "update_topic" }

// DisplayName is Gemini CLI's "Update Topic Context".
func (t *UpdateTopicTool) DisplayName() string { return "Update Topic Context" }

// Kind is think: bookkeeping that needs no approval.
func (t *UpdateTopicTool) Kind() tool.Kind { return tool.KindThink }

// Description is Gemini CLI's.
func (t *UpdateTopicTool) Description() string {
	return "Manages your narrative flow. Include `title` and `summary` only when starting a new Chapter (logical phase) or shifting strategic intent."
}

// Schema is Gemini CLI's.
func (t *UpdateTopicTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"title": map[string]any{"type": "string", "description": "The title of the new topic or chapter."},
			"summary": map[string]any{"type": "string",
				"description": "(OPTIONAL) A detailed summary (5-10 sentences) covering both the work completed in the previous topic and the strategic intent of the new topic. This is required when transitioning between topics to maintain continuity."},
			"strategic_intent": map[string]any{"type": "string", "description": "A mandatory one-sentence statement of your immediate intent."},
		},
		"required": []any{"strategic_intent"},
	}
}

// Build implements tool.Tool.
func (t *UpdateTopicTool) Build(args map[string]any) (tool.Call, error) {
	c := &updateTopicCall{t: t}
	c.title, _ = argString(args, "title")
	c.summary, _ = argString(args, "summary")
	c.intent, _ = argString(args, "strategic_intent")
	return c, nil
}

type updateTopicCall struct {
	t                      *UpdateTopicTool
	title, summary, intent string
}

func (c *updateTopicCall) Describe() string {
	if c.title != "" {
		return `Update topic to: "` + c.title + `"`
	}
	return `Update tactical intent: "` + orDots(c.intent) + `"`
}

func (c *updateTopicCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

// Execute keeps the topic and answers with Gemini CLI's texts.
func (c *updateTopicCall) Execute(context.Context, func(string)) *tool.Result {
	t := c.t
	t.mu.Lock()
	title := strings.TrimSpace(c.title)
	isNew := title != "" && title != t.topic
	if title != "" {
		t.topic = title
	}
	if c.intent != "" {
		t.intent = c.intent
	}
	topic, intent := orDots(t.topic), t.intent
	t.mu.Unlock()
	if c.intent != "" {
		intent = c.intent
	}
	intent = orDots(intent)
	if !isNew {
		return &tool.Result{LLMText: "Strategic Intent: " + intent, Display: "> [!STRATEGY]\n> **Intent:** " + intent}
	}
	llm := fmt.Sprintf("Current topic: \"%s\"\nTopic summary: %s", topic, orDots(c.summary))
	display := fmt.Sprintf("## 📂 Topic: **%s**\n\n**Summary:**\n%s", topic, orDots(c.summary))
	if s := strings.TrimSpace(c.intent); s != "" {
		llm += "\n\nStrategic Intent: " + s
		display += "\n\n> [!STRATEGY]\n> **Intent:** " + s
	}
	return &tool.Result{LLMText: llm, Display: display}
}

func orDots(s string) string {
	if s == "" {
		return "..."
	}
	return s
}
