package mcp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// maxBodyQuote bounds how much of an error answer's body is kept.
const maxBodyQuote = 512

// httpAnswer is the first error status a remote server answered with
// since the connection attempt began (the streamable HTTP one, when an SSE
// fallback followed), and
// the start of its body: the SDK reports only "Not Found" or
// "Unauthorized", while the body often says what is wrong ("invalid API
// key").
type httpAnswer struct {
	mu     sync.Mutex
	code   int
	status string // "404 Not Found"; "" when none
	url    string
	body   string
}

// record notes resp, the answer to r: r rather than resp.Request, which
// a RoundTripper other than http.Transport may leave nil.
func (a *httpAnswer) record(r *http.Request, resp *http.Response, body []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.status != "" {
		return
	}
	a.code, a.status, a.url = resp.StatusCode, resp.Status, r.URL.String()
	a.body = strings.Join(strings.Fields(clip(string(body), 200)), " ")
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "html") {
		// An HTML error page quoted in a terminal helps nobody.
		a.body = ""
	}
}

func (a *httpAnswer) reset() {
	a.mu.Lock()
	a.code, a.status, a.url, a.body = 0, "", "", ""
	a.mu.Unlock()
}

// describe is "HTTP 404 Not Found from URL (the server said: body)" and the status code
// when err is about that answer (the SDK's errors carry its status text),
// or "" and 0.
func (a *httpAnswer) describe(err error) (string, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.status == "" || err == nil || !strings.Contains(err.Error(), http.StatusText(a.code)) {
		return "", 0
	}
	s := fmt.Sprintf("HTTP %s from %s", a.status, a.url)
	if a.body != "" {
		s += " (the server said: " + a.body + ")"
	}
	return s, a.code
}

// statusRecorder notes error answers in rec, leaving the body readable.
type statusRecorder struct {
	base http.RoundTripper
	rec  *httpAnswer
}

func (t *statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxBodyQuote))
	t.rec.record(r, resp, head)
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	return resp, nil
}
