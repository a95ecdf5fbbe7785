// Package webhook calls webhooks for server faces: it refuses targets a
// client should not reach through the server (CheckURL and the dialer of
// a Sender), delivers a JSON body with retries and backoff (Sender), and
// keeps a slow webhook from piling up work (Coalescer).
//
// A webhook URL comes from a client, but the call comes from the server,
// from inside its network: without the guard a client could make the
// server call services that trust the server's network position
// (metadata endpoints, admin ports on loopback, the private network).
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/castor-dev/castor/internal/netguard"
)

// ErrForbiddenTarget is a webhook on an address the server refuses to
// call: loopback, private, link-local and the like (netguard judges).
var ErrForbiddenTarget = errors.New("push notification target is a loopback, private or link-local address")

// CheckURL validates a webhook URL when a client configures it: an
// absolute http(s) URL without credentials (which would end up in logs),
// and, unless allowPrivate, not naming a forbidden address or localhost.
// Host names are checked again, by address, when a Sender dials them, so
// that DNS cannot get round it. field names the setting the URL came from
// in the error.
func CheckURL(field, raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Errorf("%s must be an absolute http(s) URL without credentials", field)
	}
	if allowPrivate {
		return nil
	}
	if netguard.CheckHost(u.Hostname()) != nil {
		return ErrForbiddenTarget
	}
	return nil
}

// Options configure a Sender.
type Options struct {
	// AllowPrivate lets webhooks reach forbidden addresses (tests, or a
	// server whose clients are all trusted).
	AllowPrivate bool
	// Attempts is how many times a delivery is tried (at least once).
	Attempts int
	// Backoff is the wait before the second attempt; it doubles after.
	Backoff time.Duration
	// Timeout bounds one call (dial, TLS, response headers, whole call);
	// a delivery with its retries gets Timeout × (Attempts+1). 0: none.
	Timeout time.Duration
}

// Sender delivers JSON bodies to webhooks. It is safe for concurrent use.
type Sender struct {
	client *http.Client
	opts   Options
}

// NewSender returns a sender whose HTTP client refuses forbidden
// addresses at dial time (unless o.AllowPrivate) and never follows a
// redirect, which could lead it to one.
func NewSender(o Options) *Sender {
	o.Attempts = max(o.Attempts, 1)
	d := &net.Dialer{Timeout: o.Timeout}
	if !o.AllowPrivate {
		d.Control = func(network, address string, c syscall.RawConn) error {
			if err := netguard.Control(network, address, c); err != nil {
				return fmt.Errorf("%w: %w", ErrForbiddenTarget, err)
			}
			return nil
		}
	}
	// No Proxy: a proxy would dial on the sender's behalf, unguarded.
	tr := &http.Transport{
		DialContext:           d.DialContext,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
	}
	return &Sender{opts: o, client: &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

// Send POSTs body (JSON) to url with header. Network failures, 429 and
// 5xx are tried again after a doubling backoff; any other answer but 2xx,
// a redirect included, fails at once, as does a forbidden target.
func (s *Sender) Send(ctx context.Context, url string, header http.Header, body []byte) error {
	if s.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.Timeout*time.Duration(s.opts.Attempts+1))
		defer cancel()
	}
	var last error
	for i := range s.opts.Attempts {
		if i > 0 {
			t := time.NewTimer(s.opts.Backoff << (i - 1))
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header = header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.client.Do(req)
		if err != nil {
			last = err
			if errors.Is(err, ErrForbiddenTarget) {
				return err
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode < 300 {
			return nil
		}
		last = fmt.Errorf("webhook answered %s", resp.Status)
		if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
			return last
		}
	}
	return last
}
