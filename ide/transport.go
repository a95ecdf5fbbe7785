package ide

import (
	"bytes"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// transport is the HTTP layer under the MCP client: it adds the bearer
// token to every request, takes ide/* notifications out of event streams
// and remembers how requests failed so that a failed connection can be
// explained.
type transport struct {
	base  *http.Transport
	token string
	note  noteFunc
	probe probe
}

// probe records the first failure seen on the wire.
type probe struct {
	mu       sync.Mutex
	dialErr  error
	status   int
	body     string
	sawReply bool
}

func (p *probe) recordErr(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialErr == nil && p.status == 0 {
		p.dialErr = err
	}
}

func (p *probe) recordStatus(code int, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sawReply = true
	if code >= 300 && p.status == 0 && p.dialErr == nil {
		p.status, p.body = code, body
	}
}

func (p *probe) get() (status int, body string, sawReply bool, dialErr error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.body, p.sawReply, p.dialErr
}

func newTransport(token string, note noteFunc) *transport {
	return &transport{
		base: &http.Transport{
			// The companion is on this machine: a proxy from the
			// environment must never see the token (Gemini CLI adds the
			// host to NO_PROXY for the same reason).
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
		},
		token: token,
		note:  note,
	}
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if t.token != "" {
		r.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		t.probe.recordErr(err)
		return nil, err
	}
	if resp.StatusCode >= 300 {
		// Keep the start of the body for the diagnosis, and give the SDK
		// the whole of it.
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		t.probe.recordStatus(resp.StatusCode, string(head))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		return resp, nil
	}
	t.probe.recordStatus(resp.StatusCode, "")
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		pr, pw := io.Pipe()
		body := resp.Body
		go func() {
			err := filterSSE(body, pw, t.note)
			body.Close()
			pw.CloseWithError(err)
		}()
		// Closing the response must also close the upstream body, or the
		// filter would wait for the next event forever.
		resp.Body = readCloser{pr, multiCloser{pr, body}}
	}
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

type multiCloser []io.Closer

// Close closes every closer and returns the first error.
func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// serverHost is where the companion listens: this machine, except inside a
// container that is neither a dev container nor reached over SSH, where
// the IDE runs on the host (Gemini CLI's getIdeServerHost).
func serverHost(getenv func(string) string) string {
	inContainer := fileExists("/.dockerenv") || fileExists("/run/.containerenv")
	if inContainer && getenv("SSH_CONNECTION") == "" &&
		getenv("VSCODE_REMOTE_CONTAINERS_SESSION") == "" && getenv("REMOTE_CONTAINERS") == "" {
		return "host.docker.internal"
	}
	return "127.0.0.1"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
