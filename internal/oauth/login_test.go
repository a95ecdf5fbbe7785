package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
)

// browser plays the user's browser: it follows redirects on loopback and
// reports the page it lands on ("<status> <body>"), or the address of a
// redirect leaving the machine.
type browser struct {
	client *http.Client
	done   chan string // final Location, or "error: ..."
}

func newBrowser() *browser {
	return &browser{
		client: &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Hostname() != "127.0.0.1" {
				return http.ErrUseLastResponse
			}
			return nil
		}},
		done: make(chan string, 4),
	}
}

func (b *browser) visit(u string) {
	resp, err := b.client.Get(u)
	if err != nil {
		b.done <- "error: " + err.Error()
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "" {
		b.done <- loc
		return
	}
	b.done <- fmt.Sprintf("%d %s", resp.StatusCode, body)
}

// open is LoginOptions.OpenBrowser.
func (b *browser) open(u string) error {
	go b.visit(u)
	return nil
}

func (b *browser) landing(t *testing.T) string {
	t.Helper()
	select {
	case l := <-b.done:
		return l
	case <-time.After(time.Minute):
		t.Fatal("the browser never finished")
		return ""
	}
}

func TestLoginWithBrowser(t *testing.T) {
	o := startOAuth(t)
	br := newBrowser()
	var out bytes.Buffer
	creds, err := Login(context.Background(), LoginOptions{Endpoints: fakeEndpoints(o), OpenBrowser: br.open, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if got := br.landing(t); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "Castor is signed in") {
		t.Errorf("browser landed on %q", got)
	}
	if !o.Issued(creds.AccessToken) || creds.RefreshToken == "" || creds.IDToken == "" || creds.Scope == "" || creds.Expiry.IsZero() || creds.ClientID != "castor-test-client" {
		t.Errorf("creds = %+v", creds)
	}
	var auth, token *fakegemini.OAuthRequest
	for _, r := range o.Requests() {
		switch r.Path {
		case fakegemini.OAuthAuthPath:
			auth = r
		case fakegemini.OAuthTokenPath:
			token = r
		}
	}
	if auth == nil || token == nil {
		t.Fatalf("requests %+v", o.Requests())
	}
	redirect := auth.Form.Get("redirect_uri")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/oauth2callback$`).MatchString(redirect) {
		t.Errorf("redirect_uri = %q", redirect)
	}
	for k, want := range map[string]string{
		"client_id":             "castor-test-client",
		"access_type":           "offline",
		"response_type":         "code",
		"code_challenge_method": "S256",
		"scope":                 strings.Join(Scopes, " "),
	} {
		if got := auth.Form.Get(k); got != want {
			t.Errorf("auth %s = %q, want %q", k, got, want)
		}
	}
	if len(auth.Form.Get("state")) != 64 || auth.Form.Get("code_challenge") == "" {
		t.Errorf("state %q challenge %q", auth.Form.Get("state"), auth.Form.Get("code_challenge"))
	}
	if token.Form.Get("code_verifier") == "" || token.Form.Get("redirect_uri") != redirect || token.Form.Get("client_secret") != "castor-test-secret" {
		t.Errorf("token request %v", token.Form)
	}
	if !strings.Contains(out.String(), "Otherwise navigate to:") || !strings.Contains(out.String(), o.AuthURL()) {
		t.Errorf("output = %q", out.String())
	}
	email, err := FetchEmail(context.Background(), nil, o.UserInfoURL(), creds.AccessToken)
	if err != nil || email != fakegemini.DefaultEmail {
		t.Errorf("email = %q, %v", email, err)
	}
	if _, err := FetchEmail(context.Background(), nil, o.UserInfoURL(), "bogus"); err == nil {
		t.Error("userinfo accepted a bogus token")
	}
}

func TestLoginWithBrowserFailures(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(o *fakegemini.OAuthServer, br *browser) func(string) error
		cancel      bool
		timeout     time.Duration
		wantErr     string
		wantLanding string
	}{
		{
			name: "consent refused",
			setup: func(o *fakegemini.OAuthServer, br *browser) func(string) error {
				o.DenyNext("access_denied")
				return br.open
			},
			wantErr:     "Google OAuth error: access_denied. No additional details provided",
			wantLanding: "400 ",
		},
		{
			name: "wrong client secret",
			setup: func(o *fakegemini.OAuthServer, br *browser) func(string) error {
				o.ClientSecret = "something else"
				return br.open
			},
			wantErr:     "Failed to exchange authorization code for tokens",
			wantLanding: "400 ",
		},
		{
			name:    "nobody signs in",
			setup:   func(*fakegemini.OAuthServer, *browser) func(string) error { return func(string) error { return nil } },
			timeout: time.Millisecond,
			wantErr: "Authentication timed out after 5 minutes",
		},
		{
			name:    "cancelled",
			setup:   func(*fakegemini.OAuthServer, *browser) func(string) error { return func(string) error { return nil } },
			cancel:  true,
			wantErr: "Authentication cancelled by user",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := startOAuth(t)
			br := newBrowser()
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			_, err := Login(ctx, LoginOptions{Endpoints: fakeEndpoints(o), OpenBrowser: tt.setup(o, br), Timeout: tt.timeout})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if tt.wantLanding != "" {
				if got := br.landing(t); !strings.HasPrefix(got, tt.wantLanding) || !strings.Contains(got, "Castor sign-in failed") {
					t.Errorf("browser landed on %q", got)
				}
			}
		})
	}
}

// A request to the callback with the wrong state (another tab, a forged
// link) is refused without ending the login the user is completing.
func TestLoginIgnoresForgedCallback(t *testing.T) {
	o := startOAuth(t)
	br := newBrowser()
	forged := make(chan int, 1)
	open := func(u string) error {
		go func() {
			au, _ := url.Parse(u)
			cb, _ := url.Parse(au.Query().Get("redirect_uri"))
			cb.RawQuery = url.Values{"state": {"forged"}, "code": {"stolen"}}.Encode()
			resp, err := http.Get(cb.String())
			if err != nil {
				forged <- -1
			} else {
				resp.Body.Close()
				forged <- resp.StatusCode
			}
			br.visit(u)
		}()
		return nil
	}
	creds, err := Login(context.Background(), LoginOptions{Endpoints: fakeEndpoints(o), OpenBrowser: open})
	if err != nil || creds.RefreshToken == "" {
		t.Fatalf("login = %+v, %v", creds, err)
	}
	if code := <-forged; code != http.StatusBadRequest {
		t.Errorf("forged callback answered %d", code)
	}
	if o.Grants("authorization_code") != 1 {
		t.Errorf("codes exchanged: %d", o.Grants("authorization_code"))
	}
}

// codeUser plays a user of the paste flow: each time Castor asks for the
// code it opens the URL printed above (on "another device"), and types
// back either the code Google shows or the next canned answer.
type codeUser struct {
	t       *testing.T
	w       io.Writer // Castor's input
	answers []string  // "" means the real code
	client  *http.Client

	mu  sync.Mutex
	out strings.Builder
}

var visitURL = regexp.MustCompile(`authorize the application:\n\n(\S+)\n\n[^\n]*\nEnter the address or the authorization code: $`)

func (u *codeUser) Write(p []byte) (int, error) {
	u.mu.Lock()
	u.out.Write(p)
	m := visitURL.FindStringSubmatch(u.out.String())
	var answer string
	prompt := m != nil && len(u.answers) > 0
	if prompt {
		answer, u.answers = u.answers[0], u.answers[1:]
	}
	u.mu.Unlock()
	if prompt {
		switch answer {
		case "":
			answer = u.code(m[1]).Query().Get("code")
		case "URL":
			answer = u.code(m[1]).String()
		}
		go io.WriteString(u.w, answer+"\n")
	}
	return len(p), nil
}

// code consents on "another device" and returns the address the browser
// is sent to, which it does not load: the loopback server is on this
// machine, not that device.
func (u *codeUser) code(authURL string) *url.URL {
	resp, err := u.client.Get(authURL)
	if err != nil {
		u.t.Error(err)
		return &url.URL{}
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !loopbackRedirect.MatchString(loc.Scheme+"://"+loc.Host+loc.Path) {
		u.t.Errorf("authorization redirected to %q", resp.Header.Get("Location"))
		return &url.URL{}
	}
	return loc
}

var loopbackRedirect = regexp.MustCompile(`^http://127\.0\.0\.1:\d+/oauth2callback$`)

func (u *codeUser) output() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.out.String()
}

func TestLoginWithCode(t *testing.T) {
	tests := []struct {
		name     string
		answers  []string
		closeIn  bool
		wantErr  string
		wantOut  []string
		wantCode int // authorization_code grants
	}{
		{name: "first try", answers: []string{""}, wantCode: 1},
		{name: "whole address pasted", answers: []string{"URL"}, wantCode: 1},
		{name: "address of an older attempt", answers: []string{"http://127.0.0.1:1/oauth2callback?code=4/x&state=old", ""}, wantCode: 1, wantOut: []string{"state mismatch", "Retrying..."}},
		{name: "wrong code then right", answers: []string{"4/not-a-code", ""}, wantCode: 2, wantOut: []string{"Failed to authenticate with authorization code:", "Retrying..."}},
		{name: "two wrong codes", answers: []string{"x", "y"}, wantErr: "Failed to authenticate with user code.", wantCode: 2},
		{name: "empty code", answers: []string{" ", ""}, wantCode: 1, wantOut: []string{"Authorization code is required."}},
		{name: "end of input", closeIn: true, wantErr: "Failed to authenticate with user code."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := startOAuth(t)
			inR, inW := io.Pipe()
			defer inW.Close()
			user := &codeUser{t: t, w: inW, answers: tt.answers, client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
			if tt.closeIn {
				inW.Close()
			}
			creds, err := Login(context.Background(), LoginOptions{Endpoints: fakeEndpoints(o), NoBrowser: true, In: inR, Out: user})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || !o.Issued(creds.AccessToken) || creds.RefreshToken == "" {
				t.Fatalf("login = %+v, %v\n%s", creds, err, user.output())
			}
			if got := o.Grants("authorization_code"); got != tt.wantCode {
				t.Errorf("%d code exchanges, want %d", got, tt.wantCode)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(user.output(), w) {
					t.Errorf("output lacks %q:\n%s", w, user.output())
				}
			}
			for _, r := range o.Requests() {
				if r.Path == fakegemini.OAuthAuthPath && (!loopbackRedirect.MatchString(r.Form.Get("redirect_uri")) || r.Form.Get("code_challenge_method") != "S256") {
					t.Errorf("authorization request %v", r.Form)
				}
			}
		})
	}
}

func TestLoginOptionsFromEnv(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    LoginOptions
		wantErr string
	}{
		{env: map[string]string{"DISPLAY": ":0"}, want: LoginOptions{}},
		{env: map[string]string{"DISPLAY": ":0", "NO_BROWSER": "true", "OAUTH_CALLBACK_PORT": "8085", "OAUTH_CALLBACK_HOST": "0.0.0.0"}, want: LoginOptions{NoBrowser: true, CallbackPort: 8085, CallbackHost: "0.0.0.0"}},
		{env: map[string]string{"OAUTH_CALLBACK_PORT": "99999"}, wantErr: `Invalid value for OAUTH_CALLBACK_PORT: "99999"`},
		{env: map[string]string{"OAUTH_CALLBACK_PORT": "http"}, wantErr: `Invalid value for OAUTH_CALLBACK_PORT: "http"`},
	}
	for _, tt := range tests {
		got, err := LoginOptionsFromEnv(envFunc(tt.env), nil)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%v: err = %v", tt.env, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.NoBrowser != tt.want.NoBrowser || got.CallbackPort != tt.want.CallbackPort || got.CallbackHost != tt.want.CallbackHost {
			t.Errorf("%v: got %+v", tt.env, got)
		}
	}
}

