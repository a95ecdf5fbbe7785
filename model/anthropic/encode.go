package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// MessagesRequest is the body of POST /v1/messages.
type MessagesRequest struct {
	Model         string        `json:"model"`
	MaxTokens     int32         `json:"max_tokens"`
	System        []Block       `json:"system,omitempty"`
	Messages      []Message     `json:"messages"`
	Tools         []Tool        `json:"tools,omitempty"`
	ToolChoice    *ToolChoice   `json:"tool_choice,omitempty"`
	Thinking      *Thinking     `json:"thinking,omitempty"`
	Temperature   *float32      `json:"temperature,omitempty"`
	StopSequences []string      `json:"stop_sequences,omitempty"`
	OutputConfig  *OutputConfig `json:"output_config,omitempty"`
	Stream        bool          `json:"stream"`
}

// Message is one turn: role "user" or "assistant" and its blocks.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// Block is a content block of any type; the fields its type uses are set.
// Thinking is a pointer because a thinking block's text may be empty (its
// display omitted) yet the field must be sent.
type Block struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	// image and document
	Source *Source `json:"source,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result: text and images
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"`
	IsError   bool    `json:"is_error,omitempty"`
	// thinking and redacted_thinking
	Thinking  *string `json:"thinking,omitempty"`
	Signature string  `json:"signature,omitempty"`
	Data      string  `json:"data,omitempty"`

	CacheControl *CacheControl `json:"cache_control,omitempty"`
}

// Source is an image's or a document's bytes.
type Source struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// CacheControl marks the end of a prefix the service may cache.
type CacheControl struct {
	Type string `json:"type"` // "ephemeral"
}

// Tool is a declared function; InputSchema is JSON Schema of an object.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"input_schema"`
}

// ToolChoice is "auto", "any", "tool" (with Name) or "none".
type ToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

// Thinking is "enabled" with a budget of at least 1024 tokens, or
// "adaptive" (the model decides).
type Thinking struct {
	Type         string `json:"type"`
	BudgetTokens int32  `json:"budget_tokens,omitempty"`
}

// OutputConfig asks for an answer in a JSON Schema's shape.
type OutputConfig struct {
	Format *OutputFormat `json:"format,omitempty"`
}

// OutputFormat is {"type": "json_schema", "schema": …}.
type OutputFormat struct {
	Type   string `json:"type"`
	Schema any    `json:"schema"`
}

// minThinkingBudget is the smallest budget the Messages API accepts.
const minThinkingBudget = 1024

var ephemeral = &CacheControl{Type: "ephemeral"}

// encoded is a request body and what decoding its answer needs.
type encoded struct {
	body     []byte
	hasTools bool
	// names maps a tool's name on the wire back to Castor's, for names
	// the API's pattern made us change.
	names map[string]string
}

