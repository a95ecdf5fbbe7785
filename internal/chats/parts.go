package chats

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"
)

// MaxToolOutputSize caps, in bytes, each string of a tool call's result and
// display stored in a session file. Gemini CLI declares the same 50 KB
// budget; tools already truncate their own output well below it, so the cap
// only guards the file against pathological outputs.
const MaxToolOutputSize = 50 * 1024

// decodePartList reads a field typed PartListUnion in Gemini CLI: a string,
// a single Part, or an array mixing strings and Parts. Gemini CLI's readers
// accept all three, and so must we. The second result reports whether the
// value was a bare string.
func decodePartList(raw json.RawMessage) ([]*genai.Part, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		if s == "" {
			return nil, true
		}
		return []*genai.Part{{Text: s}}, true
	case '{':
		if p := decodePart(raw); p != nil && !isEmptyPart(p) {
			return []*genai.Part{p}, false
		}
		return nil, false
	case '[':
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil, false
		}
		parts := make([]*genai.Part, 0, len(elems))
		for _, e := range elems {
			e = bytes.TrimSpace(e)
			if len(e) == 0 {
				continue
			}
			switch e[0] {
			case '"':
				var s string
				if json.Unmarshal(e, &s) == nil && s != "" {
					parts = append(parts, &genai.Part{Text: s})
				}
			case '{':
				if p := decodePart(e); p != nil && !isEmptyPart(p) {
					parts = append(parts, p)
				}
			}
		}
		return parts, false
	}
	return nil, false
}

// decodePart decodes one Part object. The fast path is a plain unmarshal;
// the slow path exists because files written by TypeScript may hold values
// Go's typed decoder rejects, above all thought signatures that are not
// standard base64 (Gemini CLI writes the literal
// "skip_thought_signature_validator"). Rather than lose the whole message we
// keep every field that decodes on its own.
func decodePart(raw json.RawMessage) *genai.Part {
	var p genai.Part
	if json.Unmarshal(raw, &p) == nil {
		return &p
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	var sig []byte
	if s, ok := fields["thoughtSignature"]; ok {
		var str string
		if json.Unmarshal(s, &str) == nil {
			sig = decodeSignature(str)
		}
		delete(fields, "thoughtSignature")
	}
	good := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		one, err := json.Marshal(map[string]json.RawMessage{k: v})
		if err != nil {
			continue
		}
		var probe genai.Part
		if json.Unmarshal(one, &probe) == nil {
			good[k] = v
		}
	}
	p = genai.Part{}
	if b, err := json.Marshal(good); err == nil {
		_ = json.Unmarshal(b, &p)
	}
	p.ThoughtSignature = sig
	return &p
}

// decodeSignature turns a stored thought signature back into bytes. The API
// accepts both base64 alphabets, with or without padding, so all four are
// tried; anything else is kept verbatim rather than dropped.
func decodeSignature(s string) []byte {
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding,
		base64.URLEncoding, base64.RawURLEncoding,
	} {
		if b, err := enc.DecodeString(s); err == nil {
			return b
		}
	}
	return []byte(s)
}

// isPlainText reports whether a part is nothing but visible text, so that a
// list of such parts can be stored as the bare string Gemini CLI writes.
// Empty slices and maps count as absent because JSON omits them.
func isPlainText(p *genai.Part) bool {
	if p == nil {
		return false
	}
	c := *p
	if len(c.ThoughtSignature) == 0 {
		c.ThoughtSignature = nil
	}
	if len(c.PartMetadata) == 0 {
		c.PartMetadata = nil
	}
	return reflect.DeepEqual(c, genai.Part{Text: p.Text})
}

// isEmptyPart reports a part with no data at all. The API rejects such
// parts, and a bare "" content must read back the same as [{"text":""}].
func isEmptyPart(p *genai.Part) bool {
	return isPlainText(p) && p.Text == ""
}

