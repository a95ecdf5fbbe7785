package oauth

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func fakeEndpoints(o *fakegemini.OAuthServer) Endpoints {
	return Endpoints{ClientID: "castor-test-client", ClientSecret: "castor-test-secret", AuthURL: o.AuthURL(), TokenURL: o.TokenURL(), UserInfoURL: o.UserInfoURL()}
}

func startOAuth(t *testing.T) *fakegemini.OAuthServer {
	o := fakegemini.StartOAuth(t)
	o.ClientID, o.ClientSecret = "castor-test-client", "castor-test-secret"
	return o
}

func TestSourceRefresh(t *testing.T) {
	tests := []struct {
		name        string
		creds       Credentials
		advance     time.Duration
		revoke      bool
		wantRefresh bool
		wantErr     string
	}{
		{name: "fresh token used as is", creds: Credentials{AccessToken: "a", RefreshToken: "rt", Expiry: time.Now().Add(time.Hour)}},
		{name: "no expiry used as is", creds: Credentials{AccessToken: "a", RefreshToken: "rt"}},
		{name: "expired token refreshed", creds: Credentials{AccessToken: "a", RefreshToken: "rt", Expiry: time.Now().Add(-time.Hour)}, wantRefresh: true},
		{name: "token about to expire refreshed", creds: Credentials{AccessToken: "a", RefreshToken: "rt", Expiry: time.Now().Add(RefreshMargin / 2)}, wantRefresh: true},
		{name: "expires mid-session", creds: Credentials{AccessToken: "a", RefreshToken: "rt", Expiry: time.Now().Add(time.Hour)}, advance: 2 * time.Hour, wantRefresh: true},
		{name: "no access token", creds: Credentials{RefreshToken: "rt"}, wantRefresh: true},
		{name: "revoked", creds: Credentials{RefreshToken: "rt"}, revoke: true, wantErr: "invalid_grant: Token has been expired or revoked."},
		{name: "no refresh token", creds: Credentials{AccessToken: "a", Expiry: time.Now().Add(-time.Hour)}, wantErr: "no refresh token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := startOAuth(t)
			o.AddRefreshToken("rt")
			if tt.revoke {
				o.Revoke("rt")
			}
			store := &Store{Dir: t.TempDir()}
			clk := newClock()
			clk.Advance(tt.advance)
			src := NewSource(&tt.creds, SourceOptions{Endpoints: fakeEndpoints(o), Store: store, Now: clk.Now})
			tok, err := src.Token()
			if tt.wantErr != "" {
				var ae *model.AuthError
				var re *ReauthError
				if !errors.As(err, &ae) || !errors.As(err, &re) {
					t.Fatalf("err = %#v, want *model.AuthError wrapping *ReauthError", err)
				}
				if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "sign in again with `castor auth login`") {
					t.Errorf("err = %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			refreshed := o.Grants("refresh_token") == 1
			if refreshed != tt.wantRefresh {
				t.Fatalf("refreshed = %v, want %v", refreshed, tt.wantRefresh)
			}
			if !tt.wantRefresh {
				if tok.AccessToken != "a" {
					t.Errorf("token = %q", tok.AccessToken)
				}
				return
			}
			if !o.Issued(tok.AccessToken) || tok.RefreshToken != "rt" {
				t.Errorf("token = %+v", tok)
			}
			saved, err := store.Load()
			if err != nil {
				t.Fatal(err)
			}
			if saved.AccessToken != tok.AccessToken || saved.RefreshToken != "rt" || saved.IDToken == "" || saved.Scope == "" || saved.Expiry.IsZero() {
				t.Errorf("saved = %+v", saved)
			}
			// The next call reuses the refreshed token.
			if tok2, err := src.Token(); err != nil || tok2.AccessToken != tok.AccessToken || o.Grants("refresh_token") != 1 {
				t.Errorf("second token %v %v, refreshes %d", tok2, err, o.Grants("refresh_token"))
			}
		})
	}
}

// Concurrent Castor runs share castor_oauth_creds.json: a token another
// run refreshed is adopted instead of refreshing again, unless it belongs
// to another OAuth client (the user signed in again with a new one).
func TestSourceAdoptsTokenRefreshedElsewhere(t *testing.T) {
	for _, tt := range []struct {
		name, client, want string
		refreshes          int
	}{
		{name: "same client", client: "castor-test-client", want: "from-another-run"},
		{name: "client not recorded", want: "from-another-run"},
		{name: "another client", client: "other", refreshes: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := startOAuth(t)
			o.AddRefreshToken("rt")
			store := &Store{Dir: t.TempDir()}
			src := NewSource(&Credentials{AccessToken: "old", RefreshToken: "rt", Expiry: time.Now().Add(-time.Minute)}, SourceOptions{Endpoints: fakeEndpoints(o), Store: store})
			if err := store.Save(&Credentials{AccessToken: "from-another-run", RefreshToken: "rt", ClientID: tt.client, Expiry: time.Now().Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			tok, err := src.Token()
			if err != nil || (tt.want != "" && tok.AccessToken != tt.want) || (tt.want == "" && !o.Issued(tok.AccessToken)) {
				t.Fatalf("token = %v, %v", tok, err)
			}
			if n := o.Grants("refresh_token"); n != tt.refreshes {
				t.Errorf("refreshed %d times", n)
			}
		})
	}
}

func TestSourceServerErrorIsRetryable(t *testing.T) {
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 503, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"error":{"code":503,"message":"backend","status":"UNAVAILABLE"}}`)), Request: r}, nil
	})
	src := NewSource(&Credentials{RefreshToken: "rt"}, SourceOptions{Endpoints: DefaultEndpoints(), HTTPClient: &http.Client{Transport: rt}})
	_, err := src.Token()
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 || !model.IsRetryable(err) {
		t.Fatalf("err = %v", err)
	}
}

// A 401 from the API drops the token, refreshes and resends the request
// with its body; the caller sees only the successful answer.
func TestTransportRetriesAfter401(t *testing.T) {
	o := startOAuth(t)
	o.AddRefreshToken("rt")
	api := fakegemini.Start(t,
		fakegemini.Error(http.StatusUnauthorized, "Request had invalid authentication credentials.").For(fakegemini.RPCLoadCodeAssist),
		fakegemini.JSON(`{"currentTier":{"id":"free-tier"}}`).For(fakegemini.RPCLoadCodeAssist),
	)
	// The shared file still holds the rejected token; it must not be
	// taken back from there.
	creds := &Credentials{AccessToken: "revoked-early", RefreshToken: "rt", Expiry: time.Now().Add(time.Hour)}
	store := &Store{Dir: t.TempDir()}
	if err := store.Save(creds); err != nil {
		t.Fatal(err)
	}
	src := NewSource(creds, SourceOptions{Endpoints: fakeEndpoints(o), Store: store})
	hc := &http.Client{Transport: &Transport{Source: src}}
	body := `{"metadata":{"pluginType":"GEMINI"}}`
	resp, err := hc.Post(api.URL+"/v1internal:loadCodeAssist", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "free-tier") {
		t.Fatalf("answer %d %s", resp.StatusCode, b)
	}
	reqs := api.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer revoked-early" {
		t.Errorf("first auth = %q", got)
	}
	second := strings.TrimPrefix(reqs[1].Header.Get("Authorization"), "Bearer ")
	if !o.Issued(second) || string(reqs[1].Body) != body {
		t.Errorf("second request auth %q body %s", second, reqs[1].Body)
	}
}

func TestTransportRevokedDuring401(t *testing.T) {
	o := startOAuth(t)
	api := fakegemini.Start(t, fakegemini.Error(http.StatusUnauthorized, "revoked").For(fakegemini.RPCLoadCodeAssist))
	src := NewSource(&Credentials{AccessToken: "a", RefreshToken: "gone"}, SourceOptions{Endpoints: fakeEndpoints(o)})
	hc := &http.Client{Transport: &Transport{Source: src}}
	_, err := hc.Post(api.URL+"/v1internal:loadCodeAssist", "application/json", strings.NewReader("{}"))
	var ae *model.AuthError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "castor auth login") {
		t.Fatalf("err = %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzRefreshResponse feeds arbitrary token endpoint answers to a refresh:
// it must fail cleanly or yield a usable token, and never write a
// credentials file that cannot be read back.
func FuzzRefreshResponse(f *testing.F) {
	f.Add(200, []byte(`{"access_token":"ya29.x","expires_in":3599,"scope":"s","token_type":"Bearer","id_token":"i"}`))
	f.Add(200, []byte(`{"access_token":"ya29.x","expires_in":"3599"}`))
	f.Add(200, []byte(`access_token=x&expires_in=10`))
	f.Add(400, []byte(`{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`))
	f.Add(500, []byte(`<html>oops</html>`))
	f.Add(200, []byte(`{"access_token":""}`))
	f.Add(200, []byte(`{"access_token":"x","expires_in":1e308}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			return
		}
		ctype := "application/json"
		if bytes.HasPrefix(body, []byte("access_token=")) {
			ctype = "application/x-www-form-urlencoded"
		}
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}}, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})
		store := &Store{Dir: t.TempDir()}
		src := NewSource(&Credentials{RefreshToken: "rt"}, SourceOptions{Endpoints: DefaultEndpoints(), Store: store, HTTPClient: &http.Client{Transport: rt}})
		tok, err := src.TokenContext(context.Background())
		if err != nil {
			return
		}
		if tok.AccessToken == "" || tok.RefreshToken != "rt" {
			t.Fatalf("token %+v", tok)
		}
		if _, err := store.Load(); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("saved file unreadable: %v", err)
		}
	})
}
