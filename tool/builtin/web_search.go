package builtin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// WebSearchTool is google_web_search: the model answers the query with
// Google Search grounding, and the tool adds numbered citations and the
// list of sources.
type WebSearchTool struct{ env *Env }

var _ tool.Tool = (*WebSearchTool)(nil)

// NewWebSearch returns the google_web_search tool.
func NewWebSearch(env *Env) tool.Tool { return &WebSearchTool{env: env} }

// Name is "google_web_search".
func (t *WebSearchTool) Name() string { return "google_web_search" }

// DisplayName is "GoogleSearch".
func (t *WebSearchTool) DisplayName() string { return "GoogleSearch" }

// Kind is search.
func (t *WebSearchTool) Kind() tool.Kind { return tool.KindSearch }

// Description is Gemini CLI's.
func (t *WebSearchTool) Description() string {
	return "Performs a web search using Google Search (via the Gemini API) and returns the results. This tool is useful for finding information on the internet based on a query."
}

// Schema is Gemini CLI's.
func (t *WebSearchTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"query": map[string]any{
				"type":        "string",
				"description": "The search query to find information on the web.",
			},
		},
		"required": []any{"query"},
	}
}

// Build checks that the query is not blank.
func (t *WebSearchTool) Build(args map[string]any) (tool.Call, error) {
	q, _ := args["query"].(string)
	if strings.TrimSpace(q) == "" {
		return nil, &tool.Error{Type: tool.ErrInvalidParams, Message: "The 'query' parameter cannot be empty."}
	}
	return &webSearchCall{env: t.env, query: q}, nil
}

type webSearchCall struct {
	env   *Env
	query string
}

// Describe names the query.
func (c *webSearchCall) Describe() string {
	return `Searching the web for: "` + c.query + `"`
}

// Confirmation is nil: a search reads, it changes nothing.
func (c *webSearchCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

// Execute asks the model with the googleSearch tool and formats its
// grounded answer.
func (c *webSearchCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	fail := func(err error) *tool.Result {
		msg := fmt.Sprintf(`Error during web search for query "%s": %s`, c.query, err)
		return &tool.Result{
			LLMText: "Error: " + msg,
			Display: "Error performing web search.",
			Error:   &tool.Error{Type: tool.ErrWebSearchFailed, Message: msg},
		}
	}
	if c.env == nil || c.env.Model == nil {
		return fail(errors.New("no model is configured"))
	}
	resp, err := c.env.Model.GenerateContent(ctx, &model.Request{
		Model:    auxModelName(c.env),
		Contents: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: c.query}}}},
		Config:   &genai.GenerateContentConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}}},
	})
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return &tool.Result{LLMText: "Web search was cancelled.", Display: "Search cancelled."}
		}
		return fail(err)
	}
	text := auxResponseText(resp)
	if strings.TrimSpace(text) == "" {
		return &tool.Result{
			LLMText: `No search results or information found for query: "` + c.query + `"`,
			Display: "No information found.",
		}
	}
	if gm := auxGrounding(resp); gm != nil && len(gm.GroundingChunks) > 0 {
		text = auxInsertCitations(text, gm.GroundingSupports)
		text += "\n\nSources:\n" + auxSourceList(gm.GroundingChunks, "No URI")
	}
	return &tool.Result{
		LLMText: `Web search results for "` + c.query + "\":\n\n" + text,
		Display: `Search results for "` + c.query + `" returned.`,
	}
}

// Helpers shared by the tools that call the model themselves (smart_edit,
// web_fetch, google_web_search).

// auxDefaultModel is used when the session names no model for tools.
// Gemini CLI sends these calls to its flash model.
const auxDefaultModel = "gemini-2.5-flash"

// auxModelName is the model the tool calls go to.
func auxModelName(env *Env) string {
	if env != nil && env.ModelName != "" {
		return env.ModelName
	}
	return auxDefaultModel
}

// auxResponseText concatenates the text parts of the first candidate,
// leaving out thoughts, as Gemini CLI's getResponseText does.
func auxResponseText(resp *genai.GenerateContentResponse) string {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil || resp.Candidates[0].Content == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range resp.Candidates[0].Content.Parts {
		if p != nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// auxGrounding returns the first candidate's grounding metadata, or nil.
func auxGrounding(resp *genai.GenerateContentResponse) *genai.GroundingMetadata {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return nil
	}
	return resp.Candidates[0].GroundingMetadata
}

// auxInsertCitations inserts "[n]" markers (1-based chunk numbers) at the
// end of each supported segment. Segment indices are UTF-8 byte offsets,
// which Go strings index directly. Markers go in from the end so earlier
// offsets stay valid; at equal offsets the later support's markers come
// first, as in Gemini CLI. An offset inside a character is moved back to
// its start rather than splitting it.
func auxInsertCitations(text string, supports []*genai.GroundingSupport) string {
	type insertion struct {
		at     int
		marker string
	}
	var ins []insertion
	for _, s := range supports {
		if s == nil || s.Segment == nil || s.GroundingChunkIndices == nil {
			continue
		}
		var m strings.Builder
		for _, i := range s.GroundingChunkIndices {
			fmt.Fprintf(&m, "[%d]", i+1)
		}
		ins = append(ins, insertion{at: int(s.Segment.EndIndex), marker: m.String()})
	}
	if len(ins) == 0 {
		return text
	}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
	var pieces []string
	last := len(text)
	for _, in := range ins {
		pos := min(max(in.at, 0), last)
		for pos > 0 && pos < len(text) && !utf8.RuneStart(text[pos]) {
			pos--
		}
		pieces = append(pieces, text[pos:last], in.marker)
		last = pos
	}
	pieces = append(pieces, text[:last])
	var b strings.Builder
	for i := len(pieces) - 1; i >= 0; i-- {
		b.WriteString(pieces[i])
	}
	return b.String()
}

// auxSourceList renders grounding chunks as "[n] Title (uri)" lines;
// missingURI fills a chunk without a URI (the two tools word it
// differently).
func auxSourceList(chunks []*genai.GroundingChunk, missingURI string) string {
	lines := make([]string, 0, len(chunks))
	for i, c := range chunks {
		title, uri := "Untitled", missingURI
		if c != nil && c.Web != nil {
			if c.Web.Title != "" {
				title = c.Web.Title
			}
			if c.Web.URI != "" {
				uri = c.Web.URI
			}
		}
		lines = append(lines, fmt.Sprintf("[%d] %s (%s)", i+1, title, uri))
	}
	return strings.Join(lines, "\n")
}
