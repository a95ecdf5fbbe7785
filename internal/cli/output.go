package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/model"
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

// newRenderer returns the renderer of format. Unless raw, the text it
// prints or puts in JSON strings is cleaned of terminal control sequences
// (see cleaner).
func newRenderer(format string, stdout, stderr io.Writer, raw bool) renderer {
	c := cleaner{raw: raw}
	switch format {
	case FormatJSON:
		return &jsonRenderer{w: stdout, errw: stderr, cleaner: c}
	case FormatStreamJSON:
		return &streamRenderer{w: stdout, errw: stderr, cleaner: c}
	}
	return &textRenderer{w: stdout, errw: stderr, cleaner: c}
}

// cleaner removes terminal control sequences from the model's text, tool
// output and messages, which an injected reply can fill with sequences
// that retitle the terminal, write the clipboard or hide text. In JSON the
// sequences would be escaped, but the program reading it may print the
// decoded strings. --raw-output turns it off.
type cleaner struct {
	raw bool
	// text cleans the model text of one response, which arrives in
	// pieces: a sequence split between two pieces is removed whole.
	text termtext.Stream
}

// str cleans one whole string.
func (c *cleaner) str(s string) string {
	if c.raw {
		return s
	}
	return termtext.String(s)
}

// piece cleans the next piece of a response's text.
func (c *cleaner) piece(s string) string {
	if c.raw {
		return s
	}
	return c.text.Clean(s)
}

// endText ends a response's text: it returns what piece held back and
// forgets an unfinished sequence, which must not swallow the next
// response.
func (c *cleaner) endText() string {
	if c.raw {
		return ""
	}
	return c.text.Flush()
}

// value cleans the strings, keys included, of a decoded JSON value such
// as tool call arguments.
func (c *cleaner) value(v any) any {
	if c.raw {
		return v
	}
	switch v := v.(type) {
	case string:
		return termtext.String(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[termtext.String(k)] = c.value(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = c.value(e)
		}
		return out
	}
	return v
}

// stats cleans the model and tool names that key the stats: both can come
// from the model service.
func (c *cleaner) stats(s agent.Stats) agent.Stats {
	if c.raw {
		return s
	}
	s.Models = cleanKeys(s.Models)
	s.Tools.ByName = cleanKeys(s.Tools.ByName)
	return s
}

// cleanKeys returns m, or a copy with cleaned keys if one needs it.
func cleanKeys[V any](m map[string]V) map[string]V {
	dirty := false
	for k := range m {
		if termtext.String(k) != k {
			dirty = true
			break
		}
	}
	if !dirty {
		return m
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[termtext.String(k)] = v
	}
	return out
}

// textRenderer prints the model's text as it streams, a newline between the
// texts of successive model responses.
type textRenderer struct {
	w, errw io.Writer
	cleaner
	wrote       bool // any text written
	turnHasText bool
	lastNL      bool
}

func (r *textRenderer) start(string, string, string) {}

func (r *textRenderer) event(ev *agent.Event) {
	switch ev.Type {
	case agent.EventContent:
		r.write(r.piece(ev.Text))
	case agent.EventFinished:
		r.write(r.endText())
		r.turnHasText = false
	case agent.EventLoopDetected:
		fmt.Fprintf(r.errw, "Warning: %s\n", loopWarning)
	case agent.EventWarning:
		fmt.Fprintf(r.errw, "Warning: %s\n", r.str(ev.Text))
	case agent.EventHookMessage:
		fmt.Fprintf(r.errw, "%s\n", r.str(ev.Text))
	case agent.EventRetry, agent.EventFallback:
		noticeLine(r.errw, ev, r.cleaner)
	case agent.EventToolCall:
		c := ev.Call
		if c.Status == agent.StatusError && c.Result != nil && c.Result.Error != nil {
			fmt.Fprintf(r.errw, "Error executing tool %s: %s\n", r.str(c.Name), r.str(c.Result.Error.Message))
		}
	}
}

// write prints model text, after a newline when it starts the text of a
// new response.
func (r *textRenderer) write(text string) {
	if text == "" {
		return
	}
	if r.wrote && !r.turnHasText && !r.lastNL {
		io.WriteString(r.w, "\n")
	}
	io.WriteString(r.w, text)
	r.wrote, r.turnHasText = true, true
	r.lastNL = strings.HasSuffix(text, "\n")
}

func (r *textRenderer) finish(_ agent.Stats, err error, _ int, _ time.Duration) {
	r.write(r.endText())
	if r.wrote && !r.lastNL {
		io.WriteString(r.w, "\n")
	}
}

// jsonRenderer prints one object at the end: the session id, the turn's
// answer as the engine gives it (the text of the last model response), and
// the stats.
type jsonRenderer struct {
	w, errw io.Writer
	cleaner
	// price, when set, prices the stats' tokens (cost.go).
	price     func(string) model.Price
	sessionID string
	response  string
	// partial is the text of the response being streamed, the answer
	// when a loop stops the turn (a builder, so a long answer is gathered
	// in linear time); warnings go in the output as 0.61's.
	partial  strings.Builder
	lastText string
	warnings []string
}

func (r *jsonRenderer) start(sessionID, _, _ string) { r.sessionID = sessionID }

func (r *jsonRenderer) event(ev *agent.Event) {
	if ev.Type == agent.EventTurnEnd || ev.Type == agent.EventInputRequired {
		r.response = ev.Text
	}
	r.track(ev)
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
			Stats     costedStats `json:"stats"`
		}{r.str(r.sessionID), jsonError{Type: errorType(err), Message: r.str(errorMessage(err)), Code: code}, withCost(r.stats(stats), r.price)}
	} else {
		out = struct {
			SessionID string      `json:"session_id"`
			Response  string      `json:"response"`
			Stats     costedStats `json:"stats"`
			Warnings  []string    `json:"warnings,omitempty"`
		}{r.str(r.sessionID), r.str(r.response), withCost(r.stats(stats), r.price), r.warnings}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	w := r.w
	var blocked *commandBlockedError
	if errors.As(err, &blocked) {
		w = r.errw
	}
	w.Write(append(b, '\n'))
}

