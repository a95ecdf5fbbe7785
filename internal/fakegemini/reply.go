package fakegemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"google.golang.org/genai"
)

// RPC names a Reply can be restricted to with For.
const (
	RPCGenerateContent       = "generateContent"
	RPCStreamGenerateContent = "streamGenerateContent"
	RPCCountTokens           = "countTokens"
	RPCLoadCodeAssist        = "loadCodeAssist"
	RPCOnboardUser           = "onboardUser"
	// RPCGetOperation is GET /v1internal/operations/... (onboarding polls).
	RPCGetOperation = "getOperation"
)

// Reply is one scripted answer of the server: model output (one or more
// response chunks), a raw JSON body, or a fault. Build one with Text, Call,
// Thought, Parts, Chunks, Error, JSON, Tokens or Hang, then adjust it with
// its methods; every method returns a modified copy.
type Reply struct {
	// method restricts the RPC answered; "" answers any generate call.
	method string

	chunks []*genai.GenerateContentResponse
	// autoUsage asks the server to fill the last chunk's usageMetadata from
	// the request and the output, so stats code sees plausible numbers.
	autoUsage bool

	json       json.RawMessage
	tokens     int32
	tokensSet  bool
	status     int
	message    string
	rpcStatus  string
	details    []map[string]any
	retryAfter string
	header     http.Header
	chunkDelay time.Duration
	cutAfter   int
	cut        bool
	hang       bool
	// stall, when set, makes a stream go silent after stallAfter chunks
	// with the connection kept open.
	stall      bool
	stallAfter int
	modelVer   string
	// fail, when set, is sent as an SSE error frame after failAfter
	// chunks.
	fail      *Reply
	failAfter int
}

// String describes r for logs and failure messages.
func (r Reply) String() string {
	switch {
	case r.hang:
		return "hang"
	case r.status != 0:
		return fmt.Sprintf("error %d %s", r.status, r.message)
	case r.json != nil:
		return "json " + string(r.json)
	case r.tokensSet:
		return fmt.Sprintf("countTokens %d", r.tokens)
	}
	return fmt.Sprintf("%d chunks", len(r.chunks))
}

// TextPart returns a text part.
func TextPart(text string) *genai.Part { return &genai.Part{Text: text} }

// ThoughtPart returns a thought-summary part.
func ThoughtPart(text string) *genai.Part { return &genai.Part{Text: text, Thought: true} }

// CallPart returns a functionCall part.
func CallPart(name string, args map[string]any) *genai.Part {
	if args == nil {
		args = map[string]any{}
	}
	return &genai.Part{FunctionCall: &genai.FunctionCall{Name: name, Args: args}}
}

// Parts returns a model turn streamed as one chunk per part; the last chunk
// carries finishReason STOP and usageMetadata, as the real service does.
func Parts(parts ...*genai.Part) Reply {
	chunks := make([]*genai.GenerateContentResponse, 0, len(parts))
	for _, p := range parts {
		chunks = append(chunks, chunkOf(p))
	}
	if len(chunks) == 0 {
		chunks = append(chunks, chunkOf(TextPart("")))
	}
	chunks[len(chunks)-1].Candidates[0].FinishReason = genai.FinishReasonStop
	return Reply{chunks: chunks, autoUsage: true}
}

func chunkOf(p *genai.Part) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
		Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{p}},
	}}}
}

// Text returns a model turn whose text arrives as the given pieces, one
// chunk each.
func Text(pieces ...string) Reply {
	parts := make([]*genai.Part, len(pieces))
	for i, s := range pieces {
		parts[i] = TextPart(s)
	}
	return Parts(parts...)
}

// Thought returns a model turn holding only a thought summary. Join it
// with another reply using Then.
func Thought(text string) Reply { return Parts(ThoughtPart(text)) }

// Call returns a model turn with one functionCall.
func Call(name string, args map[string]any) Reply { return Parts(CallPart(name, args)) }

