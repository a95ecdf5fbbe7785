package fakegemini_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

func postForm(t *testing.T, u string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
	return resp.StatusCode, body
}

// authorize runs the authorization endpoint and returns the code it
// redirected with.
func authorize(t *testing.T, o *fakegemini.OAuthServer, q url.Values) url.Values {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(o.AuthURL() + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc.Query()
}

func TestOAuthServerTokenEndpoint(t *testing.T) {
	verifier := strings.Repeat("v", 43)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	tests := []struct {
		name      string
		form      func(code string) url.Values
		wantCode  int
		wantError string
	}{
		{
			name: "code with verifier",
			form: func(code string) url.Values {
				return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:1/oauth2callback"}, "client_id": {"id"}, "client_secret": {"secret"}}
			},
			wantCode: 200,
		},
		{
			name: "missing verifier",
			form: func(code string) url.Values {
				return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:1/oauth2callback"}, "client_id": {"id"}, "client_secret": {"secret"}}
			},
			wantCode: 400, wantError: "invalid_grant",
		},
		{
			name: "wrong verifier",
			form: func(code string) url.Values {
				return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {"nope"}, "redirect_uri": {"http://127.0.0.1:1/oauth2callback"}, "client_id": {"id"}, "client_secret": {"secret"}}
			},
			wantCode: 400, wantError: "invalid_grant",
		},
		{
			name: "other redirect",
			form: func(code string) url.Values {
				return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:2/oauth2callback"}, "client_id": {"id"}, "client_secret": {"secret"}}
			},
			wantCode: 400, wantError: "redirect_uri_mismatch",
		},
		{
			name: "wrong client",
			form: func(code string) url.Values {
				return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {"other"}, "client_secret": {"secret"}}
			},
			wantCode: 401, wantError: "invalid_client",
		},
		{
			name: "unknown grant",
			form: func(string) url.Values {
				return url.Values{"grant_type": {"password"}, "client_id": {"id"}, "client_secret": {"secret"}}
			},
			wantCode: 400, wantError: "unsupported_grant_type",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fakegemini.StartOAuth(t)
			o.ClientID, o.ClientSecret = "id", "secret"
			back := authorize(t, o, url.Values{"client_id": {"id"}, "response_type": {"code"}, "redirect_uri": {"http://127.0.0.1:1/oauth2callback"}, "state": {"s1"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}})
			if back.Get("state") != "s1" || back.Get("code") == "" {
				t.Fatalf("redirect query %v", back)
			}
			code, body := postForm(t, o.TokenURL(), tt.form(back.Get("code")))
			if code != tt.wantCode || (tt.wantError != "" && body["error"] != tt.wantError) {
				t.Fatalf("%d %v", code, body)
			}
			if tt.wantError != "" {
				return
			}
			rt, _ := body["refresh_token"].(string)
			at, _ := body["access_token"].(string)
			if rt == "" || !o.Issued(at) || body["expires_in"] != float64(3599) || body["token_type"] != "Bearer" {
				t.Fatalf("token %v", body)
			}
			// The code is single-use; the refresh token works until revoked.
			if code, body := postForm(t, o.TokenURL(), tt.form(back.Get("code"))); code != 400 || body["error"] != "invalid_grant" {
				t.Errorf("code reuse: %d %v", code, body)
			}
			refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"id"}, "client_secret": {"secret"}}
			if code, body := postForm(t, o.TokenURL(), refresh); code != 200 || body["refresh_token"] != nil {
				t.Errorf("refresh: %d %v", code, body)
			}
			o.Revoke(rt)
			if code, body := postForm(t, o.TokenURL(), refresh); code != 400 || body["error_description"] != "Token has been expired or revoked." {
				t.Errorf("revoked refresh: %d %v", code, body)
			}
			if o.Grants("refresh_token") != 2 || o.Grants("authorization_code") != 2 {
				t.Errorf("grants %d %d", o.Grants("refresh_token"), o.Grants("authorization_code"))
			}
		})
	}
}

func TestOAuthServerDenyAndMetadata(t *testing.T) {
	o := fakegemini.StartOAuth(t)
	o.DenyNext("access_denied")
	back := authorize(t, o, url.Values{"client_id": {"id"}, "response_type": {"code"}, "redirect_uri": {"https://codeassist.google.com/authcode"}, "state": {"s"}})
	if back.Get("error") != "access_denied" || back.Get("code") != "" {
		t.Errorf("denied redirect %v", back)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+o.MetadataHost()+fakegemini.MetadataTokenPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("metadata without flavor: %d", resp.StatusCode)
	}
	req.Header.Set("Metadata-Flavor", "Google")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || !o.Issued(tok["access_token"].(string)) || resp.Header.Get("Metadata-Flavor") != "Google" {
		t.Errorf("metadata token %v %v", tok, err)
	}
}
