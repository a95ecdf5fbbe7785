package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// The binary carries no Gemini CLI OAuth client: neither its id (its
// project number, or the rest of it) nor any Google client secret (they
// all start with the same prefix). The patterns are built from pieces so
// that this file does not contain them either, and a string the binary
// must contain proves the scan reads it.
func TestBinaryHasNoGeminiCLIClient(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(e2etest.Executable(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("castor_oauth_creds.json")) {
		t.Fatal("the scan does not see the binary's strings")
	}
	for _, p := range []string{
		"GOCSPX" + "-",
		"6812558" + "09395",
		"oo8ft2oprdrnp9e3" + "aqf6av3hmdib135j",
	} {
		if i := bytes.Index(data, []byte(p)); i >= 0 {
			t.Errorf("binary contains %q at %d: %q", p, i, data[max(0, i-40):min(len(data), i+80)])
		}
	}
}

// authUser is an isolated user for the auth tests: HOME and
// GEMINI_CLI_HOME point at a fresh directory holding Gemini CLI's own
// (valid-looking) sign-in, which Castor must ignore.
type authUser struct {
	t          *testing.T
	home, ws   string
	geminiPath string
	env        map[string]string
}

// geminiCLISignIn is Gemini CLI's credentials file, valid until 2100.
const geminiCLISignIn = `{"access_token":"ya29.gemini-cli-access","refresh_token":"1//gemini-cli-refresh","token_type":"Bearer","expiry_date":4102444800000}`

func newAuthUser(t *testing.T) *authUser {
	t.Helper()
	root := t.TempDir()
	u := &authUser{t: t, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	u.geminiPath = filepath.Join(u.home, ".gemini", "oauth"+"_creds.json")
	u.write(u.geminiPath, geminiCLISignIn)
	if err := os.MkdirAll(u.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	u.env = map[string]string{
		"HOME":                            u.home,
		"GEMINI_CLI_HOME":                 u.home,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(root, "no-system.json"),
		"CLOUDSDK_CONFIG":                 filepath.Join(u.home, "gcloud"),
		"PATH":                            os.Getenv("PATH"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
		"CASTOR_RETRY_BASE_DELAY":         "5ms",
	}
	return u
}

func (u *authUser) write(path, content string) {
	u.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		u.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		u.t.Fatal(err)
	}
}

func (u *authUser) settings(json string) {
	u.write(filepath.Join(u.home, ".gemini", "settings.json"), json)
}

func (u *authUser) run(args ...string) e2etest.Result {
	u.t.Helper()
	var env []string
	for k, v := range u.env {
		env = append(env, k+"="+v)
	}
	return e2etest.RunCastor(u.t, u.ws, env, args...)
}

// checkGeminiCLIIgnored fails if output names Gemini CLI's file or the
// file changed.
func (u *authUser) checkGeminiCLIIgnored(r e2etest.Result) {
	u.t.Helper()
	if strings.Contains(r.Stdout+r.Stderr, string(filepath.Separator)+"oauth"+"_creds.json") || strings.Contains(r.Stdout+r.Stderr, "gemini-cli-access") {
		u.t.Errorf("output mentions Gemini CLI's sign-in:\n%s\n%s", r.Stdout, r.Stderr)
	}
	if b, err := os.ReadFile(u.geminiPath); err != nil || string(b) != geminiCLISignIn {
		u.t.Errorf("Gemini CLI's file changed: %s %v", b, err)
	}
}

// Sign in with Google selected, by settings or by GOOGLE_GENAI_USE_GCA,
// without an OAuth client of the user's own: exit code 41 and one line on
// stderr saying why and what to use instead, even with an API key and
// Gemini CLI's sign-in at hand.
func TestOAuthPersonalWithoutOwnClientExits41(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings string
		env      map[string]string
		args     []string
		source   string
	}{
		{name: "settings", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`, env: map[string]string{"GEMINI_API_KEY": "k"}, args: []string{"-p", "hi"}, source: "security.auth.selectedType"},
		{name: "environment", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "true"}, args: []string{"-p", "hi"}, source: "GOOGLE_GENAI_USE_GCA"},
		{name: "auth status", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`, args: []string{"auth", "status"}, source: "security.auth.selectedType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, fakegemini.Text("never"))
			u := newAuthUser(t)
			u.env["GOOGLE_GEMINI_BASE_URL"] = srv.URL
			u.env["CODE_ASSIST_ENDPOINT"] = srv.URL
			for k, v := range tt.env {
				u.env[k] = v
			}
			if tt.settings != "" {
				u.settings(tt.settings)
			}
			r := u.run(tt.args...)
			want := "Error: " + tt.source + ": oauth-personal (Sign in with Google) needs an OAuth client of your own: Gemini CLI's sign-in cannot be reused by third-party tools under Google's terms; "
			if r.Code != 41 || !strings.HasPrefix(r.Stderr, want) || strings.Count(r.Stderr, "\n") != 1 {
				t.Fatalf("exit %d\nstderr %q", r.Code, r.Stderr)
			}
			for _, w := range []string{"GEMINI_API_KEY", "Vertex AI", "`gcloud auth application-default login`", "compute-default-credentials", "CASTOR_OAUTH_CLIENT_ID and CASTOR_OAUTH_CLIENT_SECRET"} {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("stderr lacks %q", w)
				}
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model requests", n)
			}
			u.checkGeminiCLIIgnored(r)
		})
	}
}

