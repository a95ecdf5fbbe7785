package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/castor-dev/castor/agent"
)

// Output formats, as -o/--output-format names them.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// renderer turns engine events into one output format.
type renderer interface {
	// start is called once before the first event, with the user's prompt.
	start(sessionID, model, prompt string)
	event(ev *agent.Event)
	// finish is called once at the end; err is nil on success.
	finish(stats agent.Stats, err error, code int, elapsed time.Duration)
}

func newRenderer(format string, stdout, stderr io.Writer) renderer {
	switch format {
	case FormatJSON:
		return &jsonRenderer{w: stdout}
	case FormatStreamJSON:
		return &streamRenderer{w: stdout}
	}
	return &textRenderer{w: stdout, errw: stderr}
}

// textRenderer prints the model's text as it streams, a newline between the
// texts of successive model responses.
type textRenderer struct {
	w, errw     io.Writer
	wrote       bool // any text written
	turnHasText bool
	lastNL      bool
}

func (r *textRenderer) start(string, string, string) {}

func (r *textRenderer) event(ev *agent.Event) {
	switch ev.Type {
	case agent.EventContent:
		if ev.Text == "" {
			return
		}
		if r.wrote && !r.turnHasText && !r.lastNL {
			io.WriteString(r.w, "\n")
		}
		io.WriteString(r.w, ev.Text)
		r.wrote, r.turnHasText = true, true
		r.lastNL = strings.HasSuffix(ev.Text, "\n")
	case agent.EventFinished:
		r.turnHasText = false
	case agent.EventLoopDetected, agent.EventWarning:
		fmt.Fprintf(r.errw, "Warning: %s\n", ev.Text)
	case agent.EventRetry:
		if n := ev.Notice; n != nil {
			fmt.Fprintf(r.errw, "Attempt %d failed: %v. Retrying with backoff...\n", n.Attempt, n.Err)
		}
	case agent.EventFallback:
		if n := ev.Notice; n != nil {
			fmt.Fprintf(r.errw, "Quota exhausted for %s; switching to %s.\n", n.From, n.To)
		}
	case agent.EventToolCall:
		c := ev.Call
		if c.Status == agent.StatusError && c.Result != nil && c.Result.Error != nil {
			fmt.Fprintf(r.errw, "Error executing tool %s: %s\n", c.Name, c.Result.Error.Message)
		}
	}
}

func (r *textRenderer) finish(_ agent.Stats, err error, _ int, _ time.Duration) {
	if r.wrote && !r.lastNL {
		io.WriteString(r.w, "\n")
	}
}

// jsonRenderer prints one object at the end: the session id, the turn's
// answer as the engine gives it (the text of the last model response), and
// the stats.
type jsonRenderer struct {
	w         io.Writer
	sessionID string
	response  string
}

func (r *jsonRenderer) start(sessionID, _, _ string) { r.sessionID = sessionID }

func (r *jsonRenderer) event(ev *agent.Event) {
	if ev.Type == agent.EventTurnEnd || ev.Type == agent.EventInputRequired {
		r.response = ev.Text
	}
}

type jsonError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    int    `json:"code,omitempty"`
}

func (r *jsonRenderer) finish(stats agent.Stats, err error, code int, _ time.Duration) {
	var out any
	if err != nil {
		out = struct {
			SessionID string      `json:"session_id"`
			Error     jsonError   `json:"error"`
			Stats     agent.Stats `json:"stats"`
		}{r.sessionID, jsonError{Type: errorType(err), Message: err.Error(), Code: code}, stats}
	} else {
		out = struct {
			SessionID string      `json:"session_id"`
			Response  string      `json:"response"`
			Stats     agent.Stats `json:"stats"`
		}{r.sessionID, r.response, stats}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	r.w.Write(append(b, '\n'))
}

// streamRenderer prints one JSON object per line as things happen.
type streamRenderer struct {
	w     io.Writer
	model string
}

func stamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func (r *streamRenderer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.w.Write(append(b, '\n'))
}

func (r *streamRenderer) start(sessionID, model, prompt string) {
	r.model = model
	r.line(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		SessionID string `json:"session_id"`
		Model     string `json:"model"`
	}{"init", stamp(), sessionID, model})
	r.line(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Role      string `json:"role"`
		Content   string `json:"content"`
	}{"message", stamp(), "user", prompt})
}

