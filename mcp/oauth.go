package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/httpguard"
)

// TokenFileName is the file under ~/.gemini where Gemini CLI keeps MCP
// OAuth tokens (when it is not using the keychain).
const TokenFileName = "mcp-oauth-tokens.json"

// oauthClientName is how Castor registers itself with authorization
// servers that support dynamic client registration.
const oauthClientName = "Castor MCP Client"

// redirectPath is the loopback callback path, as in Gemini CLI.
const redirectPath = "/oauth/callback"

// OAuthOptions configure authorization for remote servers.
type OAuthOptions struct {
	// TokenFile is where tokens are read and written: Gemini CLI's
	// ~/.gemini/mcp-oauth-tokens.json, shared with it.
	TokenFile string
	// OpenBrowser shows the user the authorization URL. nil means no
	// interactive flow: only stored tokens (refreshed as needed) are used,
	// and a server that wants a new authorization fails with a message
	// saying so.
	OpenBrowser func(authURL string) error
	// CallbackTimeout bounds the wait for the browser to come back; zero
	// means five minutes.
	CallbackTimeout time.Duration
	// HTTPClient is used to talk to authorization servers; nil means
	// http.DefaultClient.
	HTTPClient *http.Client
}

// OAuthToken is a token as Gemini CLI stores it.
type OAuthToken struct {
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken,omitempty"`
	// ExpiresAt is in milliseconds since the epoch.
	ExpiresAt int64  `json:"expiresAt,omitempty"`
	TokenType string `json:"tokenType"`
	Scope     string `json:"scope,omitempty"`
}

// OAuthCredentials is one entry of the token file.
type OAuthCredentials struct {
	ServerName   string     `json:"serverName"`
	Token        OAuthToken `json:"token"`
	ClientID     string     `json:"clientId,omitempty"`
	TokenURL     string     `json:"tokenUrl,omitempty"`
	MCPServerURL string     `json:"mcpServerUrl,omitempty"`
	// UpdatedAt is in milliseconds since the epoch.
	UpdatedAt int64 `json:"updatedAt"`
}

// TokenStore reads and writes Gemini CLI's MCP token file. Entries of
// other servers, and fields Castor does not know, are kept as they were.
type TokenStore struct {
	Path string
}

// tokenStoreLocks serializes writers of the same file within the process.
var tokenStoreLocks sync.Map

func (ts *TokenStore) lock() func() {
	v, _ := tokenStoreLocks.LoadOrStore(ts.Path, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func (ts *TokenStore) readRaw() ([]json.RawMessage, error) {
	data, err := os.ReadFile(ts.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("%s: %v", ts.Path, err)
	}
	return entries, nil
}

// Get returns the stored credentials of server, or nil.
func (ts *TokenStore) Get(server string) (*OAuthCredentials, error) {
	defer ts.lock()()
	entries, err := ts.readRaw()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		var c OAuthCredentials
		if json.Unmarshal(e, &c) == nil && c.ServerName == server {
			return &c, nil
		}
	}
	return nil, nil
}

// Save stores credentials for c.ServerName, keeping a refresh token
// already stored when the new token has none, as Gemini CLI does.
func (ts *TokenStore) Save(c OAuthCredentials) error {
	defer ts.lock()()
	entries, err := ts.readRaw()
	if err != nil {
		// A corrupt file would otherwise block authorization for good;
		// Gemini CLI starts afresh too.
		entries = nil
	}
	if c.UpdatedAt == 0 {
		c.UpdatedAt = time.Now().UnixMilli()
	}
	out := make([]json.RawMessage, 0, len(entries)+1)
	replaced := false
	for _, e := range entries {
		var old OAuthCredentials
		if json.Unmarshal(e, &old) == nil && old.ServerName == c.ServerName {
			if c.Token.RefreshToken == "" {
				c.Token.RefreshToken = old.Token.RefreshToken
			}
			b, err := json.Marshal(c)
			if err != nil {
				return err
			}
			out = append(out, b)
			replaced = true
			continue
		}
		out = append(out, e)
	}
	if !replaced {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		out = append(out, b)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(ts.Path), 0o700); err != nil {
		return err
	}
	// Owner-only whatever the old file's mode was: the file holds tokens.
	return fsutil.ReplaceFile(ts.Path, data, 0o600)
}

// oauth2Token converts a stored token.
func (t OAuthToken) oauth2Token() *oauth2.Token {
	tok := &oauth2.Token{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType}
	if t.ExpiresAt > 0 {
		tok.Expiry = time.UnixMilli(t.ExpiresAt)
	}
	return tok
}

func fromOAuth2(t *oauth2.Token) OAuthToken {
	out := OAuthToken{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType}
	if out.TokenType == "" {
		out.TokenType = "Bearer"
	}
	if !t.Expiry.IsZero() {
		out.ExpiresAt = t.Expiry.UnixMilli()
	}
	if s, ok := t.Extra("scope").(string); ok {
		out.Scope = s
	}
	return out
}

// savingSource stores every new token it hands out, so that refreshed
// tokens survive the session.
type savingSource struct {
	base     oauth2.TokenSource
	store    *TokenStore
	server   string
	clientID string
	tokenURL string
	url      string

	mu   sync.Mutex
	last string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.base.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	changed := t.AccessToken != s.last
	s.last = t.AccessToken
	s.mu.Unlock()
	if changed {
		_ = s.store.Save(OAuthCredentials{
			ServerName: s.server, Token: fromOAuth2(t),
			ClientID: s.clientID, TokenURL: s.tokenURL, MCPServerURL: s.url,
		})
	}
	return t, nil
}

func (o *OAuthOptions) httpClient() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return http.DefaultClient
}

