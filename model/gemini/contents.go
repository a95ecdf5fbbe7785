package gemini

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"google.golang.org/genai"
)

// A request's contents (the conversation so far) are most of its body and
// grow with every turn. genai would turn them into maps through a JSON
// round trip, convert them part by part and encode the maps again; and
// whatever is handed to it already encoded (a json.RawMessage) its final
// encoding scans byte by byte again. At 1,000 contents that was 18 ms a
// call of Castor's own time (BenchmarkRequestEncoding), against 2.7 ms
// for encoding/json alone. So for the Gemini API the contents are encoded
// here, once, genai sends a placeholder in their place, and the transport
// puts them into the body (spliceContents).
//
// Nothing is cached between calls: contents are the caller's and may
// change between calls, and encoding them directly is already a small
// part of a call.

// contentsMark is the placeholder's text; the random part makes it a
// string no caller's data holds.
var contentsMark = func() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "castor-contents-" + hex.EncodeToString(b)
}()

// contentsToken is the placeholder as it appears in a body genai encoded:
// a JSON string, quotes included. Quotes that delimit a string are never
// escaped, so these bytes cannot occur inside another string.
var contentsToken = []byte(`"` + contentsMark + `"`)

// encodeContents returns the contents as the JSON the Gemini API takes.
// For the Gemini API genai's conversion copies every field of a content
// and part as it is, except that it refuses a function call's
// partialArgs and willContinue (Vertex-only); contents with those, or
// with a nil content or part, report false and genai encodes them,
// errors included.
func encodeContents(cs []*genai.Content) (json.RawMessage, bool) {
	if len(cs) == 0 {
		return nil, false
	}
	for _, c := range cs {
		if c == nil {
			return nil, false
		}
		for _, p := range c.Parts {
			if p == nil {
				return nil, false
			}
			if fc := p.FunctionCall; fc != nil && (fc.PartialArgs != nil || fc.WillContinue != nil) {
				return nil, false
			}
		}
	}
	raw, err := json.Marshal(cs)
	if err != nil {
		return nil, false
	}
	return raw, true
}

// setBodyField makes genai send v as the request body's field key, after
// any extras c already asked for.
func setBodyField(c *genai.GenerateContentConfig, key string, v any) {
	var ho genai.HTTPOptions
	if c.HTTPOptions != nil {
		ho = *c.HTTPOptions
	}
	prev := ho.ExtrasRequestProvider
	ho.ExtrasRequestProvider = func(body map[string]any) map[string]any {
		if prev != nil {
			body = prev(body)
		}
		body[key] = v
		return body
	}
	c.HTTPOptions = &ho
}

// prepare is what a generate call hands genai: the contents (nil when the
// transport is to splice them in from slot) and the config.
func (m *Model) prepare(slot *callSlot, contents []*genai.Content, cfg *genai.GenerateContentConfig) ([]*genai.Content, *genai.GenerateContentConfig) {
	c := m.prepareConfig(cfg)
	if m.tools == nil {
		return contents, c // Vertex: genai converts contents its own way
	}
	raw, ok := encodeContents(contents)
	if !ok {
		return contents, c
	}
	slot.contents = raw
	setBodyField(c, "contents", contentsMark)
	return nil, c
}

// errNoContentsMark is a body without the placeholder its call's contents
// were to replace: sent as it is, the model would answer a request
// without the conversation.
var errNoContentsMark = errors.New("gemini: request body lost the contents placeholder")

// spliceContents returns r with raw in place of the contents placeholder
// in its body.
func spliceContents(r *http.Request, raw json.RawMessage) (*http.Request, error) {
	if r.Body == nil {
		return nil, errNoContentsMark
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	i := bytes.Index(body, contentsToken)
	if i < 0 {
		return nil, errNoContentsMark
	}
	out := make([]byte, 0, len(body)-len(contentsToken)+len(raw))
	out = append(out, body[:i]...)
	out = append(out, raw...)
	out = append(out, body[i+len(contentsToken):]...)
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return r, nil
}
