package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sync"

	"github.com/castor-dev/castor/internal/lazy"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// googleCredentialHosts are the hosts Gemini CLI 0.61 sends Application
// Default Credentials to (authProviderType "google_credentials"): a
// server elsewhere would receive the user's Google token.
var googleCredentialHosts = lazy.Value[[]*regexp.Regexp]{New: func() []*regexp.Regexp {
	return []*regexp.Regexp{regexp.MustCompile(`^.+\.googleapis\.com$`), regexp.MustCompile(`^(.*\.)?luci\.app$`)}
}}

// googleCredentials checks a google_credentials server's configuration as
// Gemini CLI does (a URL on an allowed host, scopes given) and returns
// its bearer-token transport over base, the token from Application
// Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the
// metadata server), fetched on first use and refreshed before it expires.
func googleCredentials(cfg *ServerConfig, base http.RoundTripper) (http.RoundTripper, error) {
	raw := cfg.Endpoint()
	if cfg.URL != "" && cfg.HTTPURL == "" {
		raw = cfg.URL
	}
	if raw == "" {
		return nil, errors.New("URL must be provided in the config for Google Credentials provider")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	allowed := false
	for _, re := range googleCredentialHosts.Get() {
		allowed = allowed || re.MatchString(u.Hostname())
	}
	if !allowed {
		return nil, fmt.Errorf("Host %q is not an allowed host for Google Credential provider.", u.Hostname())
	}
	if cfg.OAuth == nil || len(cfg.OAuth.Scopes) == 0 {
		return nil, errors.New("Scopes must be provided in the oauth config for Google Credentials provider")
	}
	return &adcTransport{base: base, scopes: cfg.OAuth.Scopes}, nil
}

// adcTransport adds an ADC access token to every request.
type adcTransport struct {
	base   http.RoundTripper
	scopes []string

	once sync.Once
	ts   oauth2.TokenSource
	err  error
}

func (t *adcTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.once.Do(func() {
		// The token endpoint is reached with the server's own client, so
		// that a test's or a proxy's transport applies to it too.
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: t.base})
		creds, err := google.FindDefaultCredentials(ctx, t.scopes...)
		if err != nil {
			t.err = fmt.Errorf("Google Application Default Credentials: %w", err)
			return
		}
		t.ts = oauth2.ReuseTokenSource(nil, creds.TokenSource)
	})
	if t.err != nil {
		return nil, t.err
	}
	tok, err := t.ts.Token()
	if err != nil {
		return nil, fmt.Errorf("Failed to get access token from Google ADC: %w", err)
	}
	r2 := r.Clone(r.Context())
	r2.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return t.base.RoundTrip(r2)
}
