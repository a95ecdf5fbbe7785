// Package fakegemini is the scripted Gemini HTTP server every Castor test
// talks to. It speaks the Gemini API (and Vertex) REST surface that
// google.golang.org/genai uses and the Code Assist v1internal surface, on
// loopback only:
//
//	POST /v1beta/models/{model}:generateContent
//	POST /v1beta/models/{model}:streamGenerateContent?alt=sse
//	POST /v1beta/models/{model}:countTokens
//	POST .../projects/{p}/locations/{l}/publishers/google/models/{model}:{rpc}   (Vertex)
//	POST /v1internal:generateContent | :streamGenerateContent?alt=sse | :countTokens
//	POST /v1internal:loadCodeAssist | :onboardUser | :{any other method}
//	GET  /v1internal/operations/...
//
// Tests queue Replies (model output or faults) and then inspect the
// Requests the server received. Streams are sent as Google sends them,
// "data: <json>\r\n\r\n" frames, flushed one by one. Code Assist answers
// are wrapped in {"response":{...},"traceId":"..."}.
package fakegemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"
)

// DefaultModelVersion is the modelVersion the server puts in responses
// that do not set one.
const DefaultModelVersion = "gemini-fake"

// Server is a scripted fake Gemini service. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:40123", once listening.
	// Use it as genai's BaseURL or as the Code Assist endpoint.
	URL string

	mu           sync.Mutex
	queue        []Reply
	requests     []*Request
	routeQueue   []Reply
	routes       []*Request
	strict       bool
	modelVersion string
	seq          int
	// keep bounds the requests kept (SetKeep); 0 keeps all.
	keep int

	ts        *httptest.Server
	done      chan struct{}
	closeOnce sync.Once
}

// New returns a Server that is not listening yet; call Listen, or use it
// as an http.Handler.
func New() *Server {
	return &Server{modelVersion: DefaultModelVersion, done: make(chan struct{})}
}

// Start starts a Server on 127.0.0.1 with replies queued, and closes it
// when the test ends.
func Start(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := New()
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatalf("fakegemini: %v", err)
	}
	s.Enqueue(replies...)
	t.Cleanup(s.Close)
	return s
}

// Listen starts serving on addr ("127.0.0.1:0" when empty) and sets URL.
// Only loopback addresses are accepted: the fake must never be reachable
// from the network.
func (s *Server) Listen(addr string) error {
	ts, err := newLoopbackServer(addr, s)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ts != nil {
		ts.Listener.Close()
		return errors.New("fakegemini: already listening")
	}
	ts.Start()
	s.ts = ts
	s.URL = ts.URL
	return nil
}

// newLoopbackServer returns an unstarted test server for h, listening on
// addr ("127.0.0.1:0" when empty), which must be a loopback address so that
// no fake is ever reachable from the network. httptest picks its own
// address, so its listener is swapped for one on addr.
func newLoopbackServer(addr string, h http.Handler) (*httptest.Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("fakegemini: refusing to listen on non-loopback address %q", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener.Close()
	ts.Listener = l
	return ts, nil
}

// Close stops the server, first releasing requests held by Hang or Slow
// replies. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.mu.Lock()
		ts := s.ts
		s.mu.Unlock()
		if ts != nil {
			ts.Close()
		}
	})
}

// Enqueue appends replies to the script.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending returns how many queued replies have not been served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetStrict chooses how replies are matched to calls. Strict: the head of
// the queue must fit the call, else the call fails (Gemini CLI's
// --fake-responses). Lenient (default): the first reply restricted to the
// call's RPC, else the first generate reply of either kind.
func (s *Server) SetStrict(strict bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strict = strict
}

// SetKeep keeps only the last n requests for Requests (0: all, the
// default). A long benchmark session sends its whole history each turn,
// which kept whole grows as the square of the turns.
func (s *Server) SetKeep(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keep = n
}

// SetModelVersion sets the modelVersion used for responses that have none.
func (s *Server) SetModelVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modelVersion = v
}

// Requests returns every request received so far, oldest first.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// LastRequest returns the latest request, or nil.
func (s *Server) LastRequest() *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return nil
	}
	return s.requests[len(s.requests)-1]
}

// DefaultRoute is the routing answer the server gives when no test queued
// one: the highest complexity, so "auto" prompts go to the pro model (what
// the oracle's fake answered when Gemini CLI 0.61 was observed).
var DefaultRoute = Text(`{"complexity_reasoning":"fakegemini: no route scripted","complexity_score":100}`)

