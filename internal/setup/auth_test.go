package setup

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/model"
)

// signInRefreshToken is the refresh token in the credentials file that
// authFixture writes as `castor auth login` would.
const signInRefreshToken = "1//0gCastorRefreshToken"

// testClientID and testClientSecret are the fixture's own OAuth client,
// which the fake token endpoint requires.
const (
	testClientID     = "castor-test-client.apps.example.com"
	testClientSecret = "castor-test-secret"
)

// authClock is a settable clock for the token source.
type authClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *authClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *authClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// authFixture is a user with an OAuth client of their own: a home, the
// fake Code Assist service and the fake Google sign-in, wired together
// through the environment. writeSignIn saves a sign-in made with that
// client; writeGeminiCLISignIn puts Gemini CLI's own sign-in beside it,
// which must be ignored.
type authFixture struct {
	t     *testing.T
	api   *fakegemini.Server
	oauth *fakegemini.OAuthServer
	home  string
	ws    string
	env   map[string]string
	clock *authClock
}

func newAuthFixture(t *testing.T, replies ...fakegemini.Reply) *authFixture {
	t.Helper()
	f := &authFixture{
		t:     t,
		api:   fakegemini.Start(t, replies...),
		oauth: fakegemini.StartOAuth(t),
		home:  t.TempDir(),
		ws:    t.TempDir(),
		clock: &authClock{t: time.Now()},
	}
	f.oauth.ClientID, f.oauth.ClientSecret = testClientID, testClientSecret
	f.oauth.AddRefreshToken(signInRefreshToken)
	f.oauth.AddRefreshToken(geminiCLIRefreshToken)
	f.env = map[string]string{
		"GEMINI_CLI_HOME":            f.home,
		"GOOGLE_GENAI_USE_GCA":       "true",
		"CODE_ASSIST_ENDPOINT":       f.api.URL,
		"CLOUDSDK_CONFIG":            filepath.Join(f.home, "gcloud"),
		oauth.EnvClientID:            testClientID,
		oauth.EnvClientSecret:        testClientSecret,
		oauth.EnvAuthURL:             f.oauth.AuthURL(),
		oauth.EnvTokenURL:            f.oauth.TokenURL(),
		oauth.EnvUserInfoURL:         f.oauth.UserInfoURL(),
		"GEMINI_CLI_TRUST_WORKSPACE": "true",
	}
	return f
}

func (f *authFixture) getenv(k string) string { return f.env[k] }

func (f *authFixture) credsPath() string {
	return filepath.Join(f.home, ".gemini", oauth.CredsFileName)
}

// Gemini CLI's own sign-in: a valid-looking token that the fake would
// even accept, so using it would not fail by accident. Its file name is
// spelled in pieces so that no Go file names it whole.
const (
	geminiCLIAccessToken  = "ya29.gemini-cli-valid-access-token"
	geminiCLIRefreshToken = "1//gemini-cli-refresh-token"
)

func (f *authFixture) geminiCLIPath() string {
	return filepath.Join(f.home, ".gemini", "oauth"+"_creds.json")
}

// writeGeminiCLISignIn writes Gemini CLI's credentials file, valid for
// another day, and returns its content.
func (f *authFixture) writeGeminiCLISignIn() []byte {
	f.t.Helper()
	data := []byte(`{
  "access_token": "` + geminiCLIAccessToken + `",
  "refresh_token": "` + geminiCLIRefreshToken + `",
  "scope": "https://www.googleapis.com/auth/cloud-platform",
  "token_type": "Bearer",
  "expiry_date": ` + jsonNumber(f.clock.Now().Add(24*time.Hour).UnixMilli()) + `
}`)
	f.write(f.geminiCLIPath(), data)
	return data
}

