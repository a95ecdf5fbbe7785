// Package fake replays and records model responses in Gemini CLI's
// --fake-responses JSONL format, so the same golden files drive Gemini CLI's
// integration tests and Castor's.
//
// Each line of a file is one call's answer:
//
//	{"method":"generateContent","response":<GenerateContentResponse>}
//	{"method":"generateContentStream","response":[<chunk>,...]}
//	{"method":"countTokens","response":{"totalTokens":N}}
//	{"method":"embedContent","response":{...}}
//
// Castor never embeds, so embedContent lines are accepted and dropped.
package fake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"

	"github.com/castor-dev/castor/model"
	"google.golang.org/genai"
)

// Method names used in the JSONL files, as Gemini CLI's ContentGenerator
// names its calls.
const (
	MethodGenerateContent       = "generateContent"
	MethodGenerateContentStream = "generateContentStream"
	MethodCountTokens           = "countTokens"
	MethodEmbedContent          = "embedContent"
)

// maxLine bounds one JSONL line. Recorded turns carry whole file contents
// and thought signatures, so lines can be large.
const maxLine = 256 << 20

// Entry is one line of a responses file.
type Entry struct {
	// Method is one of the Method* constants (never MethodEmbedContent:
	// those lines are dropped while loading).
	Method string
	// Response is the answer of a generateContent call.
	Response *genai.GenerateContentResponse
	// Stream holds the chunks of a generateContentStream call.
	Stream []*genai.GenerateContentResponse
	// TotalTokens is the answer of a countTokens call.
	TotalTokens int32
	// Line is the 1-based line number the entry came from (0 when built
	// in code).
	Line int
}

// line is the on-disk shape of an Entry.
type line struct {
	Method   string          `json:"method"`
	Response json.RawMessage `json:"response"`
}

// Load reads a responses file.
func Load(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads responses JSONL from r. name (usually the file path) prefixes
// error messages, which also give the 1-based line number, so a bad golden
// is easy to find. Blank lines are skipped, as Gemini CLI does.
func Parse(r io.Reader, name string) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []Entry
	n := 0
	for sc.Scan() {
		n++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		e, skip, err := parseLine(raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if skip {
			continue
		}
		e.Line = n
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	return out, nil
}

func parseLine(raw []byte) (e Entry, skip bool, err error) {
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		return e, false, fmt.Errorf("malformed responses line: %w", err)
	}
	if len(l.Response) == 0 || string(l.Response) == "null" {
		if l.Method == "" {
			return e, false, errors.New(`malformed responses line: missing "method" and "response"`)
		}
		return e, false, fmt.Errorf("malformed responses line: %s entry has no \"response\"", l.Method)
	}
	e.Method = l.Method
	switch l.Method {
	case MethodGenerateContent:
		if err := json.Unmarshal(l.Response, &e.Response); err != nil {
			return e, false, fmt.Errorf("bad generateContent response: %w", err)
		}
	case MethodGenerateContentStream:
		if err := json.Unmarshal(l.Response, &e.Stream); err != nil {
			return e, false, fmt.Errorf("bad generateContentStream response (want an array of chunks): %w", err)
		}
		for i, c := range e.Stream {
			if c == nil {
				return e, false, fmt.Errorf("bad generateContentStream response: chunk %d is null", i)
			}
		}
	case MethodCountTokens:
		var ct genai.CountTokensResponse
		if err := json.Unmarshal(l.Response, &ct); err != nil {
			return e, false, fmt.Errorf("bad countTokens response: %w", err)
		}
		e.TotalTokens = ct.TotalTokens
	case MethodEmbedContent:
		return e, true, nil
	case "":
		return e, false, errors.New(`malformed responses line: missing "method"`)
	default:
		return e, false, fmt.Errorf("unknown method %q (want generateContent, generateContentStream, countTokens or embedContent)", l.Method)
	}
	return e, false, nil
}

// Model is a model.Model that answers from a list of entries instead of a
// service.
type Model struct {
	strict bool

	mu      sync.Mutex
	entries []Entry
	used    []bool
	next    int
}

var _ model.Model = (*Model)(nil)

// New returns a Model replaying entries. In strict mode (Gemini CLI's
// --fake-responses) entries are consumed in order and a call of the wrong
// kind fails; otherwise (--fake-responses-non-strict) each call takes the
// first unused entry of its kind.
func New(entries []Entry, strict bool) *Model {
	return &Model{strict: strict, entries: entries, used: make([]bool, len(entries))}
}

// Open loads path and returns a Model replaying it.
func Open(path string, strict bool) (*Model, error) {
	entries, err := Load(path)
	if err != nil {
		return nil, err
	}
	return New(entries, strict), nil
}

// Remaining returns how many entries have not been replayed yet.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, u := range m.used {
		if !u {
			n++
		}
	}
	return n
}

// take consumes the entry answering a call of method, with Gemini CLI's
// exact error texts so tests written against either tool read the same.
func (m *Model) take(method string, request any) (Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.strict {
		if m.next >= len(m.entries) {
			return Entry{}, noMore(method, request)
		}
		i := m.next
		m.next++
		m.used[i] = true
		e := m.entries[i]
		if e.Method != method {
			return Entry{}, fmt.Errorf("Unexpected response type, next response was for %s but expected %s", e.Method, method)
		}
		return e, nil
	}
	for i, e := range m.entries {
		if !m.used[i] && e.Method == method {
			m.used[i] = true
			return e, nil
		}
	}
	return Entry{}, noMore(method, request)
}

func noMore(method string, request any) error {
	b, err := json.Marshal(request)
	if err != nil {
		b = fmt.Appendf(nil, "%+v", request)
	}
	return fmt.Errorf("No more mock responses for %s, got request:\n%s", method, b)
}

// wireRequest mirrors the GenerateContentParameters Gemini CLI prints in
// its "No more mock responses" error.
type wireRequest struct {
	Model    string                       `json:"model"`
	Contents []*genai.Content             `json:"contents"`
	Config   *genai.GenerateContentConfig `json:"config,omitempty"`
}

func toWire(req *model.Request) wireRequest {
	return wireRequest{Model: req.Model, Contents: req.Contents, Config: req.Config}
}

// GenerateContent implements model.Model.
func (m *Model) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, err := m.take(MethodGenerateContent, toWire(req))
	if err != nil {
		return nil, err
	}
	return e.Response, nil
}

// GenerateContentStream implements model.Model.
func (m *Model) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		e, err := m.take(MethodGenerateContentStream, toWire(req))
		if err != nil {
			yield(nil, err)
			return
		}
		for _, c := range e.Stream {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(c, nil) {
				return
			}
		}
	}
}

// CountTokens implements model.Model.
func (m *Model) CountTokens(ctx context.Context, req *model.Request) (int32, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	e, err := m.take(MethodCountTokens, struct {
		Model    string           `json:"model"`
		Contents []*genai.Content `json:"contents"`
	}{req.Model, req.Contents})
	if err != nil {
		return 0, err
	}
	return e.TotalTokens, nil
}
