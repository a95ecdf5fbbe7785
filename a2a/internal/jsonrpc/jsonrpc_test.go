package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestParseRequest(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		// want is the parsed request, or nil.
		want *Request
		// code and msg are the error's; 0 when none.
		code int
		msg  string
	}{
		{name: "object params", body: `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`,
			want: &Request{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: "m", Params: json.RawMessage(`{"a":1}`)}},
		{name: "array params", body: `{"jsonrpc":"2.0","id":"x","method":"m","params":[1]}`,
			want: &Request{JSONRPC: "2.0", ID: json.RawMessage(`"x"`), Method: "m", Params: json.RawMessage(`[1]`)}},
		{name: "null params, spaces around", body: " \n{\"jsonrpc\":\"2.0\",\"id\": -1.5 ,\"method\":\"m\",\"params\":null}\n",
			want: &Request{JSONRPC: "2.0", ID: json.RawMessage(`-1.5`), Method: "m"}},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"m"}`,
			want: &Request{JSONRPC: "2.0", ID: NullID, Method: "m"}},
		{name: "null id", body: `{"jsonrpc":"2.0","id":null,"method":"m"}`,
			want: &Request{JSONRPC: "2.0", ID: json.RawMessage(`null`), Method: "m"}},

		{name: "empty", body: ``, code: CodeParseError, msg: "Invalid JSON payload"},
		{name: "truncated", body: `{"jsonrpc":"2.0",`, code: CodeParseError, msg: "Invalid JSON payload"},
		{name: "not json", body: `hello`, code: CodeParseError, msg: "Invalid JSON payload"},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, code: CodeInvalidRequest,
			msg: "Request payload validation error: a request must be a JSON object"},
		{name: "scalar", body: `42`, code: CodeInvalidRequest,
			msg: "Request payload validation error: a request must be a JSON object"},
		{name: "object id", body: `{"jsonrpc":"2.0","id":{},"method":"m"}`, code: CodeInvalidRequest,
			msg: "Request payload validation error: id must be a string, a number or null"},
		{name: "bool id", body: `{"jsonrpc":"2.0","id":true,"method":"m"}`, code: CodeInvalidRequest,
			msg: "Request payload validation error: id must be a string, a number or null"},
		{name: "missing jsonrpc", body: `{"id":1,"method":"m"}`, code: CodeInvalidRequest,
			msg: `Request payload validation error: jsonrpc must be "2.0"`, want: &Request{ID: json.RawMessage(`1`)}},
		{name: "wrong jsonrpc", body: `{"jsonrpc":"1.0","id":1,"method":"m"}`, code: CodeInvalidRequest,
			msg: `Request payload validation error: jsonrpc must be "2.0"`, want: &Request{JSONRPC: "1.0", ID: json.RawMessage(`1`)}},
		{name: "missing method", body: `{"jsonrpc":"2.0","id":1}`, code: CodeInvalidRequest,
			msg: "Request payload validation error: method must be a non-empty string", want: &Request{JSONRPC: "2.0", ID: json.RawMessage(`1`)}},
		{name: "method not string", body: `{"jsonrpc":"2.0","id":1,"method":5}`, code: CodeInvalidRequest,
			msg: "Request payload validation error: method must be a non-empty string", want: &Request{JSONRPC: "2.0", ID: json.RawMessage(`1`)}},
		{name: "scalar params", body: `{"jsonrpc":"2.0","id":1,"method":"m","params":3}`, code: CodeInvalidRequest,
			msg: "Request payload validation error: params must be an object", want: &Request{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: "m"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, e := ParseRequest([]byte(tt.body))
			if got, want := fmt.Sprintf("%+v", req), fmt.Sprintf("%+v", tt.want); got != want {
				t.Errorf("request = %s, want %s", got, want)
			}
			switch {
			case tt.code == 0 && e != nil:
				t.Errorf("error %v", e)
			case tt.code != 0 && (e == nil || e.Code != tt.code || e.Message != tt.msg):
				t.Errorf("error = %+v, want %d %q", e, tt.code, tt.msg)
			}
		})
	}
}

func TestDecodeParams(t *testing.T) {
	type params struct {
		ID    string   `json:"id"`
		N     int      `json:"n"`
		List  []string `json:"list"`
		Inner struct {
			On bool `json:"on"`
		} `json:"inner"`
	}
	for _, tt := range []struct {
		raw, msg string
	}{
		{`{"id":"x"}`, ""},
		{``, "Invalid parameters: params are required"},
		{`[1]`, "Invalid parameters: params must be an object"},
		{`{"id":5}`, "Invalid parameters: \"id\" must be a string, not number"},
		{`{"id":"x","n":"5"}`, "Invalid parameters: \"n\" must be an integer, not string"},
		{`{"id":"x","n":1.5}`, "Invalid parameters: \"n\" must be an integer, not number 1.5"},
		{`{"id":"x","list":{}}`, "Invalid parameters: \"list\" must be an array, not object"},
		{`{"id":"x","inner":{"on":1}}`, "Invalid parameters: \"inner.on\" must be true or false, not number"},
		{`{"id":"x"`, "Invalid parameters: unexpected end of JSON input"},
	} {
		var p params
		e := DecodeParams(json.RawMessage(tt.raw), &p)
		if tt.msg == "" {
			if e != nil || p.ID != "x" {
				t.Errorf("%s: %v, %+v", tt.raw, e, p)
			}
			continue
		}
		if e == nil || e.Code != CodeInvalidParams || e.Message != tt.msg {
			t.Errorf("%s: error %+v, want %q", tt.raw, e, tt.msg)
		}
	}
}

// TestWithParams: the method runs only on params that decode, and its
// answer is returned as it gave it.
func TestWithParams(t *testing.T) {
	type params struct {
		ID string `json:"id"`
	}
	for _, tt := range []struct {
		raw    string
		called bool
		result any
		code   int
	}{
		{`{"id":"x"}`, true, "got x", 0},
		{`{"id":"missing"}`, true, nil, CodeInvalidParams},
		{``, false, nil, CodeInvalidParams},
		{`{"id":5}`, false, nil, CodeInvalidParams},
	} {
		called := false
		result, e := WithParams(json.RawMessage(tt.raw), func(p *params) (any, *Error) {
			called = true
			if p.ID == "missing" {
				return nil, Errorf(CodeInvalidParams, "no task %s", p.ID)
			}
			return "got " + p.ID, nil
		})
		code := 0
		if e != nil {
			code = e.Code
		}
		if called != tt.called || result != tt.result || code != tt.code {
			t.Errorf("%s: called %v, result %v, code %d; want %v, %v, %d", tt.raw, called, result, code, tt.called, tt.result, tt.code)
		}
	}
}

func TestAsError(t *testing.T) {
	own := &Error{Code: -32001, Message: "Task not found: x"}
	for _, tt := range []struct {
		err  error
		want Error
	}{
		{own, *own},
		{fmt.Errorf("wrapped: %w", own), *own},
		{errors.New("disk full"), Error{Code: CodeInternalError, Message: "Internal error: disk full"}},
	} {
		if got := AsError(tt.err); *got != tt.want {
			t.Errorf("AsError(%v) = %+v, want %+v", tt.err, got, tt.want)
		}
	}
}

func TestWrite(t *testing.T) {
	for _, tt := range []struct {
		name   string
		write  func(http.ResponseWriter)
		status int
		body   string
	}{
		{"result", func(w http.ResponseWriter) { WriteResult(w, json.RawMessage(`"a"`), map[string]int{"n": 1}) },
			200, `{"jsonrpc":"2.0","id":"a","result":{"n":1}}`},
		{"null result", func(w http.ResponseWriter) { WriteResult(w, json.RawMessage(`7`), nil) },
			200, `{"id":7,"jsonrpc":"2.0","result":null}`},
		{"error", func(w http.ResponseWriter) {
			WriteError(w, http.StatusBadRequest, nil, &Error{Code: CodeParseError, Message: "Invalid JSON payload"})
		}, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON payload"}}`},
		{"error with data", func(w http.ResponseWriter) {
			WriteError(w, http.StatusOK, json.RawMessage(`1`), &Error{Code: CodeInternalError, Message: "busy", Data: map[string]bool{"busy": true}})
		}, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"busy","data":{"busy":true}}}`},
		{"unencodable", func(w http.ResponseWriter) { WriteJSON(w, http.StatusOK, func() {}) },
			500, `{"error":"response encoding failed"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tt.write(rec)
			if rec.Code != tt.status || rec.Body.String() != tt.body+"\n" || rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("HTTP %d %q %q, want %d %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body, tt.status, tt.body)
			}
		})
	}
}

