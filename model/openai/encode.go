package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// Message is one chat-completions message as sent.
type Message struct {
	Role       string     `json:"role"`
	Content    any        `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is an assistant message's call of a function.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is a tool call's function and its JSON-encoded arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a function declaration as sent.
type Tool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// FunctionDef is a declared function: its parameters are JSON Schema.
type FunctionDef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters"`
}

// ChatRequest is the body of POST /chat/completions.
type ChatRequest struct {
	Model         string         `json:"model"`
	Messages      []Message      `json:"messages"`
	Tools         []Tool         `json:"tools,omitempty"`
	Stream        bool           `json:"stream"`
	StreamOptions map[string]any `json:"stream_options,omitempty"`
	Temperature   *float32       `json:"temperature,omitempty"`
	TopP          *float32       `json:"top_p,omitempty"`
	MaxTokens     int32          `json:"max_tokens,omitempty"`
}

type imagePart struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	ImageURL map[string]string `json:"image_url,omitempty"`
}

// encodeRequest builds the body; withTools false leaves the declarations
// out and tells the model it has none. hasTools reports whether any were
// sent.
func encodeRequest(name string, req *model.Request, withTools bool) (body []byte, hasTools bool, err error) {
	cr := ChatRequest{Model: name, Stream: true, StreamOptions: map[string]any{"include_usage": true}}
	cfg := req.Config
	if cfg == nil {
		cfg = &genai.GenerateContentConfig{}
	}
	cr.Temperature, cr.TopP, cr.MaxTokens = cfg.Temperature, cfg.TopP, cfg.MaxOutputTokens
	var tools []Tool
	for _, t := range cfg.Tools {
		if t == nil {
			continue
		}
		for _, fd := range t.FunctionDeclarations {
			tools = append(tools, Tool{Type: "function", Function: FunctionDef{Name: fd.Name, Description: fd.Description, Parameters: model.FunctionParameters(fd)}})
		}
	}
	system := model.Text(cfg.SystemInstruction)
	if withTools {
		cr.Tools = tools
	} else if len(tools) > 0 {
		system += model.NoToolsNote
	}
	if system != "" {
		cr.Messages = append(cr.Messages, Message{Role: "system", Content: system})
	}
	cr.Messages = append(cr.Messages, messages(req.Contents)...)
	body, err = json.Marshal(cr)
	return body, len(cr.Tools) > 0, err
}

// messages maps the history. A function response goes back as a "tool"
// message naming its call's id: the call's own id when it has one, else
// the id this encoding gave the call (calls and their answers pair in
// order, as the engine sends them).
func messages(contents []*genai.Content) []Message {
	var out []Message
	var pending []ToolCall
	for ci, c := range contents {
		if c == nil {
			continue
		}
		if c.Role == genai.RoleModel {
			m := Message{Role: "assistant"}
			var text strings.Builder
			pending = pending[:0]
			for pi, p := range c.Parts {
				switch {
				case p == nil || p.Thought:
				case p.FunctionCall != nil:
					id := p.FunctionCall.ID
					if id == "" {
						id = fmt.Sprintf("call_%d_%d", ci, pi)
					}
					args, _ := json.Marshal(p.FunctionCall.Args)
					if p.FunctionCall.Args == nil {
						args = []byte("{}")
					}
					tc := ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: p.FunctionCall.Name, Arguments: string(args)}}
					m.ToolCalls = append(m.ToolCalls, tc)
					pending = append(pending, tc)
				default:
					text.WriteString(p.Text)
				}
			}
			if text.Len() > 0 {
				m.Content = text.String()
			}
			if m.Content != nil || len(m.ToolCalls) > 0 {
				out = append(out, m)
			}
			continue
		}
		var text strings.Builder
		var images []imagePart
		for _, p := range c.Parts {
			switch {
			case p == nil:
			case p.FunctionResponse != nil:
				var id string
				id, pending = callID(pending, p.FunctionResponse)
				resp, _ := json.Marshal(p.FunctionResponse.Response)
				out = append(out, Message{Role: "tool", ToolCallID: id, Content: string(resp)})
			case p.InlineData != nil && strings.HasPrefix(p.InlineData.MIMEType, "image/"):
				url := "data:" + p.InlineData.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(p.InlineData.Data)
				images = append(images, imagePart{Type: "image_url", ImageURL: map[string]string{"url": url}})
			default:
				text.WriteString(p.Text)
			}
		}
		switch {
		case len(images) > 0:
			parts := images
			if text.Len() > 0 {
				parts = append([]imagePart{{Type: "text", Text: text.String()}}, images...)
			}
			out = append(out, Message{Role: "user", Content: parts})
		case text.Len() > 0:
			out = append(out, Message{Role: "user", Content: text.String()})
		}
	}
	return out
}

// callID finds the call fr answers among pending: by id, else the first
// of the same name; it returns the id and the calls still unanswered.
func callID(pending []ToolCall, fr *genai.FunctionResponse) (string, []ToolCall) {
	at := -1
	for i, tc := range pending {
		if fr.ID != "" && tc.ID == fr.ID {
			at = i
			break
		}
	}
	if at < 0 {
		for i, tc := range pending {
			if tc.Function.Name == fr.Name {
				at = i
				break
			}
		}
	}
	if at < 0 {
		if fr.ID != "" {
			return fr.ID, pending
		}
		return "call_" + fr.Name, pending
	}
	id := pending[at].ID
	return id, append(pending[:at:at], pending[at+1:]...)
}
