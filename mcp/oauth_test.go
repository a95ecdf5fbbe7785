package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeOAuth is an authorization server plus an MCP server that wants its
// tokens, all on loopback.
type fakeOAuth struct {
	srv        *httptest.Server
	mu         sync.Mutex
	valid      map[string]bool
	issued     atomic.Int32
	refreshed  atomic.Int32
	registered atomic.Int32
}

func (f *fakeOAuth) mcpURL() string { return f.srv.URL + "/mcp" }

func newFakeOAuth(t *testing.T) *fakeOAuth {
	t.Helper()
	f := &fakeOAuth{valid: map[string]bool{}}
	mux := http.NewServeMux()
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	base := f.srv.URL
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": f.mcpURL(), "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": f.mcpURL(), "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"none"}, "authorization_response_iss_parameter_supported": true,
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		f.registered.Add(1)
		var meta map[string]any
		_ = json.NewDecoder(r.Body).Decode(&meta)
		meta["client_id"] = "registered-client"
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, meta)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge") == "" || q.Get("client_id") != "registered-client" {
			http.Error(w, "bad authorize request", http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("%s?code=the-code&state=%s&iss=%s", q.Get("redirect_uri"), url.QueryEscape(q.Get("state")), url.QueryEscape(base)), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		var tok string
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			if r.Form.Get("code") != "the-code" || r.Form.Get("code_verifier") == "" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			tok = fmt.Sprintf("access-%d", f.issued.Add(1))
		case "refresh_token":
			if r.Form.Get("refresh_token") != "the-refresh" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			tok = fmt.Sprintf("refreshed-%d", f.refreshed.Add(1))
		}
		f.mu.Lock()
		f.valid[tok] = true
		f.mu.Unlock()
		writeJSON(w, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "refresh_token": "the-refresh"})
	})
	mcpHandler := startHTTPHandler()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		ok := f.valid[tok]
		f.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, base+"/.well-known/oauth-protected-resource/mcp"))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	return f
}

// browser follows the authorization URL the way a user's browser would,
// redirects included, which lands on Castor's loopback callback.
func browser(t *testing.T, opened *atomic.Int32) func(string) error {
	return func(authURL string) error {
		opened.Add(1)
		resp, err := http.Get(authURL)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(body), "Authentication successful") {
			return fmt.Errorf("callback page: %s", body)
		}
		return nil
	}
}

func TestOAuthFlowStoresAndReusesTokens(t *testing.T) {
	f := newFakeOAuth(t)
	tokens := filepath.Join(t.TempDir(), ".gemini", TokenFileName)
	var opened atomic.Int32
	cfg := &ServerConfig{Name: "secure", HTTPURL: f.mcpURL()}

	// First session: no token, so the browser flow runs.
	m, d := startManager(t, Options{Servers: []*ServerConfig{cfg}, OAuth: &OAuthOptions{TokenFile: tokens, OpenBrowser: browser(t, &opened), CallbackTimeout: time.Minute}})
	if st, _ := m.Status("secure"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	if r := run(t, m, "echo", map[string]any{"message": "authorized"}); r.Error != nil {
		t.Fatal(r.Error)
	}
	if opened.Load() != 1 || f.registered.Load() != 1 {
		t.Errorf("browser opened %d times, %d registrations", opened.Load(), f.registered.Load())
	}
	stored, err := (&TokenStore{Path: tokens}).Get("secure")
	if err != nil || stored == nil {
		t.Fatalf("stored = %+v, %v", stored, err)
	}
	if stored.Token.AccessToken != "access-1" || stored.Token.RefreshToken != "the-refresh" ||
		stored.ClientID != "registered-client" || stored.TokenURL != f.srv.URL+"/token" || stored.MCPServerURL != f.mcpURL() || stored.Token.ExpiresAt == 0 {
		t.Errorf("stored = %+v", stored)
	}
	_ = m.Close()

	// Second session, headless: the stored token is enough.
	m2, d2 := startManager(t, Options{Servers: []*ServerConfig{cfg}, OAuth: &OAuthOptions{TokenFile: tokens}})
	if st, _ := m2.Status("secure"); st.Status != StatusConnected {
		t.Fatalf("with stored token: %+v\n%s", st, d2)
	}
	if opened.Load() != 1 {
		t.Errorf("browser reopened")
	}
	_ = m2.Close()

	// Third session with an expired token: it is refreshed and saved.
	stored.Token.ExpiresAt = time.Now().Add(-time.Hour).UnixMilli()
	if err := (&TokenStore{Path: tokens}).Save(*stored); err != nil {
		t.Fatal(err)
	}
	m3, d3 := startManager(t, Options{Servers: []*ServerConfig{cfg}, OAuth: &OAuthOptions{TokenFile: tokens}})
	if st, _ := m3.Status("secure"); st.Status != StatusConnected {
		t.Fatalf("with expired token: %+v\n%s", st, d3)
	}
	if got, _ := (&TokenStore{Path: tokens}).Get("secure"); got == nil || got.Token.AccessToken != "refreshed-1" {
		t.Errorf("after refresh: %+v", got)
	}
}

func TestOAuthWithoutTokenOrBrowser(t *testing.T) {
	f := newFakeOAuth(t)
	tokens := filepath.Join(t.TempDir(), TokenFileName)
	m, _ := startManager(t, Options{Servers: []*ServerConfig{{Name: "secure", HTTPURL: f.mcpURL()}}, OAuth: &OAuthOptions{TokenFile: tokens}})
	st, _ := m.Status("secure")
	if st.Status != StatusError || !strings.Contains(st.Reason, "requires authentication") {
		t.Errorf("status = %s %q", st.Status, st.Reason)
	}
}

// TestOAuthCallbackRefusesWebPages: the loopback callback refuses what a
// web page can send it (another Host, another Origin), with the right
// state even; the browser's own redirect then completes the sign-in.
func TestOAuthCallbackRefusesWebPages(t *testing.T) {
	f := newFakeOAuth(t)
	var opened atomic.Int32
	var codes []int
	real := browser(t, &opened)
	open := func(authURL string) error {
		au, err := url.Parse(authURL)
		if err != nil {
			return err
		}
		cb, err := url.Parse(au.Query().Get("redirect_uri"))
		if err != nil {
			return err
		}
		cb.RawQuery = url.Values{"state": {au.Query().Get("state")}, "code": {"stolen"}}.Encode()
		for _, page := range []struct{ host, origin string }{{"evil.example", ""}, {"", "https://evil.example"}} {
			req, _ := http.NewRequest("GET", cb.String(), nil)
			req.Host = page.host
			if page.origin != "" {
				req.Header.Set("Origin", page.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
			codes = append(codes, resp.StatusCode)
		}
		return real(authURL)
	}
	cfg := &ServerConfig{Name: "secure", HTTPURL: f.mcpURL()}
	m, d := startManager(t, Options{Servers: []*ServerConfig{cfg}, OAuth: &OAuthOptions{TokenFile: filepath.Join(t.TempDir(), TokenFileName), OpenBrowser: open, CallbackTimeout: time.Minute}})
	defer m.Close()
	if st, _ := m.Status("secure"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	if len(codes) != 2 || codes[0] != http.StatusMisdirectedRequest || codes[1] != http.StatusForbidden {
		t.Errorf("web pages' callbacks answered %v, want [421 403]", codes)
	}
}
