// Package fakeanthropic is a loopback server speaking Anthropic's Messages
// API (POST /v1/messages, streamed as server-sent events) for tests of
// model/anthropic and of the castor binary with an Anthropic provider.
//
// It is scripted like internal/fakegemini and internal/fakeopenai: each
// reply is a model turn in genai's terms (Text, Calls, Error, and
// thinking added with Reply.Thinking or Reply.Redacted), which the server
// says as the API would. It also checks what the API checks: the
// headers, every body against the official SDK's own request types
// (sdkcheck.go), thinking blocks sent back with the signatures it gave
// them, tool results answering every call first in the next turn, and
// tool schemas the API takes. A request failing a check is answered 400
// invalid_request_error, as the API would, and kept in Requests with its
// reason.
package fakeanthropic

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakescript"
	"github.com/castor-dev/castor/model/anthropic"
)

// Reply is one scripted answer: the parts of a model turn, or an error.
type Reply struct {
	parts      []*genai.Part
	redacted   bool
	stop       string
	status     int
	errType    string
	message    string
	retryAfter string
	// inStream sends the error as an event after message_start.
	inStream bool
}

// Text is a turn answering in words.
func Text(s string) Reply { return Reply{parts: []*genai.Part{{Text: s}}} }

// Call is one call of a function.
type Call = fakescript.Call

// Calls is a turn calling the functions, in parallel when more than one.
func Calls(calls ...Call) Reply { return Reply{parts: fakescript.CallParts(calls)} }

// Thinking is r with a thinking block first, signed by the server.
func (r Reply) Thinking(text string) Reply {
	r.parts = append([]*genai.Part{{Text: text, Thought: true}}, r.parts...)
	return r
}

// Redacted is r with a redacted_thinking block first.
func (r Reply) Redacted() Reply {
	r.redacted = true
	return r
}

// Stop is r ending with stop_reason reason rather than end_turn or
// tool_use.
func (r Reply) Stop(reason string) Reply {
	r.stop = reason
	return r
}

// Error is a failed call: status and an error envelope of errType
// (overloaded_error, rate_limit_error, ...).
func Error(status int, errType, message string) Reply {
	return Reply{status: status, errType: errType, message: message}
}

// RetryAfter is r with a retry-after header of seconds.
func (r Reply) RetryAfter(seconds string) Reply {
	r.retryAfter = seconds
	return r
}

// ErrorEvent is a stream that fails after message_start with an error
// event, as the API reports overload mid-stream.
func ErrorEvent(errType, message string) Reply {
	return Reply{inStream: true, errType: errType, message: message}
}

// Request is one request the server received.
type Request struct {
	Header  http.Header
	Body    []byte
	Message anthropic.MessagesRequest
	// Refused is why the server answered 400, if it did.
	Refused string
	// Usage is what the server reported for it.
	Usage anthropic.Usage
}

// Server is the fake. Its URL is a provider's baseUrl.
type Server struct {
	fakescript.Script[Reply, Request]

	mu        sync.Mutex
	served    []string
	signed    map[string]string // signature -> thinking text
	redacted  map[string]bool
	lastTotal int32
}

// Start serves on 127.0.0.1 with replies queued, until the test ends.
func Start(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{signed: map[string]string{}, redacted: map[string]bool{}}
	s.Listen(t, s, replies)
	return s
}

// ServeModels sets the model ids GET /v1/models lists (default none).
func (s *Server) ServeModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served = ids
}

// models answers GET /v1/models as the API pages it.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("x-api-key") == "" {
		writeError(w, http.StatusUnauthorized, "authentication_error", "x-api-key header is required")
		return
	}
	s.mu.Lock()
	data := []any{}
	for _, id := range s.served {
		data = append(data, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z"})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil})
}

// sign is the signature the server gives a thinking text.
func sign(text string) string {
	h := sha256.Sum256([]byte("fakeanthropic:" + text))
	return base64.StdEncoding.EncodeToString(h[:])
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		s.models(w, r)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		writeError(w, http.StatusNotFound, "not_found_error", "no route "+r.Method+" "+r.URL.Path)
		return
	}
	body, _ := io.ReadAll(r.Body)
	rec := &Request{Header: r.Header.Clone(), Body: body}
	n, noTools := s.Receive(rec)
	// The API takes a key as x-api-key (Castor's way) or as a bearer
	// token (the SDK's).
	if r.Header.Get("x-api-key") == "" && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		writeError(w, http.StatusUnauthorized, "authentication_error", "x-api-key header is required")
		return
	}
	// Castor's version, or the one the SDK v2 sends.
	if v := r.Header.Get("anthropic-version"); v != anthropic.Version && v != "2026-10-21" {
		s.refuse(w, rec, fmt.Sprintf("anthropic-version: %q is not a valid version", v))
		return
	}
	if err := checkSDK(body); err != nil {
		s.refuse(w, rec, err.Error())
		return
	}
	if err := json.Unmarshal(body, &rec.Message); err != nil {
		s.refuse(w, rec, "invalid JSON: "+err.Error())
		return
	}
	s.mu.Lock()
	err := s.check(&rec.Message)
	s.mu.Unlock()
	if err != nil {
		s.refuse(w, rec, err.Error())
		return
	}
	if noTools && len(rec.Message.Tools) > 0 {
		s.refuse(w, rec, "tools: this model does not support tools")
		return
	}
	rep, ok := s.Next()
	if !ok {
		writeError(w, http.StatusInternalServerError, "api_error", "fakeanthropic: no reply scripted")
		return
	}
	if rep.status != 0 {
		if rep.retryAfter != "" {
			w.Header().Set("retry-after", rep.retryAfter)
		}
		writeError(w, rep.status, rep.errType, rep.message)
		return
	}
	if !rec.Message.Stream {
		s.refuse(w, rec, "fakeanthropic answers streams only")
		return
	}
	s.stream(w, rec, rep, n)
}

