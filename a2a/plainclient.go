package a2a

import (
	"fmt"

	"github.com/castor-dev/castor/agent"
)

// A plain A2A client is one that creates a task with neither the
// development-tool extension activated nor Gemini CLI's coderAgent
// metadata (agent settings) on its first message: Gemini CLI's own
// remote-agent client (a2a-client-manager, @a2a-js/sdk) is one, sending
// a text part and nothing else. Such a client cannot answer a
// confirmation, and it hands everything its streams say to its model as
// text (data parts as JSON). So its task:
//
//   - decides a call that needs approval by the server's policy at once
//     (SessionSpec.CannotConfirm): refused unless the policy allows it,
//     as in a headless run, the model told and the turn going on; the
//     task never waits for an answer that cannot come, and the next
//     message runs;
//   - is rendered as readable text: the model's text, errors, and one
//     line for each call refused or failed, no thoughts, tool-call data
//     or live output.
//
// Gemini Code Assist clients send agent settings and answer
// confirmations in Gemini CLI's format; they are not plain. The mark is
// stored with the task (storedPlainKey), so a task a plain client
// created is still plain after a restart or on another replica.

// plainClient reports whether a task's first message comes from a plain
// client: no extension, no agent settings, no coderAgent metadata and no
// data parts.
func plainClient(ext bool, settings *AgentSettings, m *Message) bool {
	if ext || settings != nil {
		return false
	}
	if _, ok := m.Metadata["coderAgent"]; ok {
		return false
	}
	for _, p := range m.Parts {
		if p.Kind == PartData {
			return false
		}
	}
	return true
}

// plainCall renders a call for a plain client: a line when it was refused
// or failed, so that the calling model learns why, nothing otherwise (its
// result reaches Castor's model, whose answer follows).
func (r *renderer) plainCall(u *update) []any {
	c := u.call
	if u.kind != uTool || c.Status != agent.StatusError || c.Result == nil || c.Result.Error == nil {
		return nil
	}
	if r.sent[c.ID] == "error" {
		return nil
	}
	r.sent[c.ID] = "error"
	text := fmt.Sprintf("\n[Tool call %s was not run: %s]\n", c.Name, c.Result.Error.Message)
	return r.message(u, "text-content", devTextContent, TextPart(text))
}

// storedPlainKey marks a plain client's task in the stored
// __persistedState, beside Gemini CLI's _agentSettings and _taskState,
// which every store keeps as it is; tasks/get never shows it.
const storedPlainKey = "_castorPlainClient"

// storedPlain reports whether stored task metadata carries the mark.
func storedPlain(meta map[string]any) bool {
	ps, _ := meta["__persistedState"].(map[string]any)
	on, _ := ps[storedPlainKey].(bool)
	return on
}