// Chunks returns a reply that streams the given responses as they are:
// no finish reason or usage is added. The server still fills an empty
// modelVersion and responseId.
func Chunks(chunks ...*genai.GenerateContentResponse) Reply {
	return Reply{chunks: chunks}
}

// Error returns a fault: HTTP status code with a Google error envelope
// whose status name matches the code (429 → RESOURCE_EXHAUSTED, ...).
func Error(code int, message string) Reply {
	return Reply{status: code, message: message, rpcStatus: rpcStatusName(code)}
}

// JSON returns a reply whose body is v, for non-generate RPCs such as
// loadCodeAssist; restrict it with For. A string, []byte or
// json.RawMessage is sent as is (it need not even be valid JSON, to test
// parsers); anything else is marshalled, and JSON panics if that fails, as
// that is a bug in the test.
func JSON(v any) Reply {
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x)
	case []byte:
		b = x
	case json.RawMessage:
		b = x
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			panic(fmt.Sprintf("fakegemini.JSON: %v", err))
		}
	}
	return Reply{json: json.RawMessage(b)}
}

// Tokens returns a countTokens answer.
func Tokens(n int32) Reply {
	return Reply{method: RPCCountTokens, tokens: n, tokensSet: true}
}

// Hang returns a reply that never answers: the server holds the request
// until the client goes away or the server closes.
func Hang() Reply { return Reply{hang: true} }

// For restricts r to one RPC (an RPC* constant or any Code Assist method
// name). Unrestricted replies answer generateContent and
// streamGenerateContent alike.
func (r Reply) For(rpc string) Reply {
	r.method = rpc
	return r
}

// Then appends next's chunks after r's, turning both into one turn; only
// the final chunk keeps a finish reason.
func (r Reply) Then(next Reply) Reply {
	chunks := make([]*genai.GenerateContentResponse, 0, len(r.chunks)+len(next.chunks))
	for _, c := range r.chunks {
		chunks = append(chunks, withFinish(c, ""))
	}
	chunks = append(chunks, next.chunks...)
	r.chunks = chunks
	r.autoUsage = r.autoUsage || next.autoUsage
	return r
}

// Finish sets the finish reason of the last chunk (e.g. MAX_TOKENS).
func (r Reply) Finish(reason genai.FinishReason) Reply {
	if len(r.chunks) == 0 {
		return r
	}
	chunks := append([]*genai.GenerateContentResponse(nil), r.chunks...)
	chunks[len(chunks)-1] = withFinish(chunks[len(chunks)-1], reason)
	r.chunks = chunks
	return r
}

// NoFinish removes every finish reason: the stream then ends cleanly but
// incomplete, which a client must treat as a cut stream.
func (r Reply) NoFinish() Reply {
	chunks := make([]*genai.GenerateContentResponse, len(r.chunks))
	for i, c := range r.chunks {
		chunks[i] = withFinish(c, "")
	}
	r.chunks = chunks
	return r
}

// Signed sets sig as the thoughtSignature of the first functionCall part
// (or the first part when there is no call), as Gemini 3 models do.
func (r Reply) Signed(sig []byte) Reply {
	chunks := append([]*genai.GenerateContentResponse(nil), r.chunks...)
	target := -1
	for i, c := range chunks {
		if p := firstPart(c); p != nil && p.FunctionCall != nil {
			target = i
			break
		}
	}
	if target < 0 && len(chunks) > 0 {
		target = 0
	}
	if target >= 0 {
		c := *chunks[target]
		cand := *c.Candidates[0]
		content := *cand.Content
		p := *content.Parts[0]
		p.ThoughtSignature = sig
		content.Parts = append([]*genai.Part{&p}, content.Parts[1:]...)
		cand.Content = &content
		c.Candidates = append([]*genai.Candidate{&cand}, c.Candidates[1:]...)
		chunks[target] = &c
	}
	r.chunks = chunks
	return r
}

// CutAfter makes the server send n chunks and then drop the connection
// without ending the response, as a network failure mid-stream would.
// CutAfter(0) drops it right after the 200 headers. For a unary call the
// body is cut in the middle.
func (r Reply) CutAfter(n int) Reply {
	r.cut, r.cutAfter = true, max(0, n)
	return r
}

