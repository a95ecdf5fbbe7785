package fakegemini

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Paths served by OAuthServer, as Google serves them. The token endpoint
// takes the authorization_code, refresh_token and (service account)
// jwt-bearer grants.
const (
	OAuthAuthPath     = "/o/oauth2/v2/auth"
	OAuthTokenPath    = "/token"
	OAuthUserInfoPath = "/oauth2/v2/userinfo"
	// MetadataTokenPath is the GCE metadata server's token endpoint; point
	// GCE_METADATA_HOST at OAuthServer.MetadataHost to use it.
	MetadataTokenPath = "/computeMetadata/v1/instance/service-accounts/default/token"
)

// DefaultEmail is the account OAuthServer signs users in as.
const DefaultEmail = "castor-tester@example.com"

// revokedMessage is what Google's token endpoint says about a refresh
// token that was revoked or has expired.
const revokedMessage = "Token has been expired or revoked."

// OAuthServer is a fake Google sign-in: the OAuth 2.0 authorization and
// token endpoints (with PKCE), the userinfo endpoint, and the compute
// metadata server's token endpoint. The authorization endpoint consents at
// once and redirects to the client's redirect_uri, so a test plays the
// browser by following that redirect. Its methods are safe for concurrent
// use.
type OAuthServer struct {
	// URL is the base URL, e.g. "http://127.0.0.1:40124".
	URL string
	// ClientID and ClientSecret, when set, are required of token requests.
	ClientID, ClientSecret string

	mu        sync.Mutex
	codes     map[string]authGrant
	refresh   map[string]bool // refresh token → still valid
	access    map[string]bool // access tokens issued
	seq       int
	expiresIn int
	email     string
	deny      string
	requests  []*OAuthRequest
	ts        *httptest.Server
	closeOnce sync.Once
}

// authGrant is what an authorization code was issued for.
type authGrant struct {
	redirectURI, challenge, method, scope string
}

// OAuthRequest is one request OAuthServer received.
type OAuthRequest struct {
	Method string
	Path   string
	// Form holds the query of a GET and the form body of a POST.
	Form   url.Values
	Header http.Header
}

// StartOAuth starts an OAuthServer on 127.0.0.1 and closes it when the
// test ends.
func StartOAuth(t testing.TB) *OAuthServer {
	t.Helper()
	s := &OAuthServer{
		codes:     map[string]authGrant{},
		refresh:   map[string]bool{},
		access:    map[string]bool{},
		expiresIn: 3599,
		email:     DefaultEmail,
	}
	ts, err := newLoopbackServer("127.0.0.1:0", s)
	if err != nil {
		t.Fatalf("fakegemini: %v", err)
	}
	ts.Start()
	s.ts, s.URL = ts, ts.URL
	t.Cleanup(s.Close)
	return s
}

// Close stops the server. It is safe to call more than once.
func (s *OAuthServer) Close() { s.closeOnce.Do(s.ts.Close) }

// AuthURL returns the authorization endpoint.
func (s *OAuthServer) AuthURL() string { return s.URL + OAuthAuthPath }

// TokenURL returns the token endpoint.
func (s *OAuthServer) TokenURL() string { return s.URL + OAuthTokenPath }

// UserInfoURL returns the userinfo endpoint.
func (s *OAuthServer) UserInfoURL() string { return s.URL + OAuthUserInfoPath }

// MetadataHost returns host:port for GCE_METADATA_HOST.
func (s *OAuthServer) MetadataHost() string { return strings.TrimPrefix(s.URL, "http://") }

// AddRefreshToken makes rt a valid refresh token, as if it had been
// issued by an earlier sign-in (say, Gemini CLI's).
func (s *OAuthServer) AddRefreshToken(rt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh[rt] = true
}

// Revoke invalidates refresh token rt: refreshing with it then fails with
// invalid_grant, as after the user removes the app's access.
func (s *OAuthServer) Revoke(rt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh[rt] = false
}

// SetExpiresIn sets the lifetime, in seconds, of access tokens issued from
// now on (default 3599).
func (s *OAuthServer) SetExpiresIn(secs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiresIn = secs
}

// SetEmail sets the account the userinfo endpoint reports.
func (s *OAuthServer) SetEmail(email string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.email = email
}

// DenyNext makes the next authorization answer with error code errCode
// (e.g. "access_denied"), as when the user refuses consent.
func (s *OAuthServer) DenyNext(errCode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deny = errCode
}

// Requests returns every request received so far, oldest first.
func (s *OAuthServer) Requests() []*OAuthRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*OAuthRequest(nil), s.requests...)
}

// Grants counts the token requests of grantType ("authorization_code",
// "refresh_token") received so far.
func (s *OAuthServer) Grants(grantType string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Path == OAuthTokenPath && r.Form.Get("grant_type") == grantType {
			n++
		}
	}
	return n
}

// Issued reports whether access token tok was issued by this server.
func (s *OAuthServer) Issued(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.access[tok]
}

