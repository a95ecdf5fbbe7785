package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/castor-dev/castor/agent"
)

// Exit codes of command hooks.
const (
	exitOK      = 0
	exitWarning = 1
)

// Result turns what a command hook did into its output, as Gemini CLI
// reads it: exit 0 parses stdout as JSON (a JSON string holding JSON is
// decoded twice), and plain text becomes a system message; exit 1 is a
// warning shown to the user; any other code blocks, with stderr (else
// stdout) as the reason.
func Result(code int, stdout, stderr string) *agent.HookOutput {
	out := strings.TrimSpace(stdout)
	errText := strings.TrimSpace(stderr)
	switch code {
	case exitOK:
		if out == "" {
			return nil
		}
		if o, err := ParseOutput([]byte(out)); err == nil {
			return o
		}
		return &agent.HookOutput{Decision: "allow", SystemMessage: out}
	case exitWarning:
		msg := errText
		if msg == "" {
			msg = out
		}
		if msg == "" {
			return nil
		}
		return &agent.HookOutput{Decision: "allow", SystemMessage: "Warning: " + msg}
	}
	reason := errText
	if reason == "" {
		reason = out
	}
	if reason == "" {
		reason = fmt.Sprintf("hook exited with code %d", code)
	}
	return &agent.HookOutput{Decision: "deny", Reason: reason}
}

// errNotObject is returned for JSON that is not an object.
var errNotObject = errors.New("hook output is not a JSON object")

// ParseOutput decodes a hook's JSON output leniently: fields of the wrong
// type are ignored rather than failing the whole output, as Gemini CLI
// ignores them. Only input that is not a JSON object (after unwrapping a
// JSON string) is an error.
func ParseOutput(data []byte) (*agent.HookOutput, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, err
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	o := &agent.HookOutput{}
	if b, ok := m["continue"].(bool); ok {
		o.Continue = &b
	}
	o.StopReason = str(m["stopReason"])
	o.SuppressOutput, _ = m["suppressOutput"].(bool)
	o.SystemMessage = str(m["systemMessage"])
	o.Decision = strings.ToLower(str(m["decision"]))
	if o.Decision == "approve" {
		o.Decision = "allow"
	}
	o.Reason = str(m["reason"])
	if sp, ok := m["hookSpecificOutput"].(map[string]any); ok {
		o.HookSpecificOutput = specific(sp)
	}
	return o, nil
}

func specific(m map[string]any) *agent.HookSpecificOutput {
	sp := &agent.HookSpecificOutput{
		HookEventName:     str(m["hookEventName"]),
		AdditionalContext: str(m["additionalContext"]),
	}
	if ti, ok := m["tool_input"].(map[string]any); ok {
		sp.ToolInput = ti
	}
	if s, ok := m["tool_output"].(string); ok {
		sp.ToolOutput = &s
	}
	if t, ok := m["tailToolCallRequest"].(map[string]any); ok {
		if name := str(t["name"]); name != "" {
			args, _ := t["args"].(map[string]any)
			sp.TailToolCallRequest = &agent.TailToolCall{Name: name, Args: args}
		}
	}
	sp.ClearContext, _ = m["clearContext"].(bool)
	if r, ok := m["llm_request"].(map[string]any); ok {
		sp.LLMRequest = llmRequest(r)
	}
	if r, ok := m["llm_response"].(map[string]any); ok {
		sp.LLMResponse = llmResponse(r)
	}
	if tc, ok := m["toolConfig"].(map[string]any); ok {
		sp.ToolConfig = toolConfig(tc)
	}
	return sp
}

func llmRequest(m map[string]any) *agent.LLMRequest {
	r := &agent.LLMRequest{Model: str(m["model"])}
	if msgs, ok := m["messages"].([]any); ok {
		r.Messages = []agent.LLMMessage{}
		for _, x := range msgs {
			mm, ok := x.(map[string]any)
			if !ok {
				continue
			}
			r.Messages = append(r.Messages, agent.LLMMessage{Role: str(mm["role"]), Content: str(mm["content"])})
		}
	}
	if c, ok := m["config"].(map[string]any); ok {
		r.Config = c
	}
	if tc, ok := m["toolConfig"].(map[string]any); ok {
		r.ToolConfig = toolConfig(tc)
	}
	return r
}

func llmResponse(m map[string]any) *agent.LLMResponse {
	r := &agent.LLMResponse{Text: str(m["text"]), Candidates: []agent.LLMCandidate{}}
	cands, _ := m["candidates"].([]any)
	if c, ok := m["candidate"].(map[string]any); ok && cands == nil {
		cands = []any{c}
	}
	for _, x := range cands {
		cm, ok := x.(map[string]any)
		if !ok {
			continue
		}
		c := agent.LLMCandidate{FinishReason: str(cm["finishReason"]), Content: agent.LLMContent{Role: "model", Parts: []string{}}}
		if content, ok := cm["content"].(map[string]any); ok {
			parts, _ := content["parts"].([]any)
			for _, p := range parts {
				switch p := p.(type) {
				case string:
					c.Content.Parts = append(c.Content.Parts, p)
				case map[string]any:
					if t := str(p["text"]); t != "" {
						c.Content.Parts = append(c.Content.Parts, t)
					}
				}
			}
		}
		r.Candidates = append(r.Candidates, c)
	}
	if u, ok := m["usageMetadata"].(map[string]any); ok {
		r.UsageMetadata = &agent.LLMUsageMetadata{
			PromptTokenCount:     num(u["promptTokenCount"]),
			CandidatesTokenCount: num(u["candidatesTokenCount"]),
			TotalTokenCount:      num(u["totalTokenCount"]),
		}
	}
	return r
}

// toolConfig accepts both forms the docs show: {mode, allowedFunctionNames}
// and {functionCallingConfig: {...}}.
func toolConfig(m map[string]any) *agent.HookToolConfig {
	if fc, ok := m["functionCallingConfig"].(map[string]any); ok {
		m = fc
	}
	tc := &agent.HookToolConfig{Mode: strings.ToUpper(str(m["mode"]))}
	if names, ok := m["allowedFunctionNames"].([]any); ok {
		for _, n := range names {
			if s, ok := n.(string); ok {
				tc.AllowedFunctionNames = append(tc.AllowedFunctionNames, s)
			}
		}
	}
	return tc
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int32 {
	f, _ := v.(float64)
	if f < 0 || f > 1<<31-1 {
		return 0
	}
	return int32(f)
}
