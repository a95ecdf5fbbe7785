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
// confirmations in Gemini CLI's format; they are not plain. A task
// restored from the store after a restart is not plain either (its
// creator is not recorded).

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