// checkGeminiCLIUnused checks that nothing sent Gemini CLI's tokens and
// that its file is as written.
func (f *authFixture) checkGeminiCLIUnused(want []byte) {
	f.t.Helper()
	for _, r := range f.api.Requests() {
		if strings.Contains(r.Header.Get("Authorization"), "gemini-cli") {
			f.t.Errorf("Code Assist call with Gemini CLI's token: %s", r.Header.Get("Authorization"))
		}
	}
	for _, r := range f.oauth.Requests() {
		if strings.Contains(r.Form.Encode(), "gemini-cli") {
			f.t.Errorf("token request with Gemini CLI's sign-in: %v", r.Form)
		}
	}
	if got, err := os.ReadFile(f.geminiCLIPath()); err != nil || string(got) != string(want) {
		f.t.Errorf("Gemini CLI's file changed: %s %v", got, err)
	}
}

func (f *authFixture) write(path string, data []byte) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// writeSignIn writes castor_oauth_creds.json as `castor auth login` does
// with the fixture's client, with an access token valid for validFor
// (negative: already expired).
func (f *authFixture) writeSignIn(validFor time.Duration) []byte {
	f.t.Helper()
	data := []byte(`{
  "access_token": "ya29.a0CastorAccessToken",
  "refresh_token": "` + signInRefreshToken + `",
  "scope": "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.profile https://www.googleapis.com/auth/userinfo.email openid",
  "token_type": "Bearer",
  "id_token": "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJhY2NvdW50cy5nb29nbGUuY29tIn0.c2ln",
  "expiry_date": ` + jsonNumber(f.clock.Now().Add(validFor).UnixMilli()) + `,
  "client_id": "` + testClientID + `"
}`)
	f.write(f.credsPath(), data)
	return data
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func (f *authFixture) client(st *config.Settings) (model.Model, bool, error) {
	return newAuthClientWith(context.Background(), st, f.getenv, config.ResolveHome(envOf(f.getenv)), "9.9.9", authHooks{now: f.clock.Now, pollInterval: time.Millisecond})
}

// agent runs a headless session over m, with retries as the CLI has them.
func (f *authFixture) agent(m model.Model) *Agent {
	f.t.Helper()
	a, err := New(context.Background(), Options{
		Client:           model.WithRetry(m, model.RetryOptions{Sleep: func(context.Context, time.Duration) error { return nil }}),
		WorkDir:          f.ws,
		IgnoreSettings:   true,
		HomeDir:          f.home,
		DisableRecording: true,
		Env:              envOf(f.getenv),
	})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { a.Close() })
	return a
}

func (f *authFixture) generateRequests() []*fakegemini.Request {
	var out []*fakegemini.Request
	for _, r := range f.api.Requests() {
		if r.RPC == fakegemini.RPCStreamGenerateContent || r.RPC == fakegemini.RPCGenerateContent {
			out = append(out, r)
		}
	}
	return out
}

