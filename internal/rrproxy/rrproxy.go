// Package rrproxy is a round-robin reverse proxy for testing A2A server
// replicas as a load balancer spreads a client's requests: request n goes
// to target n mod len(targets), streams flushed as they come, the Host
// header kept (the agent card names the address the client asked).
package rrproxy

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

// New returns a handler sending each request to the next target.
func New(targets []*url.URL) http.Handler {
	var n atomic.Int64
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(targets[(n.Add(1)-1)%int64(len(targets))])
			pr.Out.Host = pr.In.Host
		},
		FlushInterval: -1,
	}
}

// Parse parses the targets' URLs.
func Parse(raw []string) ([]*url.URL, error) {
	out := make([]*url.URL, 0, len(raw))
	for _, r := range raw {
		u, err := url.Parse(r)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}