func TestStream(t *testing.T) {
	rec := httptest.NewRecorder()
	s := NewStream(rec, json.RawMessage(`3`))
	s.Start()
	s.Start()
	s.Event(map[string]string{"text": "a\nb"})
	s.KeepAlive()
	s.Fail(&Error{Code: CodeInternalError, Message: "fell behind"})
	want := "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"a\\nb\"}}\n\n" +
		": keep-alive\n\n" +
		"event: error\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,\"message\":\"fell behind\"}}\n\n"
	if rec.Body.String() != want {
		t.Errorf("stream\n%q\nwant\n%q", rec.Body, want)
	}
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/event-stream" || !rec.Flushed {
		t.Errorf("HTTP %d %v flushed %v", rec.Code, rec.Header(), rec.Flushed)
	}
	// An event that cannot be encoded writes nothing.
	rec = httptest.NewRecorder()
	if err := NewStream(rec, NullID).Event(func() {}); err == nil || rec.Body.Len() != 0 {
		t.Errorf("unencodable event: %v, wrote %q", err, rec.Body)
	}
}

// --- fuzz tests of what a client sends ---------------------------------

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"message/send","params":[]}`,
		`[1,2]`, `{`, `null`, `{"id":{}}`, `{"jsonrpc":"2.0","method":"","id":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, e := ParseRequest(b)
		if e == nil && (req == nil || req.Method == "" || req.JSONRPC != "2.0" || !json.Valid(req.ID)) {
			t.Fatalf("accepted an invalid request: %+v", req)
		}
		if e != nil && e.Code != CodeParseError && e.Code != CodeInvalidRequest {
			t.Fatalf("code %d", e.Code)
		}
	})
}