func bearer(r *fakegemini.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// A headless run over Code Assist with a tool call, signed in with the
// user's own OAuth client: the stale token is refreshed, the user is found
// onboarded, and every call carries the envelope fields. Gemini CLI's
// fresh sign-in beside it is never touched.
func TestCodeAssistHeadlessRunWithTools(t *testing.T) {
	f := newAuthFixture(t)
	f.api.Enqueue(
		fakegemini.Call("list_directory", map[string]any{"path": f.ws}),
		fakegemini.Text("The workspace holds ", "notes.txt."),
	)
	if err := os.WriteFile(filepath.Join(f.ws, "notes.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	signIn := f.writeSignIn(-time.Hour)
	geminiFile := f.writeGeminiCLISignIn()

	m, ok, err := f.client(&config.Settings{})
	if err != nil || !ok {
		t.Fatalf("newAuthClient = %v, %v", ok, err)
	}
	a := f.agent(m)
	res, err := a.Send(context.Background(), "What is in this folder?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The workspace holds notes.txt." {
		t.Errorf("answer %q", res.Text)
	}

	gens := f.generateRequests()
	if len(gens) != 2 {
		t.Fatalf("%d generate calls", len(gens))
	}
	for i, r := range gens {
		if !r.CodeAssist || r.Project != "fake-project" || r.SessionID != a.SessionID() || r.UserPromptID == "" || !f.oauth.Issued(bearer(r)) {
			t.Errorf("call %d: project %q session %q prompt %q token %q", i, r.Project, r.SessionID, r.UserPromptID, bearer(r))
		}
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "Castor/9.9.9/") {
			t.Errorf("User-Agent %q", ua)
		}
	}
	last := gens[1].LastContent()
	if last == nil || len(last.Parts) == 0 || last.Parts[0].FunctionResponse == nil || last.Parts[0].FunctionResponse.Name != "list_directory" {
		t.Fatalf("tool result not sent back: %+v", last)
	}
	if out, _ := json.Marshal(last.Parts[0].FunctionResponse.Response); !strings.Contains(string(out), "notes.txt") {
		t.Errorf("tool output %s", out)
	}
	if n := f.oauth.Grants("refresh_token"); n != 1 {
		t.Errorf("%d refreshes", n)
	}

	// Castor wrote the refreshed token back to its own file, owner-only.
	written, err := os.ReadFile(f.credsPath())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonKeys(t, written), jsonKeys(t, signIn); got != want {
		t.Errorf("keys %s, the sign-in wrote %s", got, want)
	}
	if !strings.Contains(string(written), signInRefreshToken) || !strings.Contains(string(written), bearer(gens[0])) {
		t.Errorf("written file %s", written)
	}
	if fi, err := os.Stat(f.credsPath()); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("credentials file %v %v", fi, err)
	}
	f.checkGeminiCLIUnused(geminiFile)
}

func jsonKeys(t *testing.T, b []byte) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' {
				depth++
			} else if v == '}' {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				keys = append(keys, v)
				var skip any
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return strings.Join(keys, ",")
}

// A token that expires between two prompts is refreshed on the way, and
// one the server rejects early (401) is replaced and the call resent: the
// user sees neither.
func TestCodeAssistTokenRefreshedMidSession(t *testing.T) {
	f := newAuthFixture(t,
		fakegemini.Text("one"),
		fakegemini.Text("two"),
		fakegemini.Error(401, "Request had invalid authentication credentials."),
		fakegemini.Text("three"),
	)
	f.writeSignIn(time.Hour)
	m, ok, err := f.client(nil)
	if err != nil || !ok {
		t.Fatalf("newAuthClient = %v, %v", ok, err)
	}
	a := f.agent(m)
	for i, want := range []string{"one", "two", "three"} {
		if i == 1 {
			f.clock.Advance(2 * time.Hour)
		}
		res, err := a.Send(context.Background(), "prompt")
		if err != nil {
			t.Fatalf("prompt %d: %v", i+1, err)
		}
		if res.Text != want {
			t.Errorf("prompt %d: %q", i+1, res.Text)
		}
	}
	gens := f.generateRequests()
	if len(gens) != 4 {
		t.Fatalf("%d generate calls", len(gens))
	}
	if got := bearer(gens[0]); got != "ya29.a0CastorAccessToken" {
		t.Errorf("first call used %q", got)
	}
	second, third := bearer(gens[1]), bearer(gens[3])
	if !f.oauth.Issued(second) || !f.oauth.Issued(third) || second == third || bearer(gens[2]) != second {
		t.Errorf("tokens %q, %q (rejected %q), %q", second, bearer(gens[2]), third, third)
	}
	if n := f.oauth.Grants("refresh_token"); n != 2 {
		t.Errorf("%d refreshes", n)
	}
}

// A refresh token revoked during a session ends the next prompt with the
// sign-in error the CLI turns into exit code 41; one revoked before the
// run fails at startup the same way.
func TestCodeAssistRevokedSignIn(t *testing.T) {
	t.Run("mid-session", func(t *testing.T) {
		f := newAuthFixture(t, fakegemini.Text("one"), fakegemini.Text("never"))
		f.writeSignIn(time.Hour)
		m, _, err := f.client(nil)
		if err != nil {
			t.Fatal(err)
		}
		a := f.agent(m)
		if _, err := a.Send(context.Background(), "prompt"); err != nil {
			t.Fatal(err)
		}
		f.oauth.Revoke(signInRefreshToken)
		f.clock.Advance(2 * time.Hour)
		_, err = a.Send(context.Background(), "prompt")
		checkSignInAgain(t, err)
		if n := len(f.generateRequests()); n != 1 {
			t.Errorf("%d generate calls", n)
		}
	})
	t.Run("at startup", func(t *testing.T) {
		f := newAuthFixture(t)
		f.writeSignIn(-time.Hour)
		f.oauth.Revoke(signInRefreshToken)
		m, ok, err := f.client(nil)
		if m != nil || ok {
			t.Errorf("client %v %v", m, ok)
		}
		checkSignInAgain(t, err)
	})
	t.Run("never signed in", func(t *testing.T) {
		f := newAuthFixture(t)
		f.writeGeminiCLISignIn()
		_, _, err := f.client(nil)
		var ae *model.AuthError
		if !errors.As(err, &ae) || !errors.Is(err, oauth.ErrNotSignedIn) {
			t.Fatalf("err = %v", err)
		}
	})
}

func checkSignInAgain(t *testing.T, err error) {
	t.Helper()
	var ae *model.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %#v, want *model.AuthError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "sign in again with `castor auth login`") || !strings.Contains(msg, "Token has been expired or revoked.") {
		t.Errorf("message %q", msg)
	}
}