// toolID is the tool_id Gemini CLI prints: the call id prefixed with the
// tool name.
func toolID(c *agent.ToolCall) string {
	if strings.HasPrefix(c.ID, c.Name+"__") {
		return c.ID
	}
	return c.Name + "__" + c.ID
}

func (r *streamRenderer) event(ev *agent.Event) {
	switch ev.Type {
	case agent.EventContent:
		r.line(struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Role      string `json:"role"`
			Content   string `json:"content"`
			Delta     bool   `json:"delta"`
		}{"message", stamp(), "assistant", ev.Text, true})
	case agent.EventToolCall:
		c := ev.Call
		switch {
		case c.Status == agent.StatusValidating:
			params := c.Args
			if params == nil {
				params = map[string]any{}
			}
			r.line(struct {
				Type       string         `json:"type"`
				Timestamp  string         `json:"timestamp"`
				ToolName   string         `json:"tool_name"`
				ToolID     string         `json:"tool_id"`
				Parameters map[string]any `json:"parameters"`
			}{"tool_use", stamp(), c.Name, toolID(c), params})
		case c.Status.Terminal():
			type toolErr struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			}
			out := struct {
				Type      string   `json:"type"`
				Timestamp string   `json:"timestamp"`
				ToolID    string   `json:"tool_id"`
				Status    string   `json:"status"`
				Output    *string  `json:"output,omitempty"`
				Error     *toolErr `json:"error,omitempty"`
			}{Type: "tool_result", Timestamp: stamp(), ToolID: toolID(c), Status: "success"}
			if c.Status == agent.StatusSuccess {
				if c.Result != nil && c.Result.Diff == nil && c.Result.Display != "" {
					d := c.Result.Display
					out.Output = &d
				}
			} else {
				out.Status = "error"
				if c.Result != nil && c.Result.Error != nil {
					out.Error = &toolErr{string(c.Result.Error.Type), c.Result.Error.Message}
				}
			}
			r.line(out)
		}
	case agent.EventLoopDetected, agent.EventMaxSessionTurns, agent.EventWarning:
		msg := ev.Text
		if ev.Type == agent.EventMaxSessionTurns {
			msg = "Maximum session turns exceeded"
		}
		r.line(struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Severity  string `json:"severity"`
			Message   string `json:"message"`
		}{"error", stamp(), "warning", msg})
	}
}

type streamModelStats struct {
	TotalTokens  int64 `json:"total_tokens"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Cached       int64 `json:"cached"`
	Input        int64 `json:"input"`
}

func (r *streamRenderer) finish(stats agent.Stats, err error, code int, elapsed time.Duration) {
	var total streamModelStats
	models := map[string]streamModelStats{}
	for name, m := range stats.Models {
		ms := streamModelStats{
			TotalTokens:  m.Tokens.Total,
			InputTokens:  m.Tokens.Prompt,
			OutputTokens: m.Tokens.Candidates,
			Cached:       m.Tokens.Cached,
			Input:        m.Tokens.Input,
		}
		models[name] = ms
		total.TotalTokens += ms.TotalTokens
		total.InputTokens += ms.InputTokens
		total.OutputTokens += ms.OutputTokens
		total.Cached += ms.Cached
		total.Input += ms.Input
	}
	type resultStats struct {
		TotalTokens  int64                       `json:"total_tokens"`
		InputTokens  int64                       `json:"input_tokens"`
		OutputTokens int64                       `json:"output_tokens"`
		Cached       int64                       `json:"cached"`
		Input        int64                       `json:"input"`
		DurationMs   int64                       `json:"duration_ms"`
		ToolCalls    int                         `json:"tool_calls"`
		Models       map[string]streamModelStats `json:"models"`
	}
	out := struct {
		Type      string      `json:"type"`
		Timestamp string      `json:"timestamp"`
		Status    string      `json:"status"`
		Error     *jsonError  `json:"error,omitempty"`
		Stats     resultStats `json:"stats"`
	}{
		Type: "result", Timestamp: stamp(), Status: "success",
		Stats: resultStats{total.TotalTokens, total.InputTokens, total.OutputTokens, total.Cached, total.Input,
			elapsed.Milliseconds(), stats.Tools.TotalCalls, models},
	}
	if err != nil {
		out.Status = "error"
		out.Error = &jsonError{Type: errorType(err), Message: err.Error(), Code: code}
	}
	r.line(out)
}

func castorStatsZero() agent.Stats {
	return agent.Stats{Models: map[string]*agent.ModelStats{}, Tools: agent.ToolStats{ByName: map[string]*agent.ToolNameStats{}}}
}
