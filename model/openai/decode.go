package openai

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// Chunk is one streamed chat.completion.chunk.
type Chunk struct {
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage"`
	Error   any      `json:"error"`
}

// Choice is a chunk's delta for one choice.
type Choice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// Delta is what a chunk adds: text, reasoning (reasoning_content in
// DeepSeek, vLLM and llama.cpp, reasoning in Ollama and OpenRouter) and
// fragments of tool calls keyed by index.
type Delta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []ToolCallDelta `json:"tool_calls"`
}

// ToolCallDelta is a fragment of a tool call.
type ToolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Usage is the token count a stream ends with (stream_options.include_usage).
type Usage struct {
	PromptTokens        int32 `json:"prompt_tokens"`
	CompletionTokens    int32 `json:"completion_tokens"`
	TotalTokens         int32 `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int32 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int32 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// maxCalls bounds the parallel calls of one answer, so a server's
// index cannot make the decoder allocate without limit.
const maxCalls = 1024

// decodeStream reads server-sent events until [DONE] or the end, yielding
// text and reasoning at once and holding the finish (with the assembled
// tool calls) until the usage, which comes in a chunk of its own after it.
func decodeStream(provider string, r io.Reader, yield func(*genai.GenerateContentResponse, error) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	type call struct {
		id, name string
		args     strings.Builder
	}
	var calls []*call
	var finish genai.FinishReason
	var usage *genai.GenerateContentResponseUsageMetadata
	version := ""
	chunks := 0
	emit := func(parts ...*genai.Part) bool {
		chunks++
		return yield(&genai.GenerateContentResponse{ModelVersion: version, Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}}}}, nil)
	}
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			break
		}
		var ch Chunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			yield(nil, fmt.Errorf("openai stream: bad chunk %.200q: %v", data, err))
			return
		}
		if ch.Error != nil {
			raw, _ := json.Marshal(map[string]any{"error": ch.Error})
			yield(nil, &model.APIError{StatusCode: 500, Message: errorMessage(raw)})
			return
		}
		if ch.Model != "" {
			// Named as the user names it, so stats and prices agree.
			version = ch.Model
			if provider != "" {
				version = provider + "/" + ch.Model
			}
		}
		if ch.Usage != nil {
			usage = usageOf(ch.Usage)
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			d := c.Delta
			if t := d.ReasoningContent + d.Reasoning; t != "" && !emit(&genai.Part{Text: t, Thought: true}) {
				return
			}
			if d.Content != "" && !emit(&genai.Part{Text: d.Content}) {
				return
			}
			for _, tc := range d.ToolCalls {
				if tc.Index < 0 || tc.Index >= maxCalls {
					yield(nil, fmt.Errorf("openai stream: tool call index %d out of range", tc.Index))
					return
				}
				for len(calls) <= tc.Index {
					calls = append(calls, &call{})
				}
				cl := calls[tc.Index]
				if tc.ID != "" {
					cl.id = tc.ID
				}
				cl.name += tc.Function.Name
				cl.args.WriteString(tc.Function.Arguments)
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				finish = finishReason(*c.FinishReason)
			}
		}
	}
	if err := sc.Err(); err != nil {
		yield(nil, fmt.Errorf("openai stream: %w", err))
		return
	}
	if finish == "" {
		yield(nil, model.UnfinishedStreamError(chunks))
		return
	}
	last := &genai.GenerateContentResponse{ModelVersion: version, UsageMetadata: usage,
		Candidates: []*genai.Candidate{{FinishReason: finish, Content: &genai.Content{Role: genai.RoleModel}}}}
	for _, cl := range calls {
		args := map[string]any{}
		if s := strings.TrimSpace(cl.args.String()); s != "" {
			if err := json.Unmarshal([]byte(s), &args); err != nil {
				// The engine answers a call it cannot read with an error the
				// model sees, rather than failing the turn.
				args = map[string]any{"_unparsable_arguments": s}
			}
		}
		last.Candidates[0].Content.Parts = append(last.Candidates[0].Content.Parts,
			&genai.Part{FunctionCall: &genai.FunctionCall{ID: cl.id, Name: cl.name, Args: args}})
	}
	yield(last, nil)
}

func usageOf(u *Usage) *genai.GenerateContentResponseUsageMetadata {
	m := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: u.PromptTokens, CandidatesTokenCount: u.CompletionTokens, TotalTokenCount: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		m.CachedContentTokenCount = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil && u.CompletionTokensDetails.ReasoningTokens > 0 {
		// Gemini counts thoughts apart from the answer; OpenAI includes
		// them in completion_tokens.
		m.ThoughtsTokenCount = u.CompletionTokensDetails.ReasoningTokens
		m.CandidatesTokenCount -= m.ThoughtsTokenCount
	}
	if m.TotalTokenCount == 0 {
		m.TotalTokenCount = u.PromptTokens + u.CompletionTokens
	}
	return m
}

func finishReason(s string) genai.FinishReason {
	switch s {
	case "length":
		return genai.FinishReasonMaxTokens
	case "content_filter":
		return genai.FinishReasonSafety
	default: // stop, tool_calls, function_call, eos
		return genai.FinishReasonStop
	}
}
