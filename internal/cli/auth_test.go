package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/model"
)

// authEnv gives a test its own home, workspace and fake Google sign-in,
// all through the environment as a user would set it.
func authEnv(t *testing.T) (home string, o *fakegemini.OAuthServer) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	o = fakegemini.StartOAuth(t)
	o.ClientID, o.ClientSecret = "castor-test-client", "castor-test-secret"
	for k, v := range map[string]string{
		"GEMINI_CLI_HOME":                 home,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "no-system.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
		oauth.EnvClientID:                 "castor-test-client",
		oauth.EnvClientSecret:             "castor-test-secret",
		oauth.EnvAuthURL:                  o.AuthURL(),
		oauth.EnvTokenURL:                 o.TokenURL(),
		oauth.EnvUserInfoURL:              o.UserInfoURL(),
		"GOOGLE_GENAI_USE_GCA":            "",
		"GOOGLE_GENAI_USE_VERTEXAI":       "",
		"GOOGLE_GEMINI_BASE_URL":          "",
		"GEMINI_API_KEY":                  "",
		"GOOGLE_API_KEY":                  "",
		"GOOGLE_CLOUD_LOCATION":           "",
		"GCE_METADATA_HOST":               "",
		"CLOUDSDK_CONFIG":                 filepath.Join(home, "gcloud"),
		"GOOGLE_CLOUD_ACCESS_TOKEN":       "",
		"GOOGLE_APPLICATION_CREDENTIALS":  "",
		"GOOGLE_CLOUD_PROJECT":            "",
		"GOOGLE_CLOUD_PROJECT_ID":         "",
		"CLOUD_SHELL":                     "",
		"GEMINI_CLI_USE_COMPUTE_ADC":      "",
		"NO_BROWSER":                      "",
	} {
		t.Setenv(k, v)
	}
	t.Chdir(ws)
	return home, o
}

// geminiCLIFile is Gemini CLI's own sign-in, valid-looking, which Castor
// must neither read nor mention.
const geminiCLIFile = `{"access_token":"ya29.gemini-cli","refresh_token":"1//gemini-cli","token_type":"Bearer","expiry_date":4102444800000}`

// writeGeminiCLIFile puts geminiCLIFile where Gemini CLI keeps it (the
// name spelled in pieces, so no Go file names it whole) and returns its
// path.
func writeGeminiCLIFile(t *testing.T, home string) string {
	t.Helper()
	p := filepath.Join(home, ".gemini", "oauth"+"_creds.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(geminiCLIFile), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkNoGeminiCLIFile fails if output names Gemini CLI's credential
// files, or if that file changed.
func checkNoGeminiCLIFile(t *testing.T, path, output string) {
	t.Helper()
	for _, name := range []string{string(filepath.Separator) + "oauth" + "_creds.json", "google" + "_accounts"} {
		if strings.Contains(output, name) {
			t.Errorf("output mentions %s:\n%s", name, output)
		}
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != geminiCLIFile {
		t.Errorf("Gemini CLI's file changed: %s %v", b, err)
	}
}

// pasteUser answers the paste prompt: it opens the printed URL against
// the fake (which consents at once) on "another device", and pastes back
// the address the browser was sent to.
type pasteUser struct {
	t  *testing.T
	in io.Writer

	mu   sync.Mutex
	out  strings.Builder
	done bool
}

var codePrompt = regexp.MustCompile(`authorize the application:\n\n(\S+)\n\n[^\n]*\nEnter the address or the authorization code: $`)

func (u *pasteUser) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.out.Write(p)
	if m := codePrompt.FindStringSubmatch(u.out.String()); m != nil && !u.done {
		u.done = true
		go u.answer(m[1])
	}
	return len(p), nil
}

func (u *pasteUser) answer(authURL string) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		u.t.Error(err)
		return
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	io.WriteString(u.in, loc.String()+"\n")
}

func (u *pasteUser) String() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.out.String()
}