// encodeRequest builds the body; withTools false leaves the declarations
// out and tells the model it has none.
func encodeRequest(name string, mc ModelConfig, req *model.Request, withTools bool) (encoded, error) {
	cfg := req.Config
	if cfg == nil {
		cfg = &genai.GenerateContentConfig{}
	}
	mr := MessagesRequest{Model: name, Stream: true, StopSequences: cfg.StopSequences}
	mr.MaxTokens = mc.MaxTokens
	if mr.MaxTokens <= 0 {
		mr.MaxTokens = cfg.MaxOutputTokens
	}
	if mr.MaxTokens <= 0 {
		mr.MaxTokens = DefaultMaxTokens(name)
	}
	enc := encoded{names: map[string]string{}}
	var tools []Tool
	for _, t := range cfg.Tools {
		if t == nil {
			continue
		}
		for _, fd := range t.FunctionDeclarations {
			wn := wireName(fd.Name)
			if wn != fd.Name {
				enc.names[wn] = fd.Name
			}
			tools = append(tools, Tool{Name: wn, Description: fd.Description, InputSchema: inputSchema(model.FunctionParameters(fd))})
		}
	}
	system := model.Text(cfg.SystemInstruction)
	if withTools {
		mr.Tools = tools
		mr.ToolChoice = toolChoice(cfg.ToolConfig)
	} else if len(tools) > 0 {
		system += model.NoToolsNote
	}
	if system != "" {
		// The first cache breakpoint: tools and system prompt, the same
		// on every call of a session.
		mr.System = []Block{{Type: "text", Text: system, CacheControl: ephemeral}}
	}
	mr.Messages = messages(req.Contents)
	if n := len(mr.Messages); n > 0 {
		// The second: the whole conversation so far, which the next call
		// repeats.
		last := mr.Messages[n-1].Content
		if b := &last[len(last)-1]; b.Type != "thinking" && b.Type != "redacted_thinking" {
			b.CacheControl = ephemeral
		}
	}
	mr.Thinking = thinking(mc, cfg, mr.MaxTokens)
	if mr.Thinking != nil && !thinkingAccepted(mr.Messages) {
		// A tool loop begun without thinking cannot turn it on midway.
		mr.Thinking = nil
	}
	// Thinking takes no temperature; otherwise 1 is both Gemini CLI's and
	// Anthropic's default, and newer models refuse temperature and top_p
	// together, so only a different temperature is sent and top_p and
	// top_k never.
	if mr.Thinking == nil && cfg.Temperature != nil && *cfg.Temperature != 1 {
		mr.Temperature = cfg.Temperature
	}
	if schema := outputSchema(cfg); schema != nil {
		mr.OutputConfig = &OutputConfig{Format: &OutputFormat{Type: "json_schema", Schema: schema}}
	}
	var err error
	enc.body, err = json.Marshal(mr)
	enc.hasTools = len(mr.Tools) > 0
	return enc, err
}

// DefaultMaxTokens is the max_tokens sent for a model without one in its
// provider settings: what the Claude 3 models allow at most, 32,000 for
// later Claude models (all allow at least that), and 8,192 for a model
// the name does not tell.
func DefaultMaxTokens(name string) int32 {
	switch {
	case strings.HasPrefix(name, "claude-3-haiku"), strings.HasPrefix(name, "claude-3-opus"), strings.HasPrefix(name, "claude-3-sonnet"):
		return 4096
	case strings.HasPrefix(name, "claude-3-5"):
		return 8192
	case strings.HasPrefix(name, "claude-"):
		return 32000
	}
	return 8192
}

// thinking is the thinking asked for: the provider model's budget, else
// the request's (Gemini's -1, dynamic, is Anthropic's adaptive); a budget
// is at least the API's minimum and leaves room for an answer.
func thinking(mc ModelConfig, cfg *genai.GenerateContentConfig, maxTokens int32) *Thinking {
	budget := mc.ThinkingBudget
	if budget == 0 && cfg.ThinkingConfig != nil && cfg.ThinkingConfig.ThinkingBudget != nil {
		budget = *cfg.ThinkingConfig.ThinkingBudget
	}
	switch {
	case budget < 0:
		return &Thinking{Type: "adaptive"}
	case budget == 0 || maxTokens <= minThinkingBudget:
		return nil
	}
	return &Thinking{Type: "enabled", BudgetTokens: min(max(budget, minThinkingBudget), maxTokens-1)}
}

// thinkingAccepted reports whether a request with thinking on may carry
// msgs: when the last assistant turn called tools (the loop goes on), it
// must begin with the thinking that came with it.
func thinkingAccepted(msgs []Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != "assistant" {
			continue
		}
		calls := false
		for _, b := range m.Content {
			calls = calls || b.Type == "tool_use"
		}
		return !calls || m.Content[0].Type == "thinking" || m.Content[0].Type == "redacted_thinking"
	}
	return true
}

func toolChoice(tc *genai.ToolConfig) *ToolChoice {
	if tc == nil || tc.FunctionCallingConfig == nil {
		return nil
	}
	fc := tc.FunctionCallingConfig
	switch fc.Mode {
	case genai.FunctionCallingConfigModeNone:
		return &ToolChoice{Type: "none"}
	case genai.FunctionCallingConfigModeAny:
		if len(fc.AllowedFunctionNames) == 1 {
			return &ToolChoice{Type: "tool", Name: wireName(fc.AllowedFunctionNames[0])}
		}
		return &ToolChoice{Type: "any"}
	}
	return nil
}

