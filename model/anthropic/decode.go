package anthropic

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// Event is one server-sent event of a streamed message; the fields its
// type uses are set.
type Event struct {
	Type string `json:"type"`
	// message_start
	Message *struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage Usage  `json:"usage"`
	} `json:"message"`
	// content_block_start, _delta, _stop
	Index        int    `json:"index"`
	ContentBlock *Block `json:"content_block"`
	Delta        *Delta `json:"delta"`
	// message_delta
	Usage *Usage `json:"usage"`
	// error
	Error *ErrorBody `json:"error"`
}

// Delta is a content_block_delta's (text_delta, input_json_delta,
// thinking_delta, signature_delta) or a message_delta's (stop_reason).
type Delta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

// Usage counts tokens. Input excludes the cached prefix: read from the
// cache and written to it are counted apart.
type Usage struct {
	InputTokens              int32 `json:"input_tokens"`
	OutputTokens             int32 `json:"output_tokens"`
	CacheCreationInputTokens int32 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int32 `json:"cache_read_input_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens int32 `json:"thinking_tokens"`
	} `json:"output_tokens_details,omitempty"`
}

// ErrorBody is the error of an error envelope or event.
type ErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// maxBlocks bounds the blocks of one message, so a server's index cannot
// make the decoder allocate without limit.
const maxBlocks = 4096

// block is a content block being streamed.
type block struct {
	typ, id, name string
	text          strings.Builder // tool_use input, or thinking text
	signature     string
	data          string
	started       bool // a text block whose first part was emitted
}

// decoder turns a message's events into genai chunks.
type decoder struct {
	version string
	names   map[string]string
	yield   func(*genai.GenerateContentResponse, error) bool

	blocks  []*block
	pending []Block // thinking blocks ended, not yet packed on a part
	usage   Usage
	stop    string
	chunks  int
}

func (d *decoder) emit(p *genai.Part) bool {
	d.chunks++
	return d.yield(&genai.GenerateContentResponse{ModelVersion: d.version, Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{p}}}}}, nil)
}

// carry gives p the thinking blocks that came before it.
func (d *decoder) carry(p *genai.Part) *genai.Part {
	p.ThoughtSignature = packThinking(d.pending)
	d.pending = nil
	return p
}

// decodeStream reads server-sent events until message_stop or the end,
// yielding text and thinking as they come, each tool call once its input
// is whole, and the finish with the usage last.
func decodeStream(version string, names map[string]string, r io.Reader, yield func(*genai.GenerateContentResponse, error) bool) {
	d := &decoder{version: version, names: names, yield: yield}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue // event: lines name the type the data repeats
		}
		var ev Event
		if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &ev); err != nil {
			yield(nil, fmt.Errorf("anthropic stream: bad event %.200q: %v", data, err))
			return
		}
		done, ok := d.event(&ev)
		if !ok {
			return
		}
		if done {
			break
		}
	}
	if err := sc.Err(); err != nil {
		yield(nil, fmt.Errorf("anthropic stream: %w", err))
		return
	}
	if d.stop == "" {
		yield(nil, model.UnfinishedStreamError(d.chunks))
		return
	}
	yield(&genai.GenerateContentResponse{ModelVersion: d.version, UsageMetadata: usageOf(d.usage),
		Candidates: []*genai.Candidate{{FinishReason: finishReason(d.stop), Content: &genai.Content{Role: genai.RoleModel}}}}, nil)
}

// event handles one event; done is true at message_stop, ok false once
// the stream must end (an error yielded, or the caller stopped).
func (d *decoder) event(ev *Event) (done, ok bool) {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			d.usage = ev.Message.Usage
		}
	case "content_block_start":
		if ev.Index < 0 || ev.Index >= maxBlocks || ev.ContentBlock == nil {
			return d.fail(fmt.Errorf("anthropic stream: content block %d out of range", ev.Index))
		}
		for len(d.blocks) <= ev.Index {
			d.blocks = append(d.blocks, nil)
		}
		cb := ev.ContentBlock
		b := &block{typ: cb.Type, id: cb.ID, name: cb.Name, data: cb.Data, signature: cb.Signature}
		if cb.Thinking != nil {
			b.text.WriteString(*cb.Thinking)
		}
		d.blocks[ev.Index] = b
		if cb.Type == "text" && cb.Text != "" {
			return false, d.text(b, cb.Text)
		}
	case "content_block_delta":
		b := d.block(ev.Index)
		if b == nil || ev.Delta == nil {
			return d.fail(fmt.Errorf("anthropic stream: delta for content block %d, which has not started", ev.Index))
		}
		switch ev.Delta.Type {
		case "text_delta":
			return false, d.text(b, ev.Delta.Text)
		case "input_json_delta":
			b.text.WriteString(ev.Delta.PartialJSON)
		case "thinking_delta":
			b.text.WriteString(ev.Delta.Thinking)
			if ev.Delta.Thinking != "" {
				return false, d.emit(&genai.Part{Text: ev.Delta.Thinking, Thought: true})
			}
		case "signature_delta":
			b.signature += ev.Delta.Signature
		}
	case "content_block_stop":
		b := d.block(ev.Index)
		if b == nil {
			return d.fail(fmt.Errorf("anthropic stream: content block %d stopped before it started", ev.Index))
		}
		switch b.typ {
		case "thinking":
			t := b.text.String()
			d.pending = append(d.pending, Block{Type: "thinking", Thinking: &t, Signature: b.signature})
		case "redacted_thinking":
			d.pending = append(d.pending, Block{Type: "redacted_thinking", Data: b.data})
		case "tool_use":
			return false, d.emit(d.carry(&genai.Part{FunctionCall: d.call(b)}))
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			d.stop = ev.Delta.StopReason
		}
		if u := ev.Usage; u != nil {
			// Counts here are cumulative; output always, input only on
			// some versions of the API.
			d.usage.OutputTokens = u.OutputTokens
			d.usage.OutputTokensDetails = u.OutputTokensDetails
			if u.InputTokens > 0 || u.CacheReadInputTokens > 0 || u.CacheCreationInputTokens > 0 {
				d.usage.InputTokens, d.usage.CacheReadInputTokens, d.usage.CacheCreationInputTokens = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens
			}
		}
	case "message_stop":
		return true, true
	case "error":
		e := ErrorBody{Type: "api_error", Message: "unknown error"}
		if ev.Error != nil {
			e = *ev.Error
		}
		return d.fail(apiError(statusOf(e.Type), nil, e))
	}
	// ping, and event types added later, are ignored as the API asks.
	return false, true
}

// fail yields err, which ends the stream.
func (d *decoder) fail(err error) (done, ok bool) {
	d.yield(nil, err)
	return false, false
}

func (d *decoder) block(i int) *block {
	if i < 0 || i >= len(d.blocks) {
		return nil
	}
	return d.blocks[i]
}

// text emits a text block's piece, its first carrying the thinking that
// came before the block.
func (d *decoder) text(b *block, s string) bool {
	if s == "" {
		return true
	}
	p := &genai.Part{Text: s}
	if !b.started {
		b.started = true
		d.carry(p)
	}
	return d.emit(p)
}

// call is a tool_use block as a function call, its input parsed.
func (d *decoder) call(b *block) *genai.FunctionCall {
	args := map[string]any{}
	if s := strings.TrimSpace(b.text.String()); s != "" {
		if err := json.Unmarshal([]byte(s), &args); err != nil {
			// The engine answers a call it cannot read with an error the
			// model sees, rather than failing the turn.
			args = map[string]any{"_unparsable_arguments": s}
		}
	}
	name := b.name
	if orig, ok := d.names[name]; ok {
		name = orig
	}
	return &genai.FunctionCall{ID: b.id, Name: name, Args: args}
}

// usageOf says u in Gemini's terms: the prompt counts the cached prefix
// too, of which the part read from the cache is "cached" (priced as
// such); thinking is counted apart when the API tells it.
func usageOf(u Usage) *genai.GenerateContentResponseUsageMetadata {
	prompt := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	m := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: prompt, CachedContentTokenCount: u.CacheReadInputTokens,
		CandidatesTokenCount: u.OutputTokens, TotalTokenCount: prompt + u.OutputTokens}
	model.SetCacheWriteTokens(m, u.CacheCreationInputTokens)
	if d := u.OutputTokensDetails; d != nil && d.ThinkingTokens > 0 && d.ThinkingTokens <= u.OutputTokens {
		m.ThoughtsTokenCount = d.ThinkingTokens
		m.CandidatesTokenCount -= d.ThinkingTokens
	}
	return m
}

// finishReason maps a stop_reason. A refusal is Gemini's SAFETY, which the
// engine reports as a blocked answer; a full context window is a
// max-tokens stop.
func finishReason(s string) genai.FinishReason {
	switch s {
	case "max_tokens", "model_context_window_exceeded":
		return genai.FinishReasonMaxTokens
	case "refusal":
		return genai.FinishReasonSafety
	default: // end_turn, tool_use, stop_sequence, pause_turn
		return genai.FinishReasonStop
	}
}

// statusOf is the HTTP status an error type comes with, for errors that
// arrive as stream events.
func statusOf(typ string) int {
	switch typ {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "overloaded_error":
		return 529
	}
	return http.StatusInternalServerError
}
