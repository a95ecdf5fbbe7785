package agent

import (
	"regexp"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// syntheticThoughtSignature is what Gemini CLI puts on a Gemini 3 function
// call that arrived without a signature, so the API accepts the history.
var syntheticThoughtSignature = []byte("skip_thought_signature_validator")

// curateModelContent turns the parts a model streamed into the content kept
// in history: thought parts are dropped (a signature they carried moves to
// the next function call that lacks one), adjacent text parts are merged,
// and empty text is removed. It returns nil when nothing valid remains.
func curateModelContent(parts []*genai.Part) *genai.Content {
	var out []*genai.Part
	var carried []byte
	// run gathers the text of adjacent text parts merged into the last
	// part of out, so that a long answer streamed in many chunks is
	// joined in linear time rather than copied again on every chunk.
	var run strings.Builder
	flush := func() {
		if run.Len() > 0 {
			out[len(out)-1].Text = run.String()
			run.Reset()
		}
	}
	for _, p := range parts {
		if p == nil {
			continue
		}
		if p.Thought {
			if len(p.ThoughtSignature) > 0 {
				carried = p.ThoughtSignature
			}
			continue
		}
		if p.FunctionCall != nil {
			flush()
			cp := *p
			if len(cp.ThoughtSignature) == 0 && carried != nil {
				cp.ThoughtSignature = carried
			}
			carried = nil
			out = append(out, &cp)
			continue
		}
		if p.Text != "" {
			if n := len(out); n > 0 && out[n-1].Text != "" && out[n-1].FunctionCall == nil && len(p.ThoughtSignature) == 0 {
				// out[n-1] is this function's own copy of a text part.
				if run.Len() == 0 {
					run.WriteString(out[n-1].Text)
				}
				run.WriteString(p.Text)
				continue
			}
			flush()
			cp := *p
			out = append(out, &cp)
			continue
		}
		if p.InlineData != nil || p.FileData != nil || p.ExecutableCode != nil || p.CodeExecutionResult != nil {
			flush()
			out = append(out, p)
		}
	}
	flush()
	if len(out) == 0 {
		return nil
	}
	return &genai.Content{Role: genai.RoleModel, Parts: out}
}

// answerText is the text of a model content without its thoughts, joined
// in one pass (a content can hold many text parts).
func answerText(c *genai.Content) string { return model.Text(c) }

// ensureThoughtSignature gives the first function call of a Gemini 3 model
// turn a signature if it has none, as the API demands.
func ensureThoughtSignature(modelName string, c *genai.Content) {
	// Gemini CLI's aliases (auto, pro, flash, flash-lite) all stand for
	// Gemini 3 models.
	alias := modelName == "auto" || modelName == "pro" || modelName == "flash" || modelName == "flash-lite"
	if c == nil || !(alias || strings.HasPrefix(modelName, "gemini-3")) {
		return
	}
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			if len(p.ThoughtSignature) == 0 {
				p.ThoughtSignature = syntheticThoughtSignature
			}
			return
		}
	}
}

var boldSpan = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\*\*(.*?)\*\*`) }}

// parseThought splits thought text: the first **bold** span is the subject,
// everything else the description.
func parseThought(text string) Thought {
	loc := boldSpan.Get().FindStringSubmatchIndex(text)
	if loc == nil {
		return Thought{Description: strings.TrimSpace(text)}
	}
	subject := strings.TrimSpace(text[loc[2]:loc[3]])
	desc := strings.TrimSpace(text[:loc[0]] + text[loc[1]:])
	return Thought{Subject: subject, Description: desc}
}

// responseText joins the non-thought text of a response chunk.
func responseText(resp *genai.GenerateContentResponse) string {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range resp.Candidates[0].Content.Parts {
		if p != nil && !p.Thought && p.Text != "" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// cloneContents copies the slice (not the contents).
func cloneContents(in []*genai.Content) []*genai.Content {
	return append([]*genai.Content(nil), in...)
}

// Reasons given to calls that RepairHistory answers.
const (
	reasonResumed    = "The conversation was resumed before the call was answered."
	reasonRestored   = "The conversation was restored to a checkpoint taken before the call ran."
	reasonUnanswered = "User did not answer the confirmation before sending a new message."
)

// RepairHistory is the one policy for function calls left without a
// response, which the API refuses: every such call is answered as
// cancelled, with {"error": "[Operation Cancelled] Reason: <reason>"}
// (reason "" gives a generic one), and the answers go at the front of the
// user content that follows the call, or in a new user content right
// after it when none follows. Complete histories come back unchanged (as
// a copy of the slice). New applies it to Config.History and SetHistory to
// what it is given; Send applies it to a batch left waiting for
// confirmation when a new prompt arrives. Faces that keep a conversation
// of their own call it with the reason they want the model to read.
func RepairHistory(h []*genai.Content, reason string) []*genai.Content {
	if reason == "" {
		reason = reasonResumed
	}
	var out []*genai.Content
	if len(h) > 0 {
		out = make([]*genai.Content, 0, len(h)+1)
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		out = append(out, c)
		if c == nil || c.Role != genai.RoleModel {
			continue
		}
		var next *genai.Content
		if i+1 < len(h) && h[i+1] != nil && h[i+1].Role == genai.RoleUser {
			next = h[i+1]
		}
		// Answers are matched by id, or by name for calls without one.
		answered := map[string]int{}
		if next != nil {
			for _, p := range next.Parts {
				if p != nil && p.FunctionResponse != nil {
					answered[callKey(p.FunctionResponse.ID, p.FunctionResponse.Name)]++
				}
			}
		}
		var missing []*genai.Part
		for _, p := range c.Parts {
			if p == nil || p.FunctionCall == nil {
				continue
			}
			k := callKey(p.FunctionCall.ID, p.FunctionCall.Name)
			if answered[k] > 0 {
				answered[k]--
				continue
			}
			res := tool.Fail(tool.ErrCancelled, "[Operation Cancelled] Reason: "+reason)
			missing = append(missing, tool.FunctionResponseParts(p.FunctionCall.ID, p.FunctionCall.Name, res)...)
		}
		if len(missing) == 0 {
			continue
		}
		if next == nil {
			out = append(out, &genai.Content{Role: genai.RoleUser, Parts: missing})
			continue
		}
		fixed := *next
		fixed.Parts = append(missing, next.Parts...)
		out = append(out, &fixed)
		i++
	}
	return out
}

func callKey(id, name string) string {
	if id != "" {
		return "id:" + id
	}
	return "name:" + name
}