// outputSchema is the JSON Schema an answer must follow, if any.
func outputSchema(cfg *genai.GenerateContentConfig) any {
	switch {
	case cfg.ResponseJsonSchema != nil:
		return cfg.ResponseJsonSchema
	case cfg.ResponseSchema != nil:
		return model.JSONSchema(cfg.ResponseSchema)
	}
	return nil
}

// wireName is a tool name as the API's pattern ^[a-zA-Z0-9_-]{1,128}$
// allows it: other characters (Gemini allows '.' and ':') become '_'.
func wireName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 128 {
		b = b[:128]
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// callID is a call's id as the API's pattern allows it, the same for the
// call and its answer; the engine gives every call an id, the name stands
// in for one from elsewhere that has none.
func callID(id, name string) string {
	if id == "" {
		id = "call_" + name
	}
	return wireName(id)
}

// messages maps the history. Thought parts are display only: the blocks
// the API must see again travel in the signature of the part they
// preceded (thinking.go). A user turn answering calls puts its
// tool_result blocks first, as the API requires, each holding the parts
// that came after its function response (a read image).
func messages(contents []*genai.Content) []Message {
	var out []Message
	for _, c := range contents {
		if c == nil {
			continue
		}
		var blocks []Block
		if c.Role == genai.RoleModel {
			for _, p := range c.Parts {
				if p == nil {
					continue
				}
				blocks = append(blocks, unpackThinking(p.ThoughtSignature)...)
				switch {
				case p.Thought:
				case p.FunctionCall != nil:
					args := []byte("{}")
					if len(p.FunctionCall.Args) > 0 {
						args, _ = json.Marshal(p.FunctionCall.Args)
					}
					blocks = append(blocks, Block{Type: "tool_use", ID: callID(p.FunctionCall.ID, p.FunctionCall.Name), Name: wireName(p.FunctionCall.Name), Input: args})
				case p.Text != "":
					blocks = append(blocks, Block{Type: "text", Text: p.Text})
				}
			}
			if len(blocks) > 0 {
				out = append(out, Message{Role: "assistant", Content: blocks})
			}
			continue
		}
		var results []Block
		var result *Block // the tool_result the parts now seen belong to
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			if fr := p.FunctionResponse; fr != nil {
				results = append(results, toolResult(fr))
				result = &results[len(results)-1]
				continue
			}
			b, ok := userBlock(p)
			switch {
			case !ok:
			case result != nil && (b.Type == "text" || b.Type == "image"):
				result.Content = append(result.Content, b)
			default:
				blocks = append(blocks, b)
			}
		}
		if all := append(results, blocks...); len(all) > 0 {
			out = append(out, Message{Role: "user", Content: all})
		}
	}
	return out
}

// toolResult answers a call: the output or error text as is, any other
// response as JSON. The content is a list of blocks even for one text,
// as the SDK's types have it (the API also takes a string).
func toolResult(fr *genai.FunctionResponse) Block {
	b := Block{Type: "tool_result", ToolUseID: callID(fr.ID, fr.Name)}
	r := fr.Response
	text := ""
	if s, ok := r["error"].(string); ok && len(r) == 1 {
		text, b.IsError = s, true
	} else if s, ok := r["output"].(string); ok && len(r) == 1 {
		text = s
	} else {
		raw, _ := json.Marshal(r)
		text = string(raw)
	}
	if text != "" {
		// An empty result is sent without content, which the API takes.
		b.Content = []Block{{Type: "text", Text: text}}
	}
	return b
}

// userBlock maps a part of a user turn; ok is false for parts the API has
// no block for (empty text, other media).
func userBlock(p *genai.Part) (Block, bool) {
	switch {
	case p.InlineData != nil && strings.HasPrefix(p.InlineData.MIMEType, "image/"):
		return Block{Type: "image", Source: &Source{Type: "base64", MediaType: p.InlineData.MIMEType, Data: base64.StdEncoding.EncodeToString(p.InlineData.Data)}}, true
	case p.InlineData != nil && p.InlineData.MIMEType == "application/pdf":
		return Block{Type: "document", Source: &Source{Type: "base64", MediaType: p.InlineData.MIMEType, Data: base64.StdEncoding.EncodeToString(p.InlineData.Data)}}, true
	case p.Text != "" && !p.Thought:
		return Block{Type: "text", Text: p.Text}, true
	}
	return Block{}, false
}
