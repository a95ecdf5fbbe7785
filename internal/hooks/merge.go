package hooks

import (
	"maps"
	"slices"
	"strings"

	"github.com/castor-dev/castor/agent"
)

// Merge combines the outputs of the hooks of one event (nil entries are
// hooks that said nothing) with Gemini CLI's strategy for the event:
//
//   - tool, agent and SessionStart events: any deny wins, any
//     continue: false wins, reasons, stop reasons, system messages and
//     additional contexts are joined by newlines, specific fields merge;
//   - model events: later fields replace earlier ones;
//   - BeforeToolSelection: NONE wins, else ANY if any asks for it, else
//     AUTO, with the union of the allowed names, sorted;
//   - others: later fields replace earlier ones.
func Merge(event agent.HookEvent, outs []*agent.HookOutput) *agent.HookOutput {
	var list []*agent.HookOutput
	for _, o := range outs {
		if o != nil {
			list = append(list, o)
		}
	}
	if len(list) == 0 {
		return nil
	}
	switch event {
	case agent.HookBeforeTool, agent.HookAfterTool, agent.HookBeforeAgent, agent.HookAfterAgent, agent.HookSessionStart:
		return mergeDecisions(list)
	case agent.HookBeforeToolSelection:
		return mergeToolSelection(list)
	}
	return mergeReplace(list)
}

func mergeDecisions(list []*agent.HookOutput) *agent.HookOutput {
	m := &agent.HookOutput{}
	var stops, reasons, msgs, contexts []string
	blocked, stopped := false, false
	sp := &agent.HookSpecificOutput{}
	hasSpecific := false
	for _, o := range list {
		if o.Stops() {
			stopped = true
			if o.StopReason != "" {
				stops = append(stops, o.StopReason)
			}
		}
		if o.Blocks() {
			blocked = true
			m.Decision = o.Decision
		} else if o.Decision == "ask" && !blocked {
			m.Decision = "ask"
		}
		if o.Reason != "" {
			reasons = append(reasons, o.Reason)
		}
		if o.SystemMessage != "" {
			msgs = append(msgs, o.SystemMessage)
		}
		m.SuppressOutput = m.SuppressOutput || o.SuppressOutput
		if s := o.HookSpecificOutput; s != nil {
			hasSpecific = true
			if s.AdditionalContext != "" {
				contexts = append(contexts, s.AdditionalContext)
			}
			overlay(sp, s)
		}
	}
	if stopped {
		f := false
		m.Continue = &f
	}
	if !blocked && !stopped && m.Decision == "" {
		m.Decision = "allow"
	}
	m.StopReason = strings.Join(stops, "\n")
	m.Reason = strings.Join(reasons, "\n")
	m.SystemMessage = strings.Join(msgs, "\n")
	if hasSpecific {
		sp.AdditionalContext = strings.Join(contexts, "\n")
		m.HookSpecificOutput = sp
	}
	return m
}

// overlay copies the fields s sets onto dst; clearContext is sticky.
func overlay(dst, s *agent.HookSpecificOutput) {
	if s.HookEventName != "" {
		dst.HookEventName = s.HookEventName
	}
	if s.ToolInput != nil {
		if dst.ToolInput == nil {
			dst.ToolInput = map[string]any{}
		}
		maps.Copy(dst.ToolInput, s.ToolInput)
	}
	if s.ToolOutput != nil {
		dst.ToolOutput = s.ToolOutput
	}
	if s.TailToolCallRequest != nil {
		dst.TailToolCallRequest = s.TailToolCallRequest
	}
	dst.ClearContext = dst.ClearContext || s.ClearContext
	if s.LLMRequest != nil {
		dst.LLMRequest = s.LLMRequest
	}
	if s.LLMResponse != nil {
		dst.LLMResponse = s.LLMResponse
	}
	if s.ToolConfig != nil {
		dst.ToolConfig = s.ToolConfig
	}
}

func mergeReplace(list []*agent.HookOutput) *agent.HookOutput {
	m := &agent.HookOutput{}
	for _, o := range list {
		if o.Continue != nil {
			m.Continue = o.Continue
		}
		if o.StopReason != "" {
			m.StopReason = o.StopReason
		}
		m.SuppressOutput = m.SuppressOutput || o.SuppressOutput
		if o.SystemMessage != "" {
			m.SystemMessage = o.SystemMessage
		}
		if o.Decision != "" {
			m.Decision = o.Decision
		}
		if o.Reason != "" {
			m.Reason = o.Reason
		}
		if s := o.HookSpecificOutput; s != nil {
			if m.HookSpecificOutput == nil {
				m.HookSpecificOutput = &agent.HookSpecificOutput{}
			}
			if s.AdditionalContext != "" {
				m.HookSpecificOutput.AdditionalContext = s.AdditionalContext
			}
			overlay(m.HookSpecificOutput, s)
		}
	}
	return m
}

func mergeToolSelection(list []*agent.HookOutput) *agent.HookOutput {
	none, anyMode, seen := false, false, false
	names := map[string]bool{}
	for _, o := range list {
		tc := o.Specific().ToolConfig
		if tc == nil {
			continue
		}
		seen = true
		switch strings.ToUpper(tc.Mode) {
		case "NONE":
			none = true
		case "ANY":
			anyMode = true
		}
		for _, n := range tc.AllowedFunctionNames {
			names[n] = true
		}
	}
	if !seen {
		return nil
	}
	tc := &agent.HookToolConfig{Mode: "AUTO"}
	switch {
	case none:
		tc.Mode = "NONE"
	case anyMode:
		tc.Mode = "ANY"
	}
	if !none {
		tc.AllowedFunctionNames = slices.Sorted(maps.Keys(names))
	}
	return &agent.HookOutput{HookSpecificOutput: &agent.HookSpecificOutput{HookEventName: string(agent.HookBeforeToolSelection), ToolConfig: tc}}
}