// Onboarding on both tiers through the client factory: the project that
// onboarding yields is the one sent with generate calls.
func TestCodeAssistOnboardingTiers(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		replies     []fakegemini.Reply
		wantProject string
		wantOnboard string // tierId sent to onboardUser, "" for none
	}{
		{
			name: "free tier",
			replies: []fakegemini.Reply{
				fakegemini.JSON(`{"allowedTiers":[{"id":"free-tier","isDefault":true}]}`).For(fakegemini.RPCLoadCodeAssist),
				fakegemini.JSON(`{"name":"operations/o1","done":false}`).For(fakegemini.RPCOnboardUser),
				fakegemini.JSON(`{"name":"operations/o1","done":true,"response":{"cloudaicompanionProject":{"id":"managed-free-1"}}}`).For(fakegemini.RPCGetOperation),
			},
			wantProject: "managed-free-1",
			wantOnboard: "free-tier",
		},
		{
			name: "standard tier",
			env:  map[string]string{"GOOGLE_CLOUD_PROJECT": "acme-dev"},
			replies: []fakegemini.Reply{
				fakegemini.JSON(`{"allowedTiers":[{"id":"free-tier"},{"id":"standard-tier","isDefault":true}]}`).For(fakegemini.RPCLoadCodeAssist),
				fakegemini.JSON(`{"name":"operations/o2","done":true,"response":{"cloudaicompanionProject":{"id":"acme-dev"}}}`).For(fakegemini.RPCOnboardUser),
			},
			wantProject: "acme-dev",
			wantOnboard: "standard-tier",
		},
		{
			name:        "standard tier already set up",
			env:         map[string]string{"GOOGLE_CLOUD_PROJECT_ID": "acme-prod"},
			replies:     []fakegemini.Reply{fakegemini.JSON(`{"currentTier":{"id":"standard-tier"}}`).For(fakegemini.RPCLoadCodeAssist)},
			wantProject: "acme-prod",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAuthFixture(t, append(tt.replies, fakegemini.Text("hello"))...)
			for k, v := range tt.env {
				f.env[k] = v
			}
			f.writeSignIn(time.Hour)
			m, ok, err := f.client(nil)
			if err != nil || !ok {
				t.Fatalf("newAuthClient = %v, %v", ok, err)
			}
			if _, err := f.agent(m).Send(context.Background(), "hi"); err != nil {
				t.Fatal(err)
			}
			var onboard string
			for _, r := range f.api.Requests() {
				if r.RPC == fakegemini.RPCOnboardUser {
					var body struct {
						TierID string `json:"tierId"`
					}
					_ = json.Unmarshal(r.Body, &body)
					onboard = body.TierID
				}
			}
			if onboard != tt.wantOnboard {
				t.Errorf("onboarded to %q, want %q", onboard, tt.wantOnboard)
			}
			if gens := f.generateRequests(); len(gens) != 1 || gens[0].Project != tt.wantProject {
				t.Errorf("generate calls %d, project %q", len(gens), gens[0].Project)
			}
		})
	}
}

