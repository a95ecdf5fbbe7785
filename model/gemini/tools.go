package gemini

import (
	"encoding/json"
	"slices"
	"sync"

	"google.golang.org/genai"
)

// toolEncoding keeps the JSON of the last tool declarations sent. The
// engine sends the same declarations (the same pointers: its registry
// builds each once) on every call, and genai re-encoding them through a
// map round trip was the largest cost of a follow-up turn.
type toolEncoding struct {
	mu  sync.Mutex
	key []*genai.FunctionDeclaration
	raw json.RawMessage
}

// encode returns the JSON of tools, from the cache when the declarations
// are the same objects as last time. Only plain function-declaration
// tools are cached; anything else reports false and genai encodes it.
func (e *toolEncoding) encode(tools []*genai.Tool) (json.RawMessage, bool) {
	var key []*genai.FunctionDeclaration
	for _, t := range tools {
		if t == nil || !onlyFunctions(t) {
			return nil, false
		}
		key = append(key, t.FunctionDeclarations...)
		key = append(key, nil) // tool boundary
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.raw != nil && slices.Equal(e.key, key) {
		return e.raw, true
	}
	raw, err := json.Marshal(tools)
	if err != nil {
		return nil, false
	}
	e.key, e.raw = key, raw
	return raw, true
}

func onlyFunctions(t *genai.Tool) bool {
	return len(t.FunctionDeclarations) > 0 && t.GoogleSearch == nil && t.GoogleSearchRetrieval == nil &&
		t.URLContext == nil && t.CodeExecution == nil && t.Retrieval == nil && t.EnterpriseWebSearch == nil &&
		t.GoogleMaps == nil && t.ComputerUse == nil
}

// withEncodedTools moves c's function tools into the request body as
// pre-encoded JSON.
func (e *toolEncoding) withEncodedTools(c *genai.GenerateContentConfig) {
	if len(c.Tools) == 0 {
		return
	}
	raw, ok := e.encode(c.Tools)
	if !ok {
		return
	}
	c.Tools = nil
	setBodyField(c, "tools", raw)
}
