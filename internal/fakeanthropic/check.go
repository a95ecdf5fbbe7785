package fakeanthropic

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/castor-dev/castor/model/anthropic"
)

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// check refuses what the Messages API refuses (its reference's rules for
// a request, those Castor could break). s.mu is held.
func (s *Server) check(m *anthropic.MessagesRequest) error {
	switch {
	case m.Model == "":
		return errors.New("model: Field required")
	case m.MaxTokens <= 0:
		return errors.New("max_tokens: Field required")
	case len(m.Messages) == 0:
		return errors.New("messages: at least one message is required")
	}
	if t := m.Thinking; t != nil {
		switch {
		case t.Type == "enabled" && t.BudgetTokens < 1024:
			return errors.New("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
		case t.Type == "enabled" && t.BudgetTokens >= m.MaxTokens:
			return errors.New("`max_tokens` must be greater than `thinking.budget_tokens`")
		case t.Type != "enabled" && t.Type != "adaptive" && t.Type != "disabled":
			return fmt.Errorf("thinking.type: %q is not valid", t.Type)
		case m.Temperature != nil:
			return errors.New("`temperature` may only be set to 1 when thinking is enabled")
		}
	}
	for i, t := range m.Tools {
		schema, _ := t.InputSchema.(map[string]any)
		switch {
		case !toolName.MatchString(t.Name):
			return fmt.Errorf("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i)
		case schema == nil || schema["type"] != "object":
			return fmt.Errorf("tools.%d.custom.input_schema.type: Field required", i)
		case schema["anyOf"] != nil || schema["oneOf"] != nil || schema["allOf"] != nil:
			return fmt.Errorf("tools.%d.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level", i)
		}
	}
	for _, b := range m.System {
		if b.Type != "text" || b.Text == "" {
			return errors.New("system: text content blocks must be non-empty")
		}
	}
	var calls []string // tool_use ids of the previous assistant turn
	for i, msg := range m.Messages {
		if msg.Role != "user" && msg.Role != "assistant" {
			return fmt.Errorf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if len(msg.Content) == 0 {
			return fmt.Errorf("messages.%d: all messages must have non-empty content", i)
		}
		if msg.Role == "user" {
			if err := answers(i, msg, calls); err != nil {
				return err
			}
			calls = nil
			continue
		}
		if len(calls) > 0 {
			return fmt.Errorf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %v", i-1, calls)
		}
		for j, b := range msg.Content {
			if err := s.checkAssistantBlock(i, j, b); err != nil {
				return err
			}
			if b.Type == "tool_use" {
				calls = append(calls, b.ID)
			}
		}
		last := i == len(m.Messages)-1 || i == len(m.Messages)-2
		if last && len(calls) > 0 && m.Thinking != nil && m.Thinking.Type != "disabled" {
			if t := msg.Content[0].Type; t != "thinking" && t != "redacted_thinking" {
				return fmt.Errorf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block", i, t)
			}
		}
	}
	if len(calls) > 0 {
		return errors.New("messages: the last `tool_use` has no `tool_result` after it")
	}
	return nil
}

func (s *Server) checkAssistantBlock(i, j int, b anthropic.Block) error {
	switch b.Type {
	case "text":
		if b.Text == "" {
			return fmt.Errorf("messages.%d.content.%d.text: text content blocks must be non-empty", i, j)
		}
	case "tool_use":
		if b.ID == "" || !toolName.MatchString(b.Name) || len(b.Input) == 0 {
			return fmt.Errorf("messages.%d.content.%d.tool_use: id, name and input are required", i, j)
		}
	case "thinking":
		if b.Thinking == nil || s.signed[b.Signature] != *b.Thinking {
			return fmt.Errorf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
		}
		if b.CacheControl != nil {
			return fmt.Errorf("messages.%d.content.%d.thinking.cache_control: thinking blocks cannot be cached", i, j)
		}
	case "redacted_thinking":
		if !s.redacted[b.Data] {
			return fmt.Errorf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, j)
		}
	default:
		return fmt.Errorf("messages.%d.content.%d.type: %q is not an assistant block", i, j, b.Type)
	}
	return nil
}

// answers checks a user turn after calls: a tool_result for each call,
// the results before anything else.
func answers(i int, msg anthropic.Message, calls []string) error {
	want := map[string]bool{}
	for _, id := range calls {
		want[id] = true
	}
	others := false
	for j, b := range msg.Content {
		switch b.Type {
		case "tool_result":
			if others {
				return fmt.Errorf("messages.%d.content.%d: tool_result blocks must come first in the user message", i, j)
			}
			if !want[b.ToolUseID] {
				return fmt.Errorf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message", i, j, b.ToolUseID)
			}
			delete(want, b.ToolUseID)
		case "text":
			if b.Text == "" {
				return fmt.Errorf("messages.%d.content.%d.text: text content blocks must be non-empty", i, j)
			}
			others = true
		case "image", "document":
			if b.Source == nil || b.Source.Type != "base64" || b.Source.Data == "" {
				return fmt.Errorf("messages.%d.content.%d.source: a base64 source is required", i, j)
			}
			others = true
		default:
			return fmt.Errorf("messages.%d.content.%d.type: %q is not a user block", i, j, b.Type)
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after", i-1)
	}
	return nil
}