func (s *Server) refuse(w http.ResponseWriter, rec *Request, why string) {
	s.Locked(func() { rec.Refused = why })
	writeError(w, http.StatusBadRequest, "invalid_request_error", why)
}

// stream answers rep as the API streams a message.
func (s *Server) stream(w http.ResponseWriter, rec *Request, rep Reply, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	usage := s.usage(rec)
	send("message_start", map[string]any{"message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "content": []any{},
		"model": rec.Message.Model + "-20991231", "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": usage.InputTokens, "output_tokens": 1,
			"cache_creation_input_tokens": usage.CacheCreationInputTokens, "cache_read_input_tokens": usage.CacheReadInputTokens}}})
	send("ping", map[string]any{})
	if rep.inStream {
		send("error", map[string]any{"error": map[string]any{"type": rep.errType, "message": rep.message}})
		return
	}
	out, thought := 0, 0
	index := 0
	block := func(start map[string]any, deltas ...map[string]any) {
		send("content_block_start", map[string]any{"index": index, "content_block": start})
		for _, d := range deltas {
			send("content_block_delta", map[string]any{"index": index, "delta": d})
		}
		send("content_block_stop", map[string]any{"index": index})
		index++
	}
	if rep.redacted {
		data := fmt.Sprintf("redacted-%d", n)
		s.mu.Lock()
		s.redacted[data] = true
		s.mu.Unlock()
		block(map[string]any{"type": "redacted_thinking", "data": data})
	}
	stop := "end_turn"
	for i, p := range rep.parts {
		switch {
		case p.FunctionCall != nil:
			args, _ := json.Marshal(p.FunctionCall.Args)
			if p.FunctionCall.Args == nil {
				args = []byte("{}")
			}
			out += len(args)
			a, b := halves(string(args))
			// The input arrives in fragments, as the API splits it.
			block(map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d_%d", n, i), "name": p.FunctionCall.Name, "input": map[string]any{}},
				map[string]any{"type": "input_json_delta", "partial_json": ""},
				map[string]any{"type": "input_json_delta", "partial_json": a},
				map[string]any{"type": "input_json_delta", "partial_json": b})
			stop = "tool_use"
		case p.Thought:
			out += len(p.Text)
			thought += len(p.Text)
			sig := sign(p.Text)
			s.mu.Lock()
			s.signed[sig] = p.Text
			s.mu.Unlock()
			a, b := halves(p.Text)
			block(map[string]any{"type": "thinking", "thinking": "", "signature": ""},
				map[string]any{"type": "thinking_delta", "thinking": a},
				map[string]any{"type": "thinking_delta", "thinking": b},
				map[string]any{"type": "signature_delta", "signature": sig})
		default:
			out += len(p.Text)
			a, b := halves(p.Text)
			block(map[string]any{"type": "text", "text": ""},
				map[string]any{"type": "text_delta", "text": a},
				map[string]any{"type": "text_delta", "text": b})
		}
	}
	if rep.stop != "" {
		stop = rep.stop
	}
	usage.OutputTokens = int32((out + 3) / 4)
	s.Locked(func() { rec.Usage = usage })
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": usage.OutputTokens, "output_tokens_details": map[string]any{"thinking_tokens": (thought + 3) / 4}}})
	send("message_stop", map[string]any{})
}

// usage is the input the server reports: a token per four bytes of the
// body; with cache breakpoints, the previous request's prompt is read
// from the cache and the rest written to it, but for a quarter sent as
// plain input.
func (s *Server) usage(rec *Request) anthropic.Usage {
	total := int32((len(rec.Body) + 3) / 4)
	s.mu.Lock()
	defer s.mu.Unlock()
	cached := false
	for _, b := range rec.Message.System {
		cached = cached || b.CacheControl != nil
	}
	if !cached {
		return anthropic.Usage{InputTokens: total}
	}
	read := min(s.lastTotal, total)
	s.lastTotal = total
	rest := total - read
	return anthropic.Usage{InputTokens: rest / 4, CacheCreationInputTokens: rest - rest/4, CacheReadInputTokens: read}
}

func writeError(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}, "request_id": "req_fake"})
}

// halves splits s in two at a character boundary, as a stream's deltas
// split text.
func halves(s string) (string, string) {
	i := len(s) / 2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], s[i:]
}