func TestNewAuthClientSelection(t *testing.T) {
	tests := []struct {
		name     string
		settings config.AuthSettings
		env      map[string]string
		wantOK   bool
		wantErr  string
		wantAuth string // Authorization header of the generate call
	}{
		{name: "api key selected", settings: config.AuthSettings{SelectedType: "gemini-api-key"}, env: map[string]string{"GEMINI_API_KEY": "k"}},
		{name: "vertex from env", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "", "GOOGLE_GENAI_USE_VERTEXAI": "true"}},
		{name: "nothing configured", env: map[string]string{"GOOGLE_GENAI_USE_GCA": ""}},
		{name: "settings select sign-in", settings: config.AuthSettings{SelectedType: "oauth-personal"}, env: map[string]string{"GOOGLE_GENAI_USE_GCA": "", "GEMINI_API_KEY": "k"}, wantOK: true, wantAuth: "Bearer ya29.a0CastorAccessToken"},
		{name: "settings select sign-in without own client", settings: config.AuthSettings{SelectedType: "oauth-personal"}, env: map[string]string{"GOOGLE_GENAI_USE_GCA": "", "GEMINI_API_KEY": "k", oauth.EnvClientID: "", oauth.EnvClientSecret: ""}, wantErr: "security.auth.selectedType: oauth-personal (Sign in with Google) needs an OAuth client of your own: Gemini CLI's sign-in cannot be reused by third-party tools under Google's terms"},
		{name: "GOOGLE_GENAI_USE_GCA without own client", env: map[string]string{oauth.EnvClientID: ""}, wantErr: "GOOGLE_GENAI_USE_GCA: oauth-personal (Sign in with Google) needs an OAuth client of your own"},
		{name: "raw access token", env: map[string]string{"GOOGLE_CLOUD_ACCESS_TOKEN": "ya29.raw"}, wantOK: true, wantAuth: "Bearer ya29.raw"},
		{name: "enforced type", settings: config.AuthSettings{SelectedType: "gemini-api-key", EnforcedType: "oauth-personal"}, wantErr: "The enforced authentication type is 'oauth-personal', but the current type is 'gemini-api-key'."},
		{name: "bad endpoint", env: map[string]string{"CODE_ASSIST_ENDPOINT": "cloudcode-pa.googleapis.com"}, wantErr: "invalid CODE_ASSIST_ENDPOINT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAuthFixture(t, fakegemini.Text("ok"))
			for k, v := range tt.env {
				f.env[k] = v
			}
			f.writeSignIn(time.Hour)
			m, ok, err := f.client(&config.Settings{Security: config.SecuritySettings{Auth: tt.settings}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || ok != tt.wantOK {
				t.Fatalf("ok = %v, err = %v", ok, err)
			}
			if !ok {
				if m != nil || len(f.api.Requests()) != 0 {
					t.Errorf("client %v, %d requests", m, len(f.api.Requests()))
				}
				return
			}
			if _, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}}); err != nil {
				t.Fatal(err)
			}
			if got := f.generateRequests()[0].Header.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization %q, want %q", got, tt.wantAuth)
			}
		})
	}
}

// compute-default-credentials signs in through the metadata server
// (GCE_METADATA_HOST, read from the process environment by the metadata
// client, so this test does not run in parallel).
func TestNewAuthClientComputeCredentials(t *testing.T) {
	f := newAuthFixture(t, fakegemini.Text("ok"))
	t.Setenv("GCE_METADATA_HOST", f.oauth.MetadataHost())
	delete(f.env, "GOOGLE_GENAI_USE_GCA")
	f.env["GEMINI_CLI_USE_COMPUTE_ADC"] = "true"
	m, ok, err := f.client(nil)
	if err != nil || !ok {
		t.Fatalf("ok = %v, err = %v", ok, err)
	}
	if _, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}}); err != nil {
		t.Fatal(err)
	}
	if got := bearer(f.generateRequests()[0]); !strings.HasPrefix(got, "ya29.fake-metadata-") {
		t.Errorf("token %q", got)
	}
}