// ServeHTTP implements http.Handler.
func (s *OAuthServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	s.mu.Lock()
	s.requests = append(s.requests, &OAuthRequest{Method: r.Method, Path: r.URL.Path, Form: r.Form, Header: r.Header.Clone()})
	s.mu.Unlock()
	switch r.URL.Path {
	case OAuthAuthPath:
		s.authorize(w, r)
	case OAuthTokenPath:
		s.token(w, r)
	case OAuthUserInfoPath:
		s.userInfo(w, r)
	case MetadataTokenPath:
		s.metadataToken(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *OAuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.Form
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Scheme == "" || q.Get("response_type") != "code" || q.Get("client_id") == "" {
		http.Error(w, "Error 400: invalid_request", http.StatusBadRequest)
		return
	}
	back := redirect.Query()
	back.Set("state", q.Get("state"))
	s.mu.Lock()
	if s.deny != "" {
		back.Set("error", s.deny)
		s.deny = ""
	} else {
		s.seq++
		code := fmt.Sprintf("4/fake-code-%d", s.seq)
		s.codes[code] = authGrant{
			redirectURI: q.Get("redirect_uri"),
			challenge:   q.Get("code_challenge"),
			method:      q.Get("code_challenge_method"),
			scope:       q.Get("scope"),
		}
		back.Set("code", code)
		back.Set("scope", q.Get("scope"))
	}
	s.mu.Unlock()
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (s *OAuthServer) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		tokenError(w, http.StatusMethodNotAllowed, "invalid_request", "POST required")
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if (s.ClientID != "" && id != s.ClientID) || (s.ClientSecret != "" && secret != s.ClientSecret) {
		tokenError(w, http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := r.PostForm.Get("code")
		g, ok := s.codes[code]
		delete(s.codes, code) // codes are single-use
		switch {
		case !ok:
			tokenError(w, http.StatusBadRequest, "invalid_grant", "Malformed auth code.")
		case r.PostForm.Get("redirect_uri") != g.redirectURI:
			tokenError(w, http.StatusBadRequest, "redirect_uri_mismatch", "Bad Request")
		case g.challenge != "" && r.PostForm.Get("code_verifier") == "":
			tokenError(w, http.StatusBadRequest, "invalid_grant", "Missing code verifier.")
		case g.challenge != "" && !pkceMatches(g.method, g.challenge, r.PostForm.Get("code_verifier")):
			tokenError(w, http.StatusBadRequest, "invalid_grant", "Invalid code verifier.")
		default:
			s.seq++
			rt := fmt.Sprintf("1//fake-refresh-%d", s.seq)
			s.refresh[rt] = true
			s.writeToken(w, rt, g.scope)
		}
	case "refresh_token":
		if !s.refresh[r.PostForm.Get("refresh_token")] {
			tokenError(w, http.StatusBadRequest, "invalid_grant", revokedMessage)
			return
		}
		s.writeToken(w, "", "")
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		// A service account's signed assertion; the fake trusts any.
		if r.PostForm.Get("assertion") == "" {
			tokenError(w, http.StatusBadRequest, "invalid_grant", "Invalid JWT Signature.")
			return
		}
		s.writeToken(w, "", "")
	default:
		tokenError(w, http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type"))
	}
}

// writeToken issues an access token; s.mu is held. Fields come in the
// order Google sends them, which is the order Gemini CLI caches them in.
func (s *OAuthServer) writeToken(w http.ResponseWriter, refresh, scope string) {
	s.seq++
	at := fmt.Sprintf("ya29.fake-access-%d", s.seq)
	s.access[at] = true
	if scope == "" {
		scope = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile openid"
	}
	body := fmt.Sprintf(`{"access_token":%q,"expires_in":%d,`, at, s.expiresIn)
	if refresh != "" {
		body += fmt.Sprintf(`"refresh_token":%q,`, refresh)
	}
	body += fmt.Sprintf(`"scope":%q,"token_type":"Bearer","id_token":%q}`, scope, s.idToken())
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write([]byte(body))
}

// idToken returns an unsigned JWT with the claims clients read (service
// account token sources decode it for the expiry); s.mu is held.
func (s *OAuthServer) idToken() string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now().Unix()
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." +
		enc(map[string]any{"iss": "https://accounts.google.com", "sub": "1234567890", "email": s.email, "iat": now, "exp": now + int64(s.expiresIn)}) +
		".ZmFrZS1zaWduYXR1cmU"
}

func (s *OAuthServer) userInfo(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	valid, email := s.access[tok], s.email
	s.mu.Unlock()
	if !ok || !valid {
		writeError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials.", nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": "1234567890", "email": email, "verified_email": true})
}

func (s *OAuthServer) metadataToken(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Metadata-Flavor") != "Google" {
		http.Error(w, "Missing Metadata-Flavor:Google header.", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	s.seq++
	at := fmt.Sprintf("ya29.fake-metadata-%d", s.seq)
	s.access[at] = true
	exp := s.expiresIn
	s.mu.Unlock()
	w.Header().Set("Metadata-Flavor", "Google")
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "expires_in": exp, "token_type": "Bearer"})
}

func pkceMatches(method, challenge, verifier string) bool {
	if method == "plain" {
		return challenge == verifier
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:]) == challenge
}

// tokenError writes an RFC 6749 §5.2 error, as Google's token endpoint
// does.
func tokenError(w http.ResponseWriter, code int, errCode, desc string) {
	b, _ := json.Marshal(map[string]string{"error": errCode, "error_description": desc})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
