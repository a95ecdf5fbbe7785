package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/castor-dev/castor/model"
)

// RefreshMargin is how long before its expiry an access token is
// refreshed; google-auth-library (and so Gemini CLI) uses five minutes, so
// a token never expires in the middle of a long streaming call.
const RefreshMargin = 5 * time.Minute

// ReauthError reports credentials that can no longer be used without a new
// sign-in: the refresh token was revoked or has expired, or there is none.
// It always reaches callers wrapped in a *model.AuthError.
type ReauthError struct {
	// Reason is the token endpoint's explanation, or Castor's.
	Reason string
}

// Error implements error.
func (e *ReauthError) Error() string {
	return "Google sign-in has expired or was revoked (" + e.Reason + "): sign in again with `castor auth login`"
}

func reauth(reason string) error {
	return &model.AuthError{Err: &ReauthError{Reason: reason}}
}

// tokenClient sends token requests when the caller gives no client. The
// timeout keeps a stalled token endpoint from hanging a run: token
// requests are small and Google answers them in well under a second.
var tokenClient = &http.Client{Timeout: time.Minute}

// SourceOptions configures NewSource.
type SourceOptions struct {
	// Endpoints is the OAuth client and token endpoint used to refresh.
	Endpoints Endpoints
	// Store, when set, receives refreshed credentials, and is read before
	// refreshing in case another Castor process already did.
	Store *Store
	// HTTPClient sends refresh requests; nil means a client with a one
	// minute timeout.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now. Tests move it forward to
	// expire a token.
	Now func() time.Time
}

// Source is an oauth2.TokenSource over cached user credentials. It hands
// out the cached access token while it is fresh and refreshes it silently
// otherwise, writing the result back to the Store. It is safe for
// concurrent use.
type Source struct {
	opts SourceOptions
	cfg  *oauth2.Config

	mu    sync.Mutex
	creds *Credentials
	// rejected is the access token a server last refused; the shared file
	// may still hold it, and it must not be adopted from there again.
	rejected string
}

// NewSource returns a Source starting from creds.
func NewSource(creds *Credentials, opts SourceOptions) *Source {
	if opts.HTTPClient == nil {
		opts.HTTPClient = tokenClient
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := *creds
	return &Source{opts: opts, cfg: opts.Endpoints.Config(""), creds: &c}
}

// Credentials returns a copy of the current credentials.
func (s *Source) Credentials() *Credentials {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *s.creds
	return &c
}

// Token implements oauth2.TokenSource.
func (s *Source) Token() (*oauth2.Token, error) { return s.TokenContext(context.Background()) }

// TokenContext is Token with a context for the refresh request.
func (s *Source) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fresh(s.creds) {
		return s.creds.Token(), nil
	}
	if s.opts.Store != nil {
		// Concurrent Castor runs share the file; if one refreshed (or the
		// user signed in again) since we read it, use that rather than
		// spend a refresh.
		if c, err := s.opts.Store.Load(); err == nil && !c.IsADC() && s.fresh(c) && c.AccessToken != s.rejected && (c.ClientID == "" || c.ClientID == s.cfg.ClientID) {
			s.creds = c
			return c.Token(), nil
		}
	}
	if s.creds.RefreshToken == "" {
		return nil, reauth("the access token expired and there is no refresh token")
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.opts.HTTPClient)
	tok, err := s.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: s.creds.RefreshToken}).Token()
	if err != nil {
		return nil, refreshError(err)
	}
	s.creds = s.creds.updated(tok, s.opts.Now())
	if s.opts.Store != nil {
		// A failed write costs only a refresh next run; the token in hand
		// is good, so the call goes on.
		_ = s.opts.Store.Save(s.creds)
	}
	return s.creds.Token(), nil
}

// Invalidate forgets access token tok (if it is still the current one)
// after the server rejected it, so the next Token refreshes.
func (s *Source) Invalidate(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.creds.AccessToken == tok {
		s.creds.AccessToken = ""
	}
	s.rejected = tok
}

func (s *Source) fresh(c *Credentials) bool {
	if c.AccessToken == "" {
		return false
	}
	return c.Expiry.IsZero() || s.opts.Now().Add(RefreshMargin).Before(c.Expiry)
}

// refreshError classifies a failed refresh: a rejected grant needs a new
// sign-in; a server failure is an APIError, so the retry layer tries
// again; anything else (network) passes through.
func refreshError(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return fmt.Errorf("refreshing Google credentials: %w", err)
	}
	switch re.ErrorCode {
	case "invalid_grant", "unauthorized_client", "invalid_client":
		reason := re.ErrorCode
		if re.ErrorDescription != "" {
			reason += ": " + re.ErrorDescription
		}
		return reauth(reason)
	}
	if re.Response != nil {
		status := re.Response.StatusCode
		if status == http.StatusUnauthorized {
			return reauth(fmt.Sprintf("token endpoint answered %d", status))
		}
		return fmt.Errorf("refreshing Google credentials: %w", model.NewAPIError(status, re.Response.Header, re.Body))
	}
	return fmt.Errorf("refreshing Google credentials: %w", err)
}

// contextTokenSource is a token source that can honour a request's
// context; Source is one.
type contextTokenSource interface {
	TokenContext(ctx context.Context) (*oauth2.Token, error)
}

// invalidator is a token source that can drop a rejected token.
type invalidator interface {
	Invalidate(tok string)
}

// Transport is an http.RoundTripper that authorizes each request with a
// bearer token from Source. When the server answers 401 it drops the
// token, refreshes, and sends the request once more, so a token revoked
// or expired early (password change, clock skew) costs the user nothing.
type Transport struct {
	Source oauth2.TokenSource
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
}

func (t *Transport) token(ctx context.Context) (*oauth2.Token, error) {
	if cs, ok := t.Source.(contextTokenSource); ok {
		return cs.TokenContext(ctx)
	}
	return t.Source.Token()
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	closeBody := func() {
		if req.Body != nil {
			req.Body.Close()
		}
	}
	tok, err := t.token(req.Context())
	if err != nil {
		closeBody()
		return nil, err
	}
	r := req.Clone(req.Context())
	tok.SetAuthHeader(r)
	resp, err := t.base().RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	inv, ok := t.Source.(invalidator)
	if !ok || (req.Body != nil && req.GetBody == nil) {
		return resp, nil
	}
	inv.Invalidate(tok.AccessToken)
	fresh, err := t.token(req.Context())
	if err != nil {
		// The refresh failure (say, a revoked grant) says more than the
		// 401 does.
		resp.Body.Close()
		return nil, err
	}
	if fresh.AccessToken == tok.AccessToken {
		return resp, nil
	}
	r2 := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		r2.Body = body
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	fresh.SetAuthHeader(r2)
	return t.base().RoundTrip(r2)
}