// FuzzSSEFraming checks that any event becomes exactly one data line.
func FuzzSSEFraming(f *testing.F) {
	f.Add("plain")
	f.Add("two\nlines\r\n\n")
	f.Add("data: injected\n\n")
	f.Fuzz(func(t *testing.T, text string) {
		rec := httptest.NewRecorder()
		w := NewStream(rec, json.RawMessage(`1`))
		if err := w.Event(map[string]any{"text": text}); err != nil {
			return // not valid UTF-8 JSON: nothing written
		}
		out := rec.Body.String()
		if !strings.HasPrefix(out, "data: ") || !strings.HasSuffix(out, "\n\n") || strings.Count(out, "\n") != 2 {
			t.Fatalf("frame %q", out)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(out, "data: "), "\n\n")), &m); err != nil {
			t.Fatal(err)
		}
	})
}

// TestKeepAliveWhile: keep-alives start the stream while a request waits,
// first runs once before them, and nothing is written after stop.
func TestKeepAliveWhile(t *testing.T) {
	rec := httptest.NewRecorder()
	s := NewStream(rec, json.RawMessage(`1`))
	firsts := 0
	ready := make(chan struct{})
	stop := s.KeepAliveWhile(time.Millisecond, func() {
		firsts++
		rec.Header().Set("X-First", "yes")
		close(ready)
	})
	<-ready
	for !strings.Contains(bodyOf(s, rec), ": keep-alive\n\n: keep-alive") {
		time.Sleep(time.Millisecond)
	}
	stop()
	n := len(bodyOf(s, rec))
	s.Event("done")
	if firsts != 1 || rec.Header().Get("X-First") != "yes" || rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("first ran %d times; headers %v", firsts, rec.Header())
	}
	if got := bodyOf(s, rec)[n:]; got != "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"done\"}\n\n" {
		t.Errorf("after stop: %q", got)
	}
}

// bodyOf reads what s wrote to rec so far, under the stream's lock.
func bodyOf(s *Stream, rec *httptest.ResponseRecorder) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return rec.Body.String()
}