// The two Code Assist paths end to end against the fake sign-in and the
// fake Code Assist service: the user's own client (a stale token refreshed
// and saved to castor_oauth_creds.json, 0600), and gcloud's Application
// Default Credentials (nothing saved). Gemini CLI's fresh sign-in is never
// used.
func TestCodeAssistPathsEndToEnd(t *testing.T) {
	t.Parallel()
	const clientID, secret = "e2e-client.apps.example.com", "e2e-secret"
	tests := []struct {
		name  string
		setup func(u *authUser, o *fakegemini.OAuthServer)
		saved bool // castor_oauth_creds.json is (re)written
	}{
		{
			name: "own client",
			setup: func(u *authUser, o *fakegemini.OAuthServer) {
				o.ClientID, o.ClientSecret = clientID, secret
				o.AddRefreshToken("1//castor-refresh")
				u.env["CASTOR_OAUTH_CLIENT_ID"], u.env["CASTOR_OAUTH_CLIENT_SECRET"] = clientID, secret
				u.env["CASTOR_OAUTH_TOKEN_URL"] = o.TokenURL()
				u.settings(`{"security":{"auth":{"selectedType":"oauth-personal"}}}`)
				u.write(filepath.Join(u.home, ".gemini", "castor_oauth_creds.json"), `{"access_token":"ya29.stale","refresh_token":"1//castor-refresh","token_type":"Bearer","expiry_date":1,"client_id":"`+clientID+`"}`)
			},
			saved: true,
		},
		{
			name: "gcloud application default credentials",
			setup: func(u *authUser, o *fakegemini.OAuthServer) {
				o.AddRefreshToken("1//gcloud-refresh")
				u.settings(`{"security":{"auth":{"selectedType":"compute-default-credentials"}}}`)
				u.write(filepath.Join(u.home, "gcloud", "application_default_credentials.json"), `{"type":"authorized_user","client_id":"gcloud-client","client_secret":"s","refresh_token":"1//gcloud-refresh","token_uri":"`+o.TokenURL()+`"}`)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, fakegemini.Text("Hello from Code Assist."))
			o := fakegemini.StartOAuth(t)
			o.AddRefreshToken("1//gemini-cli-refresh")
			u := newAuthUser(t)
			u.env["CODE_ASSIST_ENDPOINT"] = srv.URL
			tt.setup(u, o)

			status := u.run("auth", "status")
			if status.Code != 0 {
				t.Fatalf("status exit %d\n%s\n%s", status.Code, status.Stdout, status.Stderr)
			}
			r := u.run("-p", "hi")
			if r.Code != 0 || !strings.Contains(r.Stdout, "Hello from Code Assist.") {
				t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
			}
			var gens int
			for _, req := range srv.Requests() {
				auth := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
				if !req.CodeAssist || !o.Issued(auth) {
					t.Errorf("%s call with token %q", req.RPC, auth)
				}
				if req.RPC == fakegemini.RPCStreamGenerateContent || req.RPC == fakegemini.RPCGenerateContent {
					gens++
				}
			}
			if gens != 1 || o.Grants("refresh_token") == 0 {
				t.Errorf("%d generate calls, %d refreshes", gens, o.Grants("refresh_token"))
			}
			for _, req := range o.Requests() {
				if strings.Contains(req.Form.Encode(), "gemini-cli") {
					t.Errorf("Gemini CLI's sign-in used: %v", req.Form)
				}
			}
			credsPath := filepath.Join(u.home, ".gemini", "castor_oauth_creds.json")
			fi, err := os.Stat(credsPath)
			if !tt.saved {
				if err == nil {
					t.Errorf("%s written", credsPath)
				}
			} else {
				b, _ := os.ReadFile(credsPath)
				if err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) || bytes.Contains(b, []byte("ya29.stale")) || !bytes.Contains(b, []byte("1//castor-refresh")) {
					t.Errorf("credentials %v %v:\n%s", fi, err, b)
				}
			}
			u.checkGeminiCLIIgnored(status)
			u.checkGeminiCLIIgnored(r)
		})
	}
}
