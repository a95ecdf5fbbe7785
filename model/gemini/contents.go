package gemini

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/model"
)

// A request's contents (the conversation so far) are most of its body and
// grow with every turn. genai would turn them into maps through a JSON
// round trip, convert them part by part and encode the maps again; and
// whatever is handed to it already encoded (a json.RawMessage) its final
// encoding scans byte by byte again. At 1,000 contents that was 18 ms a
// call of Castor's own time (BenchmarkRequestEncoding), against 2.7 ms
// for encoding/json alone. So for the Gemini API the contents are encoded
// here, genai sends a placeholder in their place, and the transport
// encodes them into the body as it is written (spliceContents), one
// content at a time, so a call never holds the history's encoding.
//
// Nothing is cached between calls: contents are the caller's and may
// change between calls (compression, rewind, hooks replace them), a
// cache would keep a second copy of the history alive for the whole
// session, and encoding them directly is already a small part of a call.
// They must not change while the call is being sent, as with any request.

// contentsMark is the placeholder's text; the random part makes it a
// string no caller's data holds.
var contentsMark = lazy.Value[string]{New: func() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "castor-contents-" + hex.EncodeToString(b)
}}

// contentsToken is the placeholder as it appears in a body genai encoded:
// a JSON string, quotes included. Quotes that delimit a string are never
// escaped, so these bytes cannot occur inside another string.
var contentsToken = lazy.Value[[]byte]{New: func() []byte { return []byte(`"` + contentsMark.Get() + `"`) }}

// encodedContents is a call's contents, checked and measured: the body
// is sent as the bytes genai wrote around the placeholder with the
// contents encoded one at a time as the body is read (contentsReader),
// so no request holds the history's encoding, let alone in one buffer.
// One buffer cost the history's size about two to three times over per
// call (json.Marshal's growing buffer, its copy, the spliced body): the
// in-turn memory peak of a long session. Measuring first costs a second
// encoding, which is cheap next to the memory (BenchmarkRequestEncoding),
// and keeps Content-Length, so the bytes on the wire are the same.
type encodedContents struct {
	cs []*genai.Content
	n  int64 // the length of their JSON array
}

// byteCounter counts what is written to it.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) { *c += byteCounter(len(p)); return len(p), nil }

// encodeContents checks and measures the contents as the JSON the Gemini
// API takes. For the Gemini API genai's conversion copies every field of
// a content and part as it is, except that it refuses a function call's
// partialArgs and willContinue (Vertex-only); contents with those, with
// a nil content or part, or that do not encode, report false and genai
// encodes them, errors included.
func encodeContents(cs []*genai.Content) (*encodedContents, bool) {
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
	var n byteCounter
	enc := json.NewEncoder(&n)
	for _, c := range cs {
		if err := enc.Encode(c); err != nil {
			return nil, false
		}
	}
	// Each Encode ended in a newline; the array has brackets and a comma
	// between contents instead: one byte more.
	return &encodedContents{cs: cs, n: int64(n) + 1}, true
}

// contentsReader reads a body: head, the contents as a JSON array
// (json.Marshal's bytes exactly), tail. It encodes a content when the
// reader reaches it, into a buffer it reuses.
type contentsReader struct {
	head, tail []byte
	cs         []*genai.Content
	stage      int // 0 head, 1 contents, 2 tail, 3 done
	next       int // the next content to encode
	cur        []byte
	buf        bytes.Buffer
	enc        *json.Encoder
}

func newContentsReader(head, tail []byte, cs []*genai.Content) *contentsReader {
	r := &contentsReader{head: head, tail: tail, cs: cs}
	r.enc = json.NewEncoder(&r.buf)
	return r
}

func (r *contentsReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		switch r.stage {
		case 0:
			r.cur, r.stage = r.head, 1
		case 1:
			r.buf.Reset()
			if r.next == len(r.cs) {
				r.buf.WriteByte(']')
				r.stage = 2
			} else {
				if r.next == 0 {
					r.buf.WriteByte('[')
				} else {
					r.buf.WriteByte(',')
				}
				if err := r.enc.Encode(r.cs[r.next]); err != nil {
					return 0, err
				}
				r.buf.Truncate(r.buf.Len() - 1) // Encode's newline
				r.next++
			}
			r.cur = r.buf.Bytes()
		case 2:
			r.cur, r.stage = r.tail, 3
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
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

// unknownSignature is what Gemini takes in place of the thought signature
// of a function call it did not make (Gemini CLI sends it too).
var unknownSignature = []byte("skip_thought_signature_validator")

// withoutPackedSignatures is cs without the signatures another provider
// packed its state into (model.PackedSignaturePrefix): a function call's
// becomes unknownSignature, any other is dropped. The contents are the
// caller's: parts are copied, and only when one has such a signature.
func withoutPackedSignatures(cs []*genai.Content) []*genai.Content {
	var out []*genai.Content
	for i, c := range cs {
		if c == nil {
			continue
		}
		var parts []*genai.Part
		for j, p := range c.Parts {
			if p == nil || !bytes.HasPrefix(p.ThoughtSignature, []byte(model.PackedSignaturePrefix)) {
				continue
			}
			if parts == nil {
				parts = slices.Clone(c.Parts)
			}
			cp := *p
			cp.ThoughtSignature = nil
			if cp.FunctionCall != nil {
				cp.ThoughtSignature = unknownSignature
			}
			parts[j] = &cp
		}
		if parts == nil {
			continue
		}
		if out == nil {
			out = slices.Clone(cs)
		}
		cc := *c
		cc.Parts = parts
		out[i] = &cc
	}
	if out == nil {
		return cs
	}
	return out
}

// prepare is what a generate call hands genai: the contents (nil when the
// transport is to splice them in from slot) and the config.
func (m *Model) prepare(slot *callSlot, contents []*genai.Content, cfg *genai.GenerateContentConfig) ([]*genai.Content, *genai.GenerateContentConfig) {
	c := m.prepareConfig(cfg)
	contents = withoutPackedSignatures(contents)
	if m.tools == nil {
		return contents, c // Vertex: genai converts contents its own way
	}
	raw, ok := encodeContents(contents)
	if !ok {
		return contents, c
	}
	slot.contents = raw
	setBodyField(c, "contents", contentsMark.Get())
	return nil, c
}

// errNoContentsMark is a body without the placeholder its call's contents
// were to replace: sent as it is, the model would answer a request
// without the conversation.
var errNoContentsMark = errors.New("gemini: request body lost the contents placeholder")

// spliceContents returns r with the contents in place of the
// placeholder in its body. GetBody gives the same bytes again for a
// resend.
func spliceContents(r *http.Request, cs *encodedContents) (*http.Request, error) {
	if r.Body == nil {
		return nil, errNoContentsMark
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	i := bytes.Index(body, contentsToken.Get())
	if i < 0 {
		return nil, errNoContentsMark
	}
	head, tail := body[:i], body[i+len(contentsToken.Get()):]
	r.GetBody = func() (io.ReadCloser, error) {
		return io.NopCloser(newContentsReader(head, tail, cs.cs)), nil
	}
	r.Body, _ = r.GetBody()
	r.ContentLength = int64(len(head)+len(tail)) + cs.n
	return r, nil
}