// StallAfter makes a stream send n chunks and then fall silent, the
// connection held open until the client goes away or the server closes,
// as a stuck backend or proxy does.
func (r Reply) StallAfter(n int) Reply {
	r.stall, r.stallAfter = true, max(0, n)
	return r
}

// FailAfter makes a stream send n chunks and then the error envelope of
// fault (built with Error) as a final SSE frame, as the service does when
// it fails mid-generation. A unary call gets fault's HTTP error instead.
func (r Reply) FailAfter(n int, fault Reply) Reply {
	f := fault
	r.fail, r.failAfter = &f, max(0, n)
	return r
}

// Slow makes the server wait d before sending each chunk.
func (r Reply) Slow(d time.Duration) Reply {
	r.chunkDelay = d
	return r
}

// WithRetryAfter sets the Retry-After header of a fault (seconds or an
// HTTP date).
func (r Reply) WithRetryAfter(v string) Reply {
	r.retryAfter = v
	return r
}

// WithDetails adds google.rpc details to a fault's error envelope; see
// RetryInfo, QuotaFailure and ErrorInfo.
func (r Reply) WithDetails(details ...map[string]any) Reply {
	r.details = append(append([]map[string]any(nil), r.details...), details...)
	return r
}

// WithStatus overrides a fault's RPC status name.
func (r Reply) WithStatus(status string) Reply {
	r.rpcStatus = status
	return r
}

// WithHeader adds a response header.
func (r Reply) WithHeader(key, value string) Reply {
	h := r.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.header = h
	return r
}

// WithModelVersion sets the modelVersion of r's chunks (the server default
// is "gemini-fake").
func (r Reply) WithModelVersion(v string) Reply {
	r.modelVer = v
	return r
}

// RetryInfo returns a google.rpc.RetryInfo detail asking for delay.
func RetryInfo(delay time.Duration) map[string]any {
	return map[string]any{
		"@type":      "type.googleapis.com/google.rpc.RetryInfo",
		"retryDelay": fmt.Sprintf("%gs", delay.Seconds()),
	}
}

// QuotaFailure returns a google.rpc.QuotaFailure detail for quotaID, e.g.
// "GenerateRequestsPerDayPerProjectPerModel" (an exhausted daily quota).
func QuotaFailure(quotaID string) map[string]any {
	return map[string]any{
		"@type": "type.googleapis.com/google.rpc.QuotaFailure",
		"violations": []any{map[string]any{
			"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
			"quotaId":     quotaID,
		}},
	}
}

// ErrorInfo returns a google.rpc.ErrorInfo detail.
func ErrorInfo(reason, domain string) map[string]any {
	return map[string]any{
		"@type":  "type.googleapis.com/google.rpc.ErrorInfo",
		"reason": reason,
		"domain": domain,
	}
}

func rpcStatusName(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 500:
		return "INTERNAL"
	case 501:
		return "UNIMPLEMENTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	return "UNKNOWN"
}

func firstPart(c *genai.GenerateContentResponse) *genai.Part {
	if c == nil || len(c.Candidates) == 0 || c.Candidates[0] == nil || c.Candidates[0].Content == nil || len(c.Candidates[0].Content.Parts) == 0 {
		return nil
	}
	return c.Candidates[0].Content.Parts[0]
}

// withFinish returns c with its first candidate's finish reason set,
// copying rather than mutating so replies can be reused.
func withFinish(c *genai.GenerateContentResponse, reason genai.FinishReason) *genai.GenerateContentResponse {
	if c == nil || len(c.Candidates) == 0 || c.Candidates[0] == nil || c.Candidates[0].FinishReason == reason {
		return c
	}
	cp := *c
	cand := *c.Candidates[0]
	cand.FinishReason = reason
	cp.Candidates = append([]*genai.Candidate{&cand}, c.Candidates[1:]...)
	return &cp
}