func runAuth(t *testing.T, args ...string) (code int, out, errOut string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(context.Background(), append([]string{"auth"}, args...), IO{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	return code, o.String(), e.String()
}

func TestAuthLoginStatusLogout(t *testing.T) {
	home, o := authEnv(t)
	geminiPath := writeGeminiCLIFile(t, home)
	settingsPath := filepath.Join(home, ".gemini", "settings.json")
	if err := os.WriteFile(settingsPath, []byte("{\n  // mine\n  \"model\": {\"name\": \"gemini-2.5-flash\"}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder

	// Sign in with the paste flow.
	inR, inW := io.Pipe()
	defer inW.Close()
	user := &pasteUser{t: t, in: inW}
	var errOut bytes.Buffer
	code := Run(context.Background(), []string{"auth", "login", "--no-browser"}, IO{Stdin: inR, Stdout: user, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("login exit %d\n%s\n%s", code, user, errOut.String())
	}
	credsPath := filepath.Join(home, ".gemini", "castor_oauth_creds.json")
	for _, want := range []string{"Authentication succeeded", "Signed in as " + fakegemini.DefaultEmail + ".", "Tokens saved to " + credsPath + " (Castor's own file, for OAuth client castor-test-client from CASTOR_OAUTH_CLIENT_ID)"} {
		if !strings.Contains(user.String(), want) {
			t.Errorf("login output lacks %q:\n%s", want, user)
		}
	}
	all.WriteString(user.String() + errOut.String())
	data, err := os.ReadFile(credsPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := topKeys(t, data); got != "access_token,refresh_token,scope,token_type,id_token,expiry_date,client_id,account" {
		t.Errorf("credentials keys %s", got)
	}
	if fi, _ := os.Stat(credsPath); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("credentials mode %v", fi.Mode())
	}
	settings, _ := os.ReadFile(settingsPath)
	if !strings.Contains(string(settings), `"selectedType": "oauth-personal"`) || !strings.Contains(string(settings), "// mine") {
		t.Errorf("settings after login:\n%s", settings)
	}

	code, out, errs := runAuth(t, "status")
	all.WriteString(out + errs)
	if code != ExitOK {
		t.Fatalf("status exit %d: %s", code, out)
	}
	for _, want := range []string{
		"Auth method: oauth-personal (from security.auth.selectedType)",
		"Using: Code Assist via your own OAuth client castor-test-client (from CASTOR_OAUTH_CLIENT_ID)",
		"Tokens: " + credsPath,
		"Google sign-in: signed in as " + fakegemini.DefaultEmail,
		"Access token: valid for",
		"Refresh token: present",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = runAuth(t, "logout")
	all.WriteString(out + errs)
	if code != ExitOK || !strings.Contains(out, "Signed out: removed "+credsPath) {
		t.Fatalf("logout exit %d: %s", code, out)
	}
	if _, err := os.Stat(credsPath); !os.IsNotExist(err) {
		t.Errorf("credentials still there: %v", err)
	}
	// settings.json is Gemini CLI's too: logout leaves its choice alone.
	if after, _ := os.ReadFile(settingsPath); string(after) != string(settings) {
		t.Errorf("settings after logout:\n%s", after)
	}

	code, out, errs = runAuth(t, "status")
	all.WriteString(out + errs)
	if code != ExitAuth || !strings.Contains(out, "not signed in") || !strings.Contains(errs, "castor auth login") {
		t.Errorf("status after logout: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := runAuth(t, "logout"); code != ExitOK || !strings.Contains(out, "Not signed in; nothing to remove.") {
		t.Errorf("second logout: exit %d %s", code, out)
	}
	if n := o.Grants("authorization_code"); n != 1 {
		t.Errorf("%d code exchanges", n)
	}
	checkNoGeminiCLIFile(t, geminiPath, all.String())
}

// Without an OAuth client of the user's own, `castor auth login` stops
// before opening anything: exit 41 and one line saying why and what to
// use instead.
func TestAuthLoginWithoutOwnClient(t *testing.T) {
	home, o := authEnv(t)
	geminiPath := writeGeminiCLIFile(t, home)
	t.Setenv(oauth.EnvClientID, "")
	t.Setenv(oauth.EnvClientSecret, "")
	code, out, errOut := runAuth(t, "login", "--no-browser")
	if code != ExitAuth || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "Error: castor auth login needs an OAuth client of your own") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	for _, want := range []string{"Google's terms", "CASTOR_OAUTH_CLIENT_ID", "security.auth.oauthClient.clientId", "GEMINI_API_KEY", "Vertex AI", "gcloud auth application-default login"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %s", want, errOut)
		}
	}
	if len(o.Requests()) != 0 || out != "" {
		t.Errorf("login went ahead: %s %v", out, o.Requests())
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "castor_oauth_creds.json")); !os.IsNotExist(err) {
		t.Errorf("credentials written: %v", err)
	}
	checkNoGeminiCLIFile(t, geminiPath, out+errOut)
}

// `castor auth status` names the path in use for every way of
// authenticating, and fails (exit 41) when the selected one cannot work.
func TestAuthStatusPaths(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		settings string
		gcloud   bool // gcloud's ADC file exists
		signedIn bool // castor_oauth_creds.json exists
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "api key", env: map[string]string{"GEMINI_API_KEY": "k"}, wantOut: "Using: Gemini API with an API key (GEMINI_API_KEY)"},
		{name: "google api key", settings: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`, env: map[string]string{"GOOGLE_API_KEY": "k"}, wantOut: "Using: Gemini API with an API key (GOOGLE_API_KEY)"},
		{name: "vertex api key", env: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": "k"}, wantOut: "Using: Vertex AI with an API key (GOOGLE_API_KEY)"},
		{name: "vertex adc", env: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1"}, wantOut: `Using: Vertex AI with Application Default Credentials (project "p", location "us-central1")`},
		{name: "code assist via gcloud adc", settings: `{"security":{"auth":{"selectedType":"compute-default-credentials"}}}`, gcloud: true, wantOut: "Using: Code Assist via Application Default Credentials from gcloud ("},
		{name: "code assist via adc file", env: map[string]string{"GEMINI_CLI_USE_COMPUTE_ADC": "true", "GOOGLE_APPLICATION_CREDENTIALS": "/keys/sa.json"}, wantOut: "Using: Code Assist via Application Default Credentials from GOOGLE_APPLICATION_CREDENTIALS (/keys/sa.json)"},
		{name: "code assist via metadata server", settings: `{"security":{"auth":{"selectedType":"compute-default-credentials"}}}`, wantOut: "Using: Code Assist via Application Default Credentials from the metadata server (metadata.google.internal)"},
		{name: "own client", settings: `{"security":{"auth":{"selectedType":"oauth-personal","oauthClient":{"clientId":"mine.apps.example.com","clientSecret":"s"}}}}`, env: map[string]string{oauth.EnvClientID: ""}, signedIn: true, wantOut: "Using: Code Assist via your own OAuth client mine.apps.example.com (from security.auth.oauthClient.clientId)"},
		{name: "own client not signed in", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "true"}, wantCode: ExitAuth, wantOut: "Google sign-in: not signed in", wantErr: "run `castor auth login`"},
		{name: "oauth-personal without own client", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`, env: map[string]string{oauth.EnvClientID: "", oauth.EnvClientSecret: ""}, signedIn: true, wantCode: ExitAuth, wantOut: "Using: nothing", wantErr: "Error: security.auth.selectedType: oauth-personal (Sign in with Google) needs an OAuth client of your own: Gemini CLI's sign-in cannot be reused by third-party tools under Google's terms"},
		{name: "nothing", wantCode: ExitAuth, wantOut: "Auth method: none selected", wantErr: "no credentials: set GEMINI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, _ := authEnv(t)
			geminiPath := writeGeminiCLIFile(t, home)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if tt.settings != "" {
				if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(tt.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.gcloud {
				p := oauth.GcloudADCPath(os.Getenv)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(`{"type":"authorized_user"}`), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.signedIn {
				if err := (&oauth.Store{Dir: filepath.Join(home, ".gemini")}).Save(&oauth.Credentials{RefreshToken: "r", ClientID: "mine.apps.example.com"}); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := runAuth(t, "status")
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantErr) || (tt.wantErr == "" && errOut != "") {
				t.Errorf("exit %d\n%s\nstderr %s", code, out, errOut)
			}
			if strings.Count(errOut, "\n") > 1 {
				t.Errorf("stderr has more than one line: %q", errOut)
			}
			checkNoGeminiCLIFile(t, geminiPath, out+errOut)
		})
	}
}

func topKeys(t *testing.T, b []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(keys, ",")
}

func TestAuthLoginFailure(t *testing.T) {
	authEnv(t)
	var out, errOut bytes.Buffer
	// No input: the paste flow cannot get a code.
	code := Run(context.Background(), []string{"auth", "login", "--no-browser"}, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitError || !strings.Contains(errOut.String(), "Failed to authenticate with user code.") {
		t.Errorf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}

// A revoked sign-in is an authentication failure: exit code 41, reported
// as Gemini CLI's FatalAuthenticationError.
func TestRevokedSignInExitCode(t *testing.T) {
	err := fmt.Errorf("turn failed: %w", &model.AuthError{Err: &oauth.ReauthError{Reason: "invalid_grant: Token has been expired or revoked."}})
	if got := exitCode(err); got != ExitAuth {
		t.Errorf("exit code %d, want %d", got, ExitAuth)
	}
	if got := errorType(err); got != "FatalAuthenticationError" {
		t.Errorf("error type %q", got)
	}
}

// The headless command over Code Assist: a tool call answered, and a
// revoked sign-in ending with exit code 41. Until setup.go's newClient
// calls newAuthClient these runs take the API-key path, and the test says
// so instead of failing.
func TestHeadlessCodeAssist(t *testing.T) {
	home, o := authEnv(t)
	ws, _ := os.Getwd()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	const refresh = "1//0gCastorRefreshToken"
	o.AddRefreshToken(refresh)
	geminiPath := writeGeminiCLIFile(t, home)
	creds := fmt.Sprintf(`{
  "access_token": "ya29.stale",
  "refresh_token": %q,
  "scope": "https://www.googleapis.com/auth/cloud-platform",
  "token_type": "Bearer",
  "expiry_date": 1,
  "client_id": "castor-test-client"
}`, refresh)
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", oauth.CredsFileName), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	api := fakegemini.Start(t,
		fakegemini.Call("list_directory", map[string]any{"path": ws}),
		fakegemini.Text("It holds notes.txt."),
	)
	t.Setenv("GOOGLE_GENAI_USE_GCA", "true")
	t.Setenv("CODE_ASSIST_ENDPOINT", api.URL)
	t.Setenv("CASTOR_RETRY_BASE_DELAY", "1ms")

	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"-p", "What is here?"}, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, StdinIsTerminal: true})
	if len(api.Requests()) == 0 {
		t.Fatalf("the Code Assist server got no request (exit %d: %s)", code, strings.TrimSpace(errOut.String()))
	}
	if code != ExitOK || !strings.Contains(out.String(), "It holds notes.txt.") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}

	o.Revoke(refresh)
	if err := os.WriteFile(filepath.Join(home, ".gemini", oauth.CredsFileName), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	code = Run(context.Background(), []string{"-p", "again"}, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, StdinIsTerminal: true})
	if code != ExitAuth || !strings.Contains(errOut.String(), "sign in again with `castor auth login`") {
		t.Errorf("revoked: exit %d\n%s", code, errOut.String())
	}
	for _, r := range api.Requests() {
		if strings.Contains(r.Header.Get("Authorization"), "gemini-cli") {
			t.Errorf("Gemini CLI's token sent: %s", r.Header.Get("Authorization"))
		}
	}
	checkNoGeminiCLIFile(t, geminiPath, out.String()+errOut.String())
}