// EnqueueRoute queues answers for model-routing calls (see
// Request.IsRoute), which are kept apart from the main script: tests of
// the main loop need not know about routing. Without a queued answer the
// server answers DefaultRoute.
func (s *Server) EnqueueRoute(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routeQueue = append(s.routeQueue, replies...)
}

// RouteRequests returns the routing calls received so far, oldest first.
// They are not listed by Requests.
func (s *Server) RouteRequests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.routes...)
}

func (s *Server) route(rec *Request) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes = append(s.routes, rec)
	if len(s.routeQueue) == 0 {
		return DefaultRoute
	}
	r := s.routeQueue[0]
	s.routeQueue = s.routeQueue[1:]
	return r
}

// DefaultLoopCheck is the answer to a loop check (Request.IsLoopCheck)
// when the queue holds no reply marked For(RPCGenerateContent): no loop,
// so that tests of long prompts need not script the check Castor makes
// after 30 turns, as Gemini CLI 0.61 does.
var DefaultLoopCheck = Text(`{"unproductive_state_analysis":"fakegemini: no loop check scripted","unproductive_state_confidence":0}`)

// IsLoopCheck reports whether r is the model-assisted loop check: a
// unary generate call asking for a JSON answer with an
// unproductive_state_confidence.
func (r *Request) IsLoopCheck() bool {
	return r.asksJSONWith(`"unproductive_state_confidence"`)
}

// asksJSONWith reports whether r is a unary generate call whose response
// schema holds field.
func (r *Request) asksJSONWith(field string) bool {
	if r.RPC != RPCGenerateContent || r.GenerationConfig == nil || r.GenerationConfig.ResponseJsonSchema == nil {
		return false
	}
	b, err := json.Marshal(r.GenerationConfig.ResponseJsonSchema)
	return err == nil && strings.Contains(string(b), field)
}

// IsRoute reports whether r is a model-routing call: a unary generate call
// asking for a JSON answer with a complexity_score (Gemini CLI's and
// Castor's classifier for the "auto" model).
func (r *Request) IsRoute() bool {
	return r.asksJSONWith(`"complexity_score"`)
}

// Request is one request the server received, decoded for assertions.
type Request struct {
	// HTTPMethod, Path and Query are as received.
	HTTPMethod string
	Path       string
	Query      url.Values
	// RPC is the method called: an RPC* constant or another Code Assist
	// method name.
	RPC string
	// CodeAssist is true for /v1internal calls.
	CodeAssist bool
	// Model is the model id without a "models/" prefix.
	Model  string
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// Decoded generate/countTokens request fields (for Code Assist, those
	// of the inner "request").
	Contents          []*genai.Content
	SystemInstruction *genai.Content
	Tools             []*genai.Tool
	ToolConfig        *genai.ToolConfig
	GenerationConfig  *genai.GenerationConfig
	// Code Assist envelope fields.
	Project      string
	UserPromptID string
	SessionID    string
	// DecodeErr is set when the body was not the expected JSON.
	DecodeErr error
}

// FunctionDeclarations returns the declarations of every tool sent.
func (r *Request) FunctionDeclarations() []*genai.FunctionDeclaration {
	var out []*genai.FunctionDeclaration
	for _, t := range r.Tools {
		if t != nil {
			out = append(out, t.FunctionDeclarations...)
		}
	}
	return out
}

// LastContent returns the last content sent, or nil.
func (r *Request) LastContent() *genai.Content {
	if len(r.Contents) == 0 {
		return nil
	}
	return r.Contents[len(r.Contents)-1]
}

// generateBody is the JSON of a generate or countTokens request: the REST
// body genai sends, or the inner "request" of a Code Assist envelope.
type generateBody struct {
	Model             string                  `json:"model"`
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction"`
	Tools             []*genai.Tool           `json:"tools"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig"`
	SessionID         string                  `json:"session_id"`
	// countTokens may wrap a whole generate request.
	GenerateContentRequest *generateBody `json:"generateContentRequest"`
}

type codeAssistBody struct {
	Model        string        `json:"model"`
	Project      string        `json:"project"`
	UserPromptID string        `json:"user_prompt_id"`
	Request      *generateBody `json:"request"`
}

