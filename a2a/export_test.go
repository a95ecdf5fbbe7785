package a2a

import (
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// WireStep is one engine happening fed to the renderer by the wire
// tests: a tool call in Status (with Outcome), or, when Output is set,
// the call's output so far.
type WireStep struct {
	Status  agent.Status
	Outcome string
	Output  string
}

// RenderWire renders steps of one call ("call-1", write_file) through a
// stream's renderer in the legacy format (ext false) or the extension's,
// as a stream that saw every step would.
func RenderWire(ext bool, steps []WireStep) []any {
	r := newRenderer(ext, "task-1", "ctx-1")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var out []any
	for _, s := range steps {
		c := &agent.ToolCall{ID: "call-1", Name: "write_file", Args: map[string]any{"file_path": "a.txt"}, PromptID: "p-1", Status: s.Status}
		c.Outcome = tool.Outcome(s.Outcome)
		u := &update{kind: uTool, call: c, state: StateWorking, model: "m", time: at}
		if s.Output != "" {
			c.LiveOutput = s.Output
			u.kind, u.text = uOutput, s.Output
		}
		out = append(out, r.render(u)...)
	}
	return out
}