// encodeContent renders parts as a PartListUnion. With asString set and only
// plain text present it writes the concatenated string, the shape Gemini CLI
// uses for model, info, warning and error messages; otherwise an array.
func encodeContent(parts []*genai.Part, asString bool) (json.RawMessage, error) {
	parts = compactParts(parts)
	if asString {
		plain := true
		var sb strings.Builder
		for _, p := range parts {
			if !isPlainText(p) {
				plain = false
				break
			}
			sb.WriteString(p.Text)
		}
		if plain {
			return marshalNoEscape(sb.String())
		}
	}
	if parts == nil {
		parts = []*genai.Part{}
	}
	return marshalNoEscape(parts)
}

func compactParts(parts []*genai.Part) []*genai.Part {
	var out []*genai.Part
	for _, p := range parts {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// marshalNoEscape encodes like JSON.stringify: no HTML escaping, no newline.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// partsString mirrors Gemini CLI's partListUnionToString (verbose mode):
// non-text parts become placeholders. Gemini CLI decides with it whether a
// message is empty, a slash command, or worth showing, so the placeholders
// matter even though nobody reads them.
func partsString(parts []*genai.Part) string {
	var sb strings.Builder
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch {
		case p.VideoMetadata != nil:
			sb.WriteString("[Video Metadata]")
		case p.Thought:
			sb.WriteString("[Thought: true]")
		case p.CodeExecutionResult != nil:
			sb.WriteString("[Code Execution Result]")
		case p.ExecutableCode != nil:
			sb.WriteString("[Executable Code]")
		case p.FileData != nil:
			sb.WriteString("[File Data]")
		case p.FunctionCall != nil:
			sb.WriteString("[Function Call: " + p.FunctionCall.Name + "]")
		case p.FunctionResponse != nil:
			sb.WriteString("[Function Response: " + p.FunctionResponse.Name + "]")
		case p.InlineData != nil:
			sb.WriteString(inlineDataLabel(p.InlineData))
		default:
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}

func inlineDataLabel(b *genai.Blob) string {
	mime := b.MIMEType
	if mime == "" {
		mime = "unknown"
	}
	// Gemini CLI estimates the size from the base64 text it holds.
	b64 := base64.StdEncoding.EncodedLen(len(b.Data))
	kb := math.Ceil(float64(b64)*3/4) / 1024
	category := "Media"
	switch {
	case strings.HasPrefix(mime, "audio/"):
		category = "Audio"
	case strings.HasPrefix(mime, "video/"):
		category = "Video"
	case strings.HasPrefix(mime, "image/"):
		category = "Image"
	}
	return fmt.Sprintf("[%s: %s, %.1f KB]", category, mime, kb)
}

// textOf joins the text fields only, the way Gemini CLI extracts a session's
// first user message for listings.
func textOf(parts []*genai.Part) string {
	var sb strings.Builder
	for _, p := range parts {
		if p != nil {
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}

// capString shortens s to at most limit bytes of content (on a rune
// boundary) and says how much was dropped.
func capString(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n... [truncated: %d bytes omitted from the session record]", len(s)-cut)
}

// capValue returns a copy of a decoded JSON value with every string capped.
// It copies rather than edits because the caller's values are still live in
// the engine.
func capValue(v any, limit int) any {
	switch x := v.(type) {
	case string:
		return capString(x, limit)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = capValue(e, limit)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = capValue(e, limit)
		}
		return out
	case nil, bool, float64, int, int64, json.Number:
		return x
	}
	// Typed values (structs from the engine) are normalised through JSON so
	// their strings can be capped too.
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var generic any
	if json.Unmarshal(b, &generic) != nil {
		return v
	}
	return capValue(generic, limit)
}

// capParts copies tool result parts with their text and response strings
// capped. Inline binary data is left alone: cutting it would only corrupt it.
func capParts(parts []*genai.Part, limit int) []*genai.Part {
	if parts == nil {
		return nil
	}
	out := make([]*genai.Part, 0, len(parts))
	for _, p := range parts {
		if p == nil {
			continue
		}
		c := *p
		c.Text = capString(c.Text, limit)
		if p.FunctionResponse != nil {
			fr := *p.FunctionResponse
			if fr.Response != nil {
				if m, ok := capValue(map[string]any(fr.Response), limit).(map[string]any); ok {
					fr.Response = m
				}
			}
			c.FunctionResponse = &fr
		}
		out = append(out, &c)
	}
	return out
}