func TestLoginNeedsInputForCode(t *testing.T) {
	_, err := Login(context.Background(), LoginOptions{Endpoints: Endpoints{ClientID: "c"}, NoBrowser: true})
	if err == nil || !strings.Contains(err.Error(), "Manual authorization is required") {
		t.Errorf("err = %v", err)
	}
}

// Without the user's own OAuth client there is nothing to sign in with:
// Login fails at once, as an authentication error that says why and what
// to do, and never contacts Google.
func TestLoginNeedsOwnClient(t *testing.T) {
	opened := false
	_, err := Login(context.Background(), LoginOptions{Endpoints: DefaultEndpoints(), OpenBrowser: func(string) error { opened = true; return nil }})
	var ae *model.AuthError
	if !errors.As(err, &ae) || !errors.Is(err, ErrNoLoginClient) || opened {
		t.Fatalf("err = %v, browser opened %v", err, opened)
	}
	for _, want := range []string{"Google's terms", "CASTOR_OAUTH_CLIENT_ID", "GEMINI_API_KEY", "gcloud auth application-default login"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %s", want, err)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("message spans lines: %q", err)
	}
}

// A browser on this machine completes the paste flow by itself: the
// loopback server takes the redirect and nobody has to type anything.
func TestLoginWithCodeLocalBrowser(t *testing.T) {
	o := startOAuth(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	var mu sync.Mutex
	var out strings.Builder
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		out.Write(p)
		if m := visitURL.FindStringSubmatch(out.String()); m != nil {
			go newBrowser().visit(m[1])
		}
		return len(p), nil
	})
	creds, err := Login(context.Background(), LoginOptions{Endpoints: fakeEndpoints(o), NoBrowser: true, In: inR, Out: w})
	if err != nil || !o.Issued(creds.AccessToken) {
		t.Fatalf("login = %+v, %v", creds, err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// What the user pastes is outside input: a bare code, the redirected
// address, or anything at all. An address is only believed when its
// state is this sign-in's.
func FuzzPastedCode(f *testing.F) {
	a := authorization{state: "s1"}
	f.Add("4/abc")
	f.Add("http://127.0.0.1:8085/oauth2callback?code=4/abc&state=s1")
	f.Add("http://127.0.0.1:8085/oauth2callback?code=4/abc&state=other")
	f.Add("http://127.0.0.1:8085/oauth2callback?error=access_denied&state=s1")
	f.Add("%zz?code=")
	f.Fuzz(func(t *testing.T, in string) {
		code, err := pastedCode(in, a)
		if err != nil {
			return
		}
		if strings.Contains(in, "code=") || strings.Contains(in, "error=") {
			u, perr := url.Parse(strings.TrimSpace(in))
			if perr != nil || u.Query().Get("state") != a.state || u.Query().Get("code") != code {
				t.Fatalf("%q accepted as code %q", in, code)
			}
		} else if code != strings.TrimSpace(in) {
			t.Fatalf("%q gave code %q", in, code)
		}
	})
}

func TestPastedCode(t *testing.T) {
	a := authorization{state: "s1"}
	tests := []struct{ in, want, wantErr string }{
		{in: " 4/abc \n", want: "4/abc"},
		{in: "http://127.0.0.1:8085/oauth2callback?code=4%2Fabc&state=s1&scope=x", want: "4/abc"},
		{in: "http://127.0.0.1:8085/oauth2callback?code=4/abc&state=old", wantErr: "state mismatch"},
		{in: "http://127.0.0.1:8085/oauth2callback?error=access_denied&state=s1", wantErr: "Google OAuth error: access_denied"},
		{in: "http://127.0.0.1:8085/oauth2callback?state=s1&code=", want: ""},
	}
	for _, tt := range tests {
		got, err := pastedCode(tt.in, a)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestLoginRefusesWebPages: the loopback callback refuses what a web page
// can send it, even with the right state: a request naming another Host
// (DNS rebinding) and one from another Origin; the user's own redirect
// still completes the login.
func TestLoginRefusesWebPages(t *testing.T) {
	o := startOAuth(t)
	br := newBrowser()
	got := make(chan []int, 1)
	open := func(u string) error {
		go func() {
			au, _ := url.Parse(u)
			cb, _ := url.Parse(au.Query().Get("redirect_uri"))
			cb.RawQuery = url.Values{"state": {au.Query().Get("state")}, "code": {"stolen"}}.Encode()
			var codes []int
			for _, h := range []map[string]string{{"Host": "evil.example"}, {"Origin": "https://evil.example"}} {
				req, _ := http.NewRequest("GET", cb.String(), nil)
				req.Host = h["Host"]
				if h["Origin"] != "" {
					req.Header.Set("Origin", h["Origin"])
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					codes = append(codes, -1)
					continue
				}
				resp.Body.Close()
				codes = append(codes, resp.StatusCode)
			}
			got <- codes
			br.visit(u)
		}()
		return nil
	}
	creds, err := Login(context.Background(), LoginOptions{Endpoints: fakeEndpoints(o), OpenBrowser: open})
	if err != nil || creds.RefreshToken == "" {
		t.Fatalf("login = %+v, %v", creds, err)
	}
	if codes := <-got; len(codes) != 2 || codes[0] != http.StatusMisdirectedRequest || codes[1] != http.StatusForbidden {
		t.Errorf("web pages' callbacks answered %v, want [421 403]", codes)
	}
	if o.Grants("authorization_code") != 1 {
		t.Errorf("codes exchanged: %d", o.Grants("authorization_code"))
	}
}
