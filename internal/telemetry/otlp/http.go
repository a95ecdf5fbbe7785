package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
)

// maxResponse bounds the response read, as the official exporters do.
const maxResponse = 4 << 20

// httpSender POSTs requests as OTLP/HTTP with protobuf bodies.
type httpSender struct {
	url       string
	headers   map[string]string
	userAgent string
	gzip      bool
	client    *http.Client
	own       *http.Transport // made for this sender (TLS settings): closed with it
}

func newHTTPSender(url string, s settings, userAgent string) *httpSender {
	h := &httpSender{url: url, headers: s.headers, userAgent: userAgent, gzip: s.gzip}
	t := sharedTransport.Get()
	if s.tls != nil {
		t = newTransport(s.tls)
		h.own = t
	}
	h.client = &http.Client{Transport: t}
	return h
}

// sharedTransport is the three signals' transport when no TLS setting
// sets one apart: one connection pool, made at the first use. It is not
// http.DefaultTransport, which other code may replace or change.
var sharedTransport = lazy.Value[*http.Transport]{New: func() *http.Transport { return newTransport(nil) }}

// newTransport is net/http's default transport's settings.
func newTransport(tc *tls.Config) *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       tc,
	}
}

func (h *httpSender) send(ctx context.Context, body []byte) ([]byte, error) {
	if h.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write(body); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		body = b.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if h.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	if h.userAgent != "" {
		req.Header.Set("User-Agent", h.userAgent)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response of %s: %w", h.url, err)
	}
	if len(data) > maxResponse {
		return nil, fmt.Errorf("the response of %s is over %d bytes", h.url, maxResponse)
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		// Only a protobuf body is a response we can read; the
		// specification has the server answer in the request's type.
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-protobuf") {
			return nil, nil
		}
		return data, nil
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		text = "(empty)"
	}
	err = fmt.Errorf("%s: %s (body: %s)", h.url, resp.Status, text)
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return nil, &retryable{err: err, after: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	}
	return nil, err
}

// retryAfter is a Retry-After header's delay: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0
		}
		if s > int64(time.Duration(1<<63-1)/time.Second) {
			return time.Duration(1<<63 - 1)
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

func (h *httpSender) close() error {
	if h.own != nil {
		h.own.CloseIdleConnections()
	}
	return nil
}