// storedSource returns a token source over the server's stored token,
// refreshing it through the stored token endpoint when it expires, or nil.
func (m *Manager) storedSource(cfg *ServerConfig) oauth2.TokenSource {
	if m.oauth == nil || m.oauth.TokenFile == "" {
		return nil
	}
	store := &TokenStore{Path: m.oauth.TokenFile}
	c, err := store.Get(cfg.Name)
	if err != nil {
		m.debugf("Failed to load MCP OAuth tokens: %v", err)
		return nil
	}
	if c == nil || c.Token.AccessToken == "" {
		return nil
	}
	tok := c.Token.oauth2Token()
	var base oauth2.TokenSource = oauth2.StaticTokenSource(tok)
	if c.Token.RefreshToken != "" && c.TokenURL != "" {
		conf := &oauth2.Config{ClientID: c.ClientID, Endpoint: oauth2.Endpoint{TokenURL: c.TokenURL}}
		if cfg.OAuth != nil && cfg.OAuth.ClientID == c.ClientID {
			conf.ClientSecret = cfg.OAuth.ClientSecret
		}
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, m.oauth.httpClient())
		base = conf.TokenSource(ctx, tok)
	}
	return &savingSource{base: base, store: store, server: cfg.Name, clientID: c.ClientID, tokenURL: c.TokenURL, url: cfg.Endpoint(), last: tok.AccessToken}
}

// storedBearer returns a usable stored access token for cfg, or "".
func (m *Manager) storedBearer(cfg *ServerConfig) string {
	src := m.storedSource(cfg)
	if src == nil {
		return ""
	}
	t, err := src.Token()
	if err != nil {
		return ""
	}
	return t.AccessToken
}

// oauthHandler returns the OAuth handler of a streamable HTTP server: the
// SDK's authorization-code handler, seeded with any stored token, which on
// a 401 discovers the authorization server (RFC 9728 protected resource
// metadata, RFC 8414), registers Castor (pre-registered client from the
// oauth block, or dynamic registration), sends the user's browser to it
// and receives the code on a loopback redirect. It returns nil when OAuth
// is off (no OAuthOptions) or when there is neither a stored token nor a
// way to open a browser.
func (m *Manager) oauthHandler(cfg *ServerConfig) (auth.OAuthHandler, error) {
	if m.oauth == nil {
		return nil, nil
	}
	initial := m.storedSource(cfg)
	if m.oauth.OpenBrowser == nil {
		if initial == nil {
			return nil, nil
		}
		return &staticHandler{src: initial, server: cfg.Name}, nil
	}
	redirect, port, err := redirectFor(cfg)
	if err != nil {
		return nil, err
	}
	store := &TokenStore{Path: m.oauth.TokenFile}
	hc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         redirect,
		Client:              m.oauth.httpClient(),
		RequestRefreshToken: true,
		InitialTokenSource:  initial,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return m.fetchCode(ctx, cfg.Name, redirect, port, args.URL)
		},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			src := &savingSource{base: c.TokenSource(ctx, t), store: store, server: cfg.Name, clientID: c.ClientID, tokenURL: c.Endpoint.TokenURL, url: cfg.Endpoint()}
			// Store the fresh token at once, not only at first use.
			if _, err := src.Token(); err != nil {
				return nil, err
			}
			return src, nil
		},
	}
	if o := cfg.OAuth; o != nil && o.ClientID != "" {
		cc := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		hc.PreregisteredClient = cc
	} else {
		hc.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName:              oauthClientName,
				RedirectURIs:            []string{redirect},
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none",
			},
		}
	}
	if o := cfg.OAuth; o != nil && len(o.Scopes) > 0 {
		scopes := append([]string(nil), o.Scopes...)
		hc.ScopeFilter = func([]string) []string { return scopes }
	}
	h, err := auth.NewAuthorizationCodeHandler(hc)
	if err != nil {
		return nil, fmt.Errorf("OAuth for MCP server '%s': %w", cfg.Name, err)
	}
	return h, nil
}