// loadSettings writes json as the user settings of f's home and loads
// them as the CLI does.
func (f *authFixture) loadSettings(json string) *config.Settings {
	f.t.Helper()
	f.write(filepath.Join(f.home, ".gemini", "settings.json"), []byte(json))
	st, err := config.Load(config.LoadOptions{
		Workspace:          f.ws,
		HomeDir:            f.home,
		SystemSettingsPath: filepath.Join(f.home, "no-system.json"),
		SystemDefaultsPath: filepath.Join(f.home, "no-defaults.json"),
		Env:                func(k string) (string, bool) { v, ok := f.env[k]; return v, ok },
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// Sign in with Google selected, by settings or environment, without an
// OAuth client of the user's own: an authentication error (exit 41) in one
// line saying why and what to use instead, before anything is sent
// anywhere, even with Gemini CLI's fresh sign-in at hand.
func TestCodeAssistWithoutOwnClient(t *testing.T) {
	tests := []struct {
		name       string
		settings   string
		env        map[string]string
		wantSource string
	}{
		{name: "settings", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`, env: map[string]string{"GOOGLE_GENAI_USE_GCA": ""}, wantSource: "security.auth.selectedType: "},
		{name: "environment", settings: `{}`, wantSource: "GOOGLE_GENAI_USE_GCA: "},
		{name: "settings with an API key at hand", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`, env: map[string]string{"GOOGLE_GENAI_USE_GCA": "", "GEMINI_API_KEY": "k"}, wantSource: "security.auth.selectedType: "},
		{name: "a secret alone", settings: `{"security":{"auth":{"selectedType":"oauth-personal","oauthClient":{"clientSecret":"s"}}}}`, wantSource: "security.auth.selectedType: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAuthFixture(t, fakegemini.Text("never"))
			delete(f.env, oauth.EnvClientID)
			delete(f.env, oauth.EnvClientSecret)
			for k, v := range tt.env {
				f.env[k] = v
			}
			gemini := f.writeGeminiCLISignIn()
			m, ok, err := f.client(f.loadSettings(tt.settings))
			var ae *model.AuthError
			if m != nil || ok || !errors.As(err, &ae) || !errors.Is(err, oauth.ErrNoClient) {
				t.Fatalf("client %v %v, err %v", m, ok, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.wantSource) || strings.Contains(msg, "\n") {
				t.Errorf("message %q", msg)
			}
			for _, want := range []string{"Google's terms", "GEMINI_API_KEY", "Vertex AI", "gcloud auth application-default login", "compute-default-credentials", "CASTOR_OAUTH_CLIENT_ID", "CASTOR_OAUTH_CLIENT_SECRET"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
			if n, o := len(f.api.Requests()), len(f.oauth.Requests()); n != 0 || o != 0 {
				t.Errorf("%d Code Assist and %d OAuth requests", n, o)
			}
			f.checkGeminiCLIUnused(gemini)
		})
	}
}

// The OAuth client can come from settings (security.auth.oauthClient);
// the environment's client, when set, wins.
func TestCodeAssistOwnClientFromSettings(t *testing.T) {
	f := newAuthFixture(t, fakegemini.Text("ok"))
	delete(f.env, oauth.EnvClientID)
	delete(f.env, oauth.EnvClientSecret)
	st := f.loadSettings(`{"security":{"auth":{"selectedType":"oauth-personal","oauthClient":{"clientId":"` + testClientID + `","clientSecret":"` + testClientSecret + `"}}}}`)
	f.writeSignIn(-time.Hour)
	gemini := f.writeGeminiCLISignIn()
	m, ok, err := f.client(st)
	if err != nil || !ok {
		t.Fatalf("ok = %v, err = %v", ok, err)
	}
	if _, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}}); err != nil {
		t.Fatal(err)
	}
	if got := bearer(f.generateRequests()[0]); !f.oauth.Issued(got) {
		t.Errorf("token %q", got)
	}
	var refreshed bool
	for _, r := range f.oauth.Requests() {
		if r.Form.Get("grant_type") == "refresh_token" {
			refreshed = r.Form.Get("client_id") == testClientID && r.Form.Get("client_secret") == testClientSecret
		}
	}
	if !refreshed {
		t.Errorf("no refresh with the settings' client: %v", f.oauth.Requests())
	}
	f.checkGeminiCLIUnused(gemini)

	// A client in the environment wins; the sign-in, made with the other
	// client, must then be made again.
	f.env[oauth.EnvClientID] = "another-client"
	f.env[oauth.EnvClientSecret] = "s"
	_, _, err = f.client(st)
	var ae *model.AuthError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "CASTOR_OAUTH_CLIENT_ID names another-client") {
		t.Errorf("err = %v", err)
	}
}