// route splits a request path into its RPC and model.
func route(path string) (rpc, model string, codeAssist, ok bool) {
	if i := strings.Index(path, "/v1internal:"); i >= 0 {
		return path[i+len("/v1internal:"):], "", true, true
	}
	if i := strings.Index(path, "/v1internal/"); i >= 0 {
		return RPCGetOperation, "", true, true
	}
	if i := strings.LastIndex(path, "/models/"); i >= 0 {
		m, r, found := strings.Cut(path[i+len("/models/"):], ":")
		if found && m != "" && r != "" {
			return r, m, false, true
		}
	}
	return "", "", false, false
}

func isGenerate(rpc string) bool {
	return rpc == RPCGenerateContent || rpc == RPCStreamGenerateContent
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isModelsList(r) {
		s.serveModelsList(w, r) // models.go
		return
	}
	rpc, modelID, ca, ok := route(r.URL.Path)
	if !ok {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: no such endpoint: "+r.Method+" "+r.URL.Path, nil)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	rec := decode(r, rpc, modelID, ca, body)
	if rec.IsRoute() {
		s.serve(w, r, rec, s.route(rec))
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	if s.keep > 0 && len(s.requests) > s.keep {
		s.requests = append(s.requests[:0:0], s.requests[len(s.requests)-s.keep:]...)
	}
	s.mu.Unlock()

	reply, found, failure := s.pick(rpc, rec.IsLoopCheck())
	if !found && failure == "" && rec.IsLoopCheck() {
		reply, found = DefaultLoopCheck, true
	}
	if !found {
		switch {
		case failure != "":
			writeError(w, http.StatusBadRequest, "FAILED_PRECONDITION", failure, nil)
		case rpc == RPCCountTokens:
			writeTokens(w, estimateTokens(rec))
		case ca:
			writeJSON(w, http.StatusOK, defaultCodeAssistReply(rpc, r.URL.Path))
		default:
			writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: unsupported method "+rpc, nil)
		}
		return
	}
	s.serve(w, r, rec, reply)
}

func decode(r *http.Request, rpc, modelID string, ca bool, body []byte) *Request {
	rec := &Request{
		HTTPMethod: r.Method,
		Path:       r.URL.Path,
		Query:      r.URL.Query(),
		RPC:        rpc,
		CodeAssist: ca,
		Model:      modelID,
		Header:     r.Header.Clone(),
		Body:       body,
	}
	if len(body) == 0 || !(isGenerate(rpc) || rpc == RPCCountTokens) {
		return rec
	}
	var g *generateBody
	if ca {
		var env codeAssistBody
		if err := json.Unmarshal(body, &env); err != nil {
			rec.DecodeErr = err
			return rec
		}
		rec.Model, rec.Project, rec.UserPromptID = env.Model, env.Project, env.UserPromptID
		g = env.Request
	} else {
		g = new(generateBody)
		if err := json.Unmarshal(body, g); err != nil {
			rec.DecodeErr = err
			return rec
		}
	}
	if g == nil {
		return rec
	}
	if g.GenerateContentRequest != nil {
		g = g.GenerateContentRequest
	}
	if rec.Model == "" {
		rec.Model = g.Model
	}
	rec.Model = strings.TrimPrefix(rec.Model, "models/")
	rec.Contents = g.Contents
	rec.SystemInstruction = g.SystemInstruction
	rec.Tools = g.Tools
	rec.ToolConfig = g.ToolConfig
	rec.GenerationConfig = g.GenerationConfig
	rec.SessionID = g.SessionID
	return rec
}

// pick takes the reply for a call of rpc off the queue. failure explains
// why a generate call has none. A loop check (loopCheck) takes only a
// reply marked for its method (Reply.For), and finds none otherwise:
// the queue's unmarked replies are the main loop's.
func (s *Server) pick(rpc string, loopCheck bool) (reply Reply, found bool, failure string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gen := isGenerate(rpc)
	fits := func(r Reply) bool {
		if r.method == "" {
			return gen && !loopCheck
		}
		return r.method == rpc
	}
	take := func(i int) Reply {
		r := s.queue[i]
		s.queue = append(s.queue[:i:i], s.queue[i+1:]...)
		return r
	}
	if s.strict {
		switch {
		case len(s.queue) > 0 && fits(s.queue[0]):
			return take(0), true, ""
		case !gen:
			return Reply{}, false, ""
		case len(s.queue) == 0:
			return Reply{}, false, "No more mock responses for " + rpc
		default:
			return Reply{}, false, fmt.Sprintf("Unexpected response type, next response was for %s but expected %s", s.queue[0].method, rpc)
		}
	}
	for i, r := range s.queue {
		if fits(r) {
			return take(i), true, ""
		}
	}
	if gen && !loopCheck {
		// A script recorded from a unary call still answers a stream (and
		// the reverse): what matters to most tests is the content.
		for i, r := range s.queue {
			if isGenerate(r.method) {
				return take(i), true, ""
			}
		}
		return Reply{}, false, "No more mock responses for " + rpc
	}
	return Reply{}, false, ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, rec *Request, rep Reply) {
	for k, vs := range rep.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	switch {
	case rep.hang:
		s.sleep(r.Context(), -1)
	case rep.status != 0:
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		writeError(w, rep.status, rep.rpcStatus, rep.message, rep.details)
	case rep.json != nil:
		writeJSON(w, http.StatusOK, rep.json)
	case rep.tokensSet:
		writeTokens(w, rep.tokens)
	case rec.RPC == RPCCountTokens:
		writeTokens(w, estimateTokens(rec))
	case rec.RPC == RPCStreamGenerateContent:
		s.stream(w, r, rec, rep)
	default:
		s.unary(w, r, rec, rep)
	}
}

// abort drops the connection without finishing the response; net/http
// recognises this panic and stays quiet about it.
func abort(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, rec *Request, rep Reply) {
	chunks := s.prepare(rep, rec)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for i, c := range chunks {
		if rep.cut && i >= rep.cutAfter {
			abort(w)
		}
		if rep.stall && i >= rep.stallAfter {
			s.sleep(r.Context(), -1)
			return
		}
		if rep.fail != nil && i >= rep.failAfter {
			break
		}
		if rep.chunkDelay > 0 && !s.sleep(r.Context(), rep.chunkDelay) {
			return
		}
		b, err := marshalChunk(c, rec.CodeAssist)
		if err != nil {
			abort(w)
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	if rep.stall {
		// Every chunk went out (n ≥ the chunks): silence before the end.
		s.sleep(r.Context(), -1)
		return
	}
	if rep.fail != nil {
		b, _ := json.Marshal(errorEnvelope(rep.fail.status, rep.fail.rpcStatus, rep.fail.message, rep.fail.details))
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", b); err == nil && flusher != nil {
			flusher.Flush()
		}
		return
	}
	if rep.cut {
		abort(w)
	}
}

func (s *Server) unary(w http.ResponseWriter, r *http.Request, rec *Request, rep Reply) {
	if rep.fail != nil {
		s.serve(w, r, rec, *rep.fail)
		return
	}
	chunks := s.prepare(rep, rec)
	if rep.chunkDelay > 0 && !s.sleep(r.Context(), rep.chunkDelay) {
		return
	}
	b, err := marshalChunk(merge(chunks), rec.CodeAssist)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "INTERNAL", err.Error(), nil)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if rep.cut {
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		abort(w)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// sleep waits d (forever when d < 0) unless the client leaves or the
// server closes; it reports whether the full wait happened.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

// prepare copies rep's chunks, filling in what the real service always
// sends: modelVersion, one responseId per response, and usage.
func (s *Server) prepare(rep Reply, rec *Request) []*genai.GenerateContentResponse {
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("fake-response-%d", s.seq)
	mv := s.modelVersion
	s.mu.Unlock()
	if rep.modelVer != "" {
		mv = rep.modelVer
	}
	out := make([]*genai.GenerateContentResponse, len(rep.chunks))
	for i, c := range rep.chunks {
		var cp genai.GenerateContentResponse
		if c != nil {
			cp = *c
		}
		if cp.ModelVersion == "" {
			cp.ModelVersion = mv
		}
		if cp.ResponseID == "" {
			cp.ResponseID = id
		}
		out[i] = &cp
	}
	if rep.autoUsage && len(out) > 0 && out[len(out)-1].UsageMetadata == nil {
		out[len(out)-1].UsageMetadata = usage(rec, rep.chunks)
	}
	return out
}

// marshalChunk encodes a response, wrapped in the Code Assist envelope
// when needed (where the response id travels as traceId).
func marshalChunk(c *genai.GenerateContentResponse, codeAssist bool) ([]byte, error) {
	if !codeAssist {
		return json.Marshal(c)
	}
	inner := *c
	inner.ResponseID = ""
	return json.Marshal(struct {
		Response *genai.GenerateContentResponse `json:"response"`
		TraceID  string                         `json:"traceId,omitempty"`
	}{&inner, c.ResponseID})
}

// merge folds stream chunks into the single response of a unary call,
// joining adjacent text so a scripted "Text(a, b)" reads as "ab".
func merge(chunks []*genai.GenerateContentResponse) *genai.GenerateContentResponse {
	switch len(chunks) {
	case 0:
		return &genai.GenerateContentResponse{}
	case 1:
		return chunks[0]
	}
	out := *chunks[len(chunks)-1]
	var parts []*genai.Part
	var finish genai.FinishReason
	var base genai.Candidate
	for _, c := range chunks {
		if len(c.Candidates) == 0 || c.Candidates[0] == nil {
			continue
		}
		cand := c.Candidates[0]
		base = *cand
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
		if cand.Content == nil {
			continue
		}
		for _, p := range cand.Content.Parts {
			if n := len(parts); n > 0 && plainText(parts[n-1]) && plainText(p) && parts[n-1].Thought == p.Thought && len(p.ThoughtSignature) == 0 {
				joined := *parts[n-1]
				joined.Text += p.Text
				parts[n-1] = &joined
				continue
			}
			parts = append(parts, p)
		}
	}
	base.Content = &genai.Content{Role: genai.RoleModel, Parts: parts}
	base.FinishReason = finish
	out.Candidates = []*genai.Candidate{&base}
	return &out
}

func plainText(p *genai.Part) bool {
	return p != nil && p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil &&
		p.FileData == nil && p.ExecutableCode == nil && p.CodeExecutionResult == nil
}

// tokens approximates a token count as the service would: about four
// bytes a token.
func tokens(n int) int32 { return int32((n + 3) / 4) }

func estimateTokens(rec *Request) int32 {
	b, _ := json.Marshal(struct {
		C []*genai.Content `json:"c"`
		S *genai.Content   `json:"s"`
	}{rec.Contents, rec.SystemInstruction})
	return max(1, tokens(len(b)))
}

func usage(rec *Request, chunks []*genai.GenerateContentResponse) *genai.GenerateContentResponseUsageMetadata {
	var out, thoughts int
	for _, c := range chunks {
		if c == nil || len(c.Candidates) == 0 || c.Candidates[0] == nil || c.Candidates[0].Content == nil {
			continue
		}
		for _, p := range c.Candidates[0].Content.Parts {
			switch {
			case p.Thought:
				thoughts += len(p.Text)
			case p.FunctionCall != nil:
				b, _ := json.Marshal(p.FunctionCall)
				out += len(b)
			default:
				out += len(p.Text)
			}
		}
	}
	u := &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount:     estimateTokens(rec),
		CandidatesTokenCount: max(1, tokens(out)),
		ThoughtsTokenCount:   tokens(thoughts),
	}
	u.TotalTokenCount = u.PromptTokenCount + u.CandidatesTokenCount + u.ThoughtsTokenCount
	return u
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			code, b = http.StatusInternalServerError, []byte(`{"error":{"code":500,"message":"fakegemini: marshal failed","status":"INTERNAL"}}`)
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func writeTokens(w http.ResponseWriter, n int32) {
	writeJSON(w, http.StatusOK, map[string]any{"totalTokens": n})
}

func writeError(w http.ResponseWriter, code int, status, message string, details []map[string]any) {
	writeJSON(w, code, errorEnvelope(code, status, message, details))
}

// errorEnvelope is Google's JSON error shape.
func errorEnvelope(code int, status, message string, details []map[string]any) map[string]any {
	e := map[string]any{"code": code, "message": message, "status": status}
	if len(details) > 0 {
		e["details"] = details
	}
	return map[string]any{"error": e}
}

// defaultCodeAssistReply answers unscripted Code Assist setup calls with a
// free-tier user who is already onboarded, so tests of other features do
// not have to script the handshake.
func defaultCodeAssistReply(rpc, path string) any {
	switch rpc {
	case RPCLoadCodeAssist:
		return map[string]any{
			"currentTier":             map[string]any{"id": "free-tier", "name": "Gemini Code Assist for individuals"},
			"allowedTiers":            []any{map[string]any{"id": "free-tier", "name": "Gemini Code Assist for individuals", "isDefault": true}},
			"cloudaicompanionProject": "fake-project",
		}
	case RPCOnboardUser:
		return map[string]any{
			"name": "operations/fake-onboard",
			"done": true,
			"response": map[string]any{
				"cloudaicompanionProject": map[string]any{"id": "fake-project", "name": "fake-project"},
			},
		}
	case RPCGetOperation:
		name := path[strings.Index(path, "/v1internal/")+len("/v1internal/"):]
		return map[string]any{"name": name, "done": true}
	}
	return map[string]any{}
}
