package a2a

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// errForbiddenTarget is a webhook on an address the server refuses to
// call: loopback, private, link-local and the like reach services that
// trust the server's network position, not the client's.
var errForbiddenTarget = errors.New("push notification target is a loopback, private or link-local address")

// forbiddenIP reports whether ip is not a public unicast address.
func forbiddenIP(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		// Carrier-grade NAT, shared address space.
		(ip.To4() != nil && ip.To4()[0] == 100 && ip.To4()[1]&0xc0 == 64)
}

// checkPushURL validates a webhook URL when it is configured. Names are
// checked again, by address, when they are dialled.
func checkPushURL(raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Errorf("pushNotificationConfig.url must be an absolute http(s) URL without credentials")
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil && forbiddenIP(ip) {
		return errForbiddenTarget
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return errForbiddenTarget
	}
	return nil
}

// pushClient returns the HTTP client webhooks are called with: it refuses
// forbidden addresses at dial time (so DNS tricks cannot reach them) and
// does not follow redirects.
func pushClient(allowPrivate bool, timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || forbiddenIP(ip) {
				return errForbiddenTarget
			}
			return nil
		}
	}
	tr := &http.Transport{
		DialContext:           d.DialContext,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// deliverPush POSTs body to one webhook with its token, retrying network
// failures, 429 and 5xx with exponential backoff.
func deliverPush(ctx context.Context, client *http.Client, cfg PushNotificationConfig, body []byte, attempts int, backoff time.Duration) error {
	if attempts < 1 {
		attempts = 1
	}
	var last error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			t := time.NewTimer(backoff << (i - 1))
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if cfg.Token != "" {
			// The receiver checks it to trust the call: @a2a-js/sdk 0.3's
			// header, or A2A 1.0's.
			h := "X-A2A-Notification-Token"
			if cfg.Version == "1.0" {
				h = "A2A-Notification-Token"
			}
			req.Header.Set(h, cfg.Token)
		}
		if a := cfg.Authentication; a != nil && a.Credentials != "" {
			for _, s := range a.Schemes {
				if strings.EqualFold(s, "bearer") {
					req.Header.Set("Authorization", "Bearer "+a.Credentials)
					break
				}
				if strings.EqualFold(s, "basic") {
					req.Header.Set("Authorization", "Basic "+a.Credentials)
					break
				}
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err
			if errors.Is(err, errForbiddenTarget) {
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
