package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// marker tags a prompt with its turn number; the proxy finds the last one
// in a model request body (the newest user message) to charge the call's
// time to that turn.
const marker = "[a2aload#"

// replayHeader marks requests the load generator replays itself: they are
// timed by the client and charged to no turn.
const replayHeader = "X-A2aload-Replay"

// modelProxy sits between castor and the fake model, on 127.0.0.1, and
// times every model call from the moment its request reaches the proxy to
// the moment the last byte of the answer was flushed back. That is the
// time castor spent waiting for "the model"; the rest of a turn is
// castor's (and the two loopback hops').
type modelProxy struct {
	upstream string
	client   *http.Client
	srv      *http.Server
	URL      string

	mu         sync.Mutex
	turns      map[int]*modelTime
	unassigned int
	captured   *capturedRequest
	captureSeq int
	failures   int
}

// modelTime is what the model cost one turn.
type modelTime struct {
	calls int
	d     time.Duration
}

// capturedRequest is one model request castor sent, kept for the direct
// replay.
type capturedRequest struct {
	method, path string
	header       http.Header
	body         []byte
}

// newModelProxy starts a proxy to upstream. idle, when positive, is how
// long it keeps a connection open waiting for the next request (the idle
// timeout of gateways and load balancers), so that castor's model client
// meets connections closed under it as often as it likes.
func newModelProxy(upstream string, idle time.Duration) (*modelProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &modelProxy{
		upstream: upstream,
		client: &http.Client{Transport: &http.Transport{
			Proxy:               nil,
			MaxIdleConns:        2048,
			MaxIdleConnsPerHost: 2048,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		}},
		turns:      map[int]*modelTime{},
		captureSeq: -1,
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: idle}
	p.URL = "http://" + ln.Addr().String()
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *modelProxy) Close() {
	_ = p.srv.Close()
	p.client.CloseIdleConnections()
}

// capture asks the proxy to keep the next model request of turn seq.
func (p *modelProxy) capture(seq int) {
	p.mu.Lock()
	p.captureSeq = seq
	p.captured = nil
	p.mu.Unlock()
}

func (p *modelProxy) capturedRequest() *capturedRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.captured
}

// take returns and forgets what the model cost turn seq.
func (p *modelProxy) take(seq int) modelTime {
	p.mu.Lock()
	defer p.mu.Unlock()
	mt := p.turns[seq]
	delete(p.turns, seq)
	if mt == nil {
		return modelTime{}
	}
	return *mt
}

func (p *modelProxy) counts() (unassigned, failures int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unassigned, p.failures
}

func turnOf(body []byte) (int, bool) {
	i := bytes.LastIndex(body, []byte(marker))
	if i < 0 {
		return 0, false
	}
	rest := body[i+len(marker):]
	j := bytes.IndexByte(rest, ']')
	if j <= 0 || j > 12 {
		return 0, false
	}
	n, err := strconv.Atoi(string(rest[:j]))
	return n, err == nil
}

func (p *modelProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		p.fail()
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		p.fail()
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range r.Header {
		if k == "Connection" || k == "Keep-Alive" || k == "Accept-Encoding" {
			continue
		}
		req.Header[k] = vs
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.fail()
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if k == "Content-Length" || k == "Connection" {
			continue
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	fl, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				p.fail()
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			p.fail()
			return
		}
	}
	d := time.Since(start)
	if r.Header.Get(replayHeader) != "" {
		return
	}
	seq, ok := turnOf(body)
	p.mu.Lock()
	defer p.mu.Unlock()
	if resp.StatusCode != http.StatusOK {
		p.failures++
	}
	if !ok {
		p.unassigned++
		return
	}
	mt := p.turns[seq]
	if mt == nil {
		mt = &modelTime{}
		p.turns[seq] = mt
	}
	mt.calls++
	mt.d += d
	if seq == p.captureSeq && p.captured == nil {
		p.captured = &capturedRequest{method: r.Method, path: r.URL.RequestURI(), header: r.Header.Clone(), body: body}
	}
}

func (p *modelProxy) fail() {
	p.mu.Lock()
	p.failures++
	p.mu.Unlock()
}