// streamRenderer prints one JSON object per line as things happen.
type streamRenderer struct {
	w, errw io.Writer
	cleaner
	// price, when set, prices the result's tokens (cost.go).
	price func(string) model.Price
	model string
	// onceOnly leaves "always allow" answers out of permission requests
	// (security.disableAlwaysAllow; always.go).
	onceOnly bool
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
	r.initEvent(sessionID, model) // streamin.go
	r.userMessage(prompt)
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
		text := r.piece(ev.Text)
		if text == "" && ev.Text != "" {
			// All of it was a control sequence, or is held back until
			// the next piece.
			return
		}
		r.message(text)
	case agent.EventFinished:
		if tail := r.endText(); tail != "" {
			r.message(tail)
		}
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
			}{"tool_use", stamp(), r.str(c.Name), r.str(toolID(c)), r.value(params).(map[string]any)})
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
			}{Type: "tool_result", Timestamp: stamp(), ToolID: r.str(toolID(c)), Status: "success"}
			if d, ok := toolResultOutput(c); ok {
				d = r.str(d)
				out.Output = &d
			}
			if c.Status != agent.StatusSuccess {
				out.Status = "error"
				if c.Result != nil && c.Result.Error != nil {
					out.Error = &toolErr{string(c.Result.Error.Type), r.str(c.Result.Error.Message)}
				}
			}
			r.line(out)
		}
	case agent.EventRetry, agent.EventFallback:
		noticeLine(r.errw, ev, r.cleaner)
	case agent.EventHookMessage:
		// A hook's systemMessage (or the warning of a hook that failed)
		// has no stream-json event in Gemini CLI; it goes to stderr as in
		// text mode rather than nowhere.
		fmt.Fprintf(r.errw, "%s\n", r.str(ev.Text))
	case agent.EventLoopDetected, agent.EventMaxSessionTurns, agent.EventWarning:
		msg := ev.Text
		switch ev.Type {
		case agent.EventMaxSessionTurns:
			msg = "Maximum session turns exceeded"
		case agent.EventLoopDetected:
			msg = loopWarning
		}
		r.line(struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Severity  string `json:"severity"`
			Message   string `json:"message"`
		}{"error", stamp(), "warning", r.str(msg)})
	}
}

// message prints a piece of the model's text.
func (r *streamRenderer) message(text string) {
	r.line(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Role      string `json:"role"`
		Content   string `json:"content"`
		Delta     bool   `json:"delta"`
	}{"message", stamp(), "assistant", text, true})
}

type streamModelStats struct {
	TotalTokens  int64 `json:"total_tokens"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Cached       int64 `json:"cached"`
	Input        int64 `json:"input"`
}

func (r *streamRenderer) finish(stats agent.Stats, err error, code int, elapsed time.Duration) {
	if tail := r.endText(); tail != "" {
		r.message(tail)
	}
	stats = r.stats(stats)
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
		CostUSD      *float64                    `json:"cost_usd,omitempty"`
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
			elapsed.Milliseconds(), stats.Tools.TotalCalls, models, nil},
	}
	if c := withCost(stats, r.price).Cost; c != nil {
		out.Stats.CostUSD = &c.TotalUSD
	}
	if err != nil {
		out.Status = "error"
		out.Error = &jsonError{Type: errorType(err), Message: r.str(errorMessage(err)), Code: code}
	}
	r.line(out)
}

func castorStatsZero() agent.Stats {
	return agent.Stats{Models: map[string]*agent.ModelStats{}, Tools: agent.ToolStats{ByName: map[string]*agent.ToolNameStats{}}}
}
