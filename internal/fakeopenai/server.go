// Package fakeopenai is a loopback server speaking the OpenAI
// chat-completions wire (POST /v1/chat/completions, streamed as
// server-sent events) for tests of model/openai and of the castor binary
// with an OpenAI-compatible provider.
//
// It is scripted like internal/fakegemini: each reply is a model turn in
// genai's terms (Text, Calls, Thought, Error, or a Gemini CLI
// --fake-responses file through LoadScript), which the server says in
// OpenAI's words, so one script can drive either wire.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakescript"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/model/openai"
)

// Reply is one scripted answer: the parts of a model turn, or an error.
type Reply struct {
	parts   []*genai.Part
	status  int
	message string
}

// Text is a turn answering in words.
func Text(s string) Reply { return Reply{parts: []*genai.Part{{Text: s}}} }

// Thought is a turn with reasoning before its text.
func Thought(reasoning, text string) Reply {
	return Reply{parts: []*genai.Part{{Text: reasoning, Thought: true}, {Text: text}}}
}

// Call is one call of a function.
type Call = fakescript.Call

// Calls is a turn calling the functions, in parallel when more than one.
func Calls(calls ...Call) Reply { return Reply{parts: fakescript.CallParts(calls)} }

// Error is a failed call: status and an OpenAI error envelope.
func Error(status int, message string) Reply { return Reply{status: status, message: message} }

// LoadScript reads a Gemini CLI --fake-responses JSONL file into replies,
// one per generate line.
func LoadScript(path string) ([]Reply, error) {
	entries, err := fake.Load(path)
	if err != nil {
		return nil, err
	}
	var out []Reply
	for _, e := range entries {
		chunks := e.Stream
		if e.Response != nil {
			chunks = append(chunks, e.Response)
		}
		var r Reply
		for _, c := range chunks {
			for _, cand := range c.Candidates {
				if cand != nil && cand.Content != nil {
					r.parts = append(r.parts, cand.Content.Parts...)
				}
			}
		}
		if len(chunks) > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

// Request is one request the server received.
type Request struct {
	Header http.Header
	Body   []byte
	Chat   openai.ChatRequest
}

// Server is the fake. Its URL plus "/v1" is a provider's baseUrl.
type Server struct {
	fakescript.Script[Reply, Request]

	mu     sync.Mutex
	served []string
}

// Start serves on 127.0.0.1 with replies queued, until the test ends.
func Start(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{}
	s.Listen(t, s, replies)
	return s
}

// Serve sets the model ids GET /v1/models lists (default none).
func (s *Server) Serve(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served = ids
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		s.mu.Lock()
		data := []any{}
		for _, id := range s.served {
			data = append(data, map[string]any{"id": id, "object": "model", "owned_by": "fake"})
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
		return
	}
	body, _ := io.ReadAll(r.Body)
	rec := &Request{Header: r.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &rec.Chat); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
		return
	}
	if _, noTools := s.Receive(rec); noTools && len(rec.Chat.Tools) > 0 {
		writeError(w, http.StatusBadRequest, "registry.ollama.ai/library/"+rec.Chat.Model+" does not support tools")
		return
	}
	rep, ok := s.Next()
	if !ok {
		writeError(w, http.StatusInternalServerError, "fakeopenai: no reply scripted")
		return
	}
	if rep.status != 0 {
		writeError(w, rep.status, rep.message)
		return
	}
	if !rec.Chat.Stream {
		writeError(w, http.StatusBadRequest, "fakeopenai answers streams only")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	out := 0
	finish := "stop"
	var calls []map[string]any
	for _, p := range rep.parts {
		switch {
		case p.FunctionCall != nil:
			args, _ := json.Marshal(p.FunctionCall.Args)
			out += len(args)
			i := len(calls)
			calls = append(calls, map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", len(s.Requests()), i), "type": "function",
				"function": map[string]any{"name": p.FunctionCall.Name, "arguments": ""}})
			// The arguments arrive in two fragments, as real servers split them.
			half := len(args) / 2
			send(chunk(rec.Chat.Model, map[string]any{"tool_calls": []any{calls[i]}}, ""))
			send(chunk(rec.Chat.Model, map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": string(args[:half])}}}}, ""))
			send(chunk(rec.Chat.Model, map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": string(args[half:])}}}}, ""))
			finish = "tool_calls"
		case p.Thought:
			out += len(p.Text)
			send(chunk(rec.Chat.Model, map[string]any{"reasoning_content": p.Text}, ""))
		default:
			out += len(p.Text)
			send(chunk(rec.Chat.Model, map[string]any{"role": "assistant", "content": p.Text}, ""))
		}
	}
	send(chunk(rec.Chat.Model, map[string]any{}, finish))
	in, completion := (len(body)+3)/4, (out+3)/4
	send(map[string]any{"object": "chat.completion.chunk", "model": rec.Chat.Model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": completion, "total_tokens": in + completion}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func chunk(modelName string, delta map[string]any, finish string) map[string]any {
	c := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
	if finish != "" {
		c["finish_reason"] = finish
	}
	return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": modelName, "choices": []any{c}}
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	typ := "invalid_request_error"
	if code >= 500 {
		typ = "server_error"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ}})
}

// String describes r for failure messages.
func (r Reply) String() string {
	if r.status != 0 {
		return fmt.Sprintf("error %d %s", r.status, r.message)
	}
	var names []string
	for _, p := range r.parts {
		if p.FunctionCall != nil {
			names = append(names, p.FunctionCall.Name)
		}
	}
	return fmt.Sprintf("%d parts, calls %s", len(r.parts), strings.Join(names, ","))
}