// compute-default-credentials with the file `gcloud auth
// application-default login` writes: tokens come from gcloud's client and
// are refreshed whenever they run out (the fake issues tokens shorter than
// the refresh margin, so every call refreshes). Castor writes no
// credentials file of its own, and Gemini CLI's sign-in stays untouched.
func TestCodeAssistApplicationDefaultCredentials(t *testing.T) {
	f := newAuthFixture(t, fakegemini.Text("one"), fakegemini.Text("two"))
	delete(f.env, "GOOGLE_GENAI_USE_GCA")
	delete(f.env, oauth.EnvClientID)
	delete(f.env, oauth.EnvClientSecret)
	f.oauth.ClientID, f.oauth.ClientSecret = "", ""
	f.oauth.AddRefreshToken("1//gcloud-adc-refresh")
	f.oauth.SetExpiresIn(5)
	adc := []byte(`{"type":"authorized_user","client_id":"gcloud-client","client_secret":"gcloud-secret","refresh_token":"1//gcloud-adc-refresh","token_uri":"` + f.oauth.TokenURL() + `"}`)
	adcPath := oauth.GcloudADCPath(f.getenv)
	f.write(adcPath, adc)
	gemini := f.writeGeminiCLISignIn()

	m, ok, err := f.client(f.loadSettings(`{"security":{"auth":{"selectedType":"compute-default-credentials"}}}`))
	if err != nil || !ok {
		t.Fatalf("ok = %v, err = %v", ok, err)
	}
	for _, want := range []string{"one", "two"} {
		resp, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Text(); got != want {
			t.Errorf("answer %q, want %q", got, want)
		}
	}
	gens := f.generateRequests()
	if len(gens) != 2 || !f.oauth.Issued(bearer(gens[0])) || !f.oauth.Issued(bearer(gens[1])) || bearer(gens[0]) == bearer(gens[1]) {
		t.Fatalf("tokens %q", []string{bearer(gens[0]), bearer(gens[len(gens)-1])})
	}
	for _, r := range f.oauth.Requests() {
		if r.Path == fakegemini.OAuthTokenPath && (r.Form.Get("client_id") != "gcloud-client" || r.Form.Get("refresh_token") != "1//gcloud-adc-refresh") {
			t.Errorf("token request %v", r.Form)
		}
	}
	if n := f.oauth.Grants("refresh_token"); n < 3 {
		t.Errorf("%d refreshes (startup check and two calls)", n)
	}
	if _, err := os.Stat(f.credsPath()); !os.IsNotExist(err) {
		t.Errorf("Castor wrote %s: %v", f.credsPath(), err)
	}
	if got, _ := os.ReadFile(adcPath); string(got) != string(adc) {
		t.Errorf("gcloud's file changed: %s", got)
	}
	f.checkGeminiCLIUnused(gemini)
}