// redirectFor picks the loopback redirect: the configured redirectUri's
// port when it has one, else a free port now (the listener itself is only
// opened if the server asks for authorization).
func redirectFor(cfg *ServerConfig) (redirect string, port int, err error) {
	if cfg.OAuth != nil && cfg.OAuth.RedirectURI != "" {
		u, err := url.Parse(cfg.OAuth.RedirectURI)
		if err != nil {
			return "", 0, fmt.Errorf("oauth.redirectUri: %v", err)
		}
		if p, err := strconv.Atoi(u.Port()); err == nil {
			return cfg.OAuth.RedirectURI, p, nil
		}
	}
	if p, err := strconv.Atoi(os.Getenv("OAUTH_CALLBACK_PORT")); err == nil && p > 0 {
		port = p
	} else {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", 0, err
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	return fmt.Sprintf("http://127.0.0.1:%d%s", port, redirectPath), port, nil
}

// fetchCode runs the browser half of the authorization: it listens on the
// loopback port, opens the authorization URL and waits for the redirect.
func (m *Manager) fetchCode(ctx context.Context, server, redirect string, port int, authURL string) (*auth.AuthorizationResult, error) {
	var redirectHost string
	if u, err := url.Parse(redirect); err == nil {
		redirectHost = u.Hostname()
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("OAuth callback listener: %w", err)
	}
	type answer struct {
		res *auth.AuthorizationResult
		err error
	}
	ch := make(chan answer, 1)
	// A web page's request (another Host, a foreign Origin) is refused;
	// the browser comes back by the redirect, to 127.0.0.1 or the host of
	// the configured redirectUri.
	door := httpguard.New(httpguard.Options{ListenHost: "127.0.0.1", Hosts: []string{redirectHost}})
	srv := &http.Server{
		ReadHeaderTimeout: httpguard.HeaderTimeout,
		Handler: httpguard.ReadBodyWithin(door.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != redirectPath {
				http.NotFound(w, r)
				return
			}
			q := r.URL.Query()
			var a answer
			if e := q.Get("error"); e != "" {
				a.err = fmt.Errorf("OAuth error: %s %s", e, q.Get("error_description"))
				fmt.Fprintf(w, "<html><body><h1>Authentication failed</h1><p>%s</p></body></html>", html.EscapeString(e))
			} else {
				a.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
				fmt.Fprint(w, "<html><body><h1>Authentication successful!</h1><p>You can close this window and return to Castor.</p></body></html>")
			}
			select {
			case ch <- a:
			default:
			}
		}), nil), httpguard.BodyTimeout),
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	m.debugf("MCP server '%s' requires authentication; opening %s", server, authURL)
	if err := m.oauth.OpenBrowser(authURL); err != nil {
		return nil, fmt.Errorf("opening the browser for MCP server '%s': %w", server, err)
	}
	wait := m.oauth.CallbackTimeout
	if wait <= 0 {
		wait = 5 * time.Minute
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case a := <-ch:
		return a.res, a.err
	case <-timer.C:
		return nil, errors.New("timed out waiting for the OAuth callback")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// staticHandler serves a stored token and cannot authorize anew (no
// browser available).
type staticHandler struct {
	src    oauth2.TokenSource
	server string
}

func (h *staticHandler) TokenSource(context.Context) (oauth2.TokenSource, error) { return h.src, nil }

func (h *staticHandler) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	return fmt.Errorf("MCP server '%s' rejected stored OAuth token. Please re-authenticate using: /mcp auth %s", h.server, h.server)
}
