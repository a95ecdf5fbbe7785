package oauth

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

func envFunc(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSelectAuthType(t *testing.T) {
	tests := []struct {
		name               string
		selected, enforced string
		env                map[string]string
		want               Selection
		wantErr            string
	}{
		{name: "nothing", want: Selection{}},
		{name: "settings win over env", selected: "oauth-personal", env: map[string]string{"GEMINI_API_KEY": "k"}, want: Selection{LoginWithGoogle, "security.auth.selectedType"}},
		{name: "settings api key over GCA env", selected: "gemini-api-key", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "true"}, want: Selection{GeminiAPIKey, "security.auth.selectedType"}},
		{name: "GCA env", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "true", "GEMINI_API_KEY": "k"}, want: Selection{LoginWithGoogle, "GOOGLE_GENAI_USE_GCA"}},
		{name: "GCA must be exactly true", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "1"}, want: Selection{}},
		{name: "vertex before api key", env: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GEMINI_API_KEY": "k"}, want: Selection{VertexAI, "GOOGLE_GENAI_USE_VERTEXAI"}},
		{name: "gateway before api key", env: map[string]string{"GOOGLE_GEMINI_BASE_URL": "http://x", "GEMINI_API_KEY": "k"}, want: Selection{Gateway, "GOOGLE_GEMINI_BASE_URL"}},
		{name: "compute env", env: map[string]string{"GEMINI_CLI_USE_COMPUTE_ADC": "true"}, want: Selection{ComputeADC, "GEMINI_CLI_USE_COMPUTE_ADC"}},
		{name: "cloud shell env", env: map[string]string{"CLOUD_SHELL": "true"}, want: Selection{ComputeADC, "CLOUD_SHELL"}},
		{name: "compute env beats api key when nothing is selected", env: map[string]string{"GEMINI_API_KEY": "k", "GEMINI_CLI_USE_COMPUTE_ADC": "true"}, want: Selection{ComputeADC, "GEMINI_CLI_USE_COMPUTE_ADC"}},
		{name: "compute env beats GCA env when nothing is selected", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "true", "CLOUD_SHELL": "true"}, want: Selection{ComputeADC, "CLOUD_SHELL"}},
		{name: "legacy cloud-shell rewritten", selected: "cloud-shell", env: map[string]string{"CLOUD_SHELL": "true"}, want: Selection{ComputeADC, "security.auth.selectedType"}},
		{name: "legacy cloud-shell kept elsewhere", selected: "cloud-shell", want: Selection{CloudShell, "security.auth.selectedType"}},
		{name: "enforced matches", selected: "oauth-personal", enforced: "oauth-personal", want: Selection{LoginWithGoogle, "security.auth.selectedType"}},
		{name: "enforced mismatch", selected: "gemini-api-key", enforced: "oauth-personal", wantErr: "The enforced authentication type is 'oauth-personal', but the current type is 'gemini-api-key'. Please re-authenticate with the correct type."},
		{name: "enforced with nothing", enforced: "vertex-ai", wantErr: "The auth type 'vertex-ai' is enforced, but no authentication is configured."},
		{name: "unknown", selected: "magic", wantErr: "Invalid auth method selected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectAuthType(tt.selected, tt.enforced, envFunc(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCodeAssistTypes(t *testing.T) {
	for typ, want := range map[AuthType]bool{
		LoginWithGoogle: true, ComputeADC: true, CloudShell: true,
		GeminiAPIKey: false, VertexAI: false, Gateway: false, "": false,
	} {
		if typ.CodeAssist() != want {
			t.Errorf("%q.CodeAssist() = %v", typ, !want)
		}
	}
}

func TestBrowserSuppressed(t *testing.T) {
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want bool
	}{
		{"linux desktop", "linux", map[string]string{"DISPLAY": ":0"}, false},
		{"wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, false},
		{"linux headless", "linux", nil, true},
		{"linux ssh with X forwarding", "linux", map[string]string{"DISPLAY": "localhost:10", "SSH_CONNECTION": "x"}, false},
		{"NO_BROWSER", "linux", map[string]string{"DISPLAY": ":0", "NO_BROWSER": "true"}, true},
		{"CI", "darwin", map[string]string{"CI": "1"}, true},
		{"www-browser", "darwin", map[string]string{"BROWSER": "www-browser"}, true},
		{"mac", "darwin", nil, false},
		{"mac over ssh", "darwin", map[string]string{"SSH_CONNECTION": "x"}, true},
	}
	for _, tt := range tests {
		if got := BrowserSuppressed(envFunc(tt.env), tt.goos); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
}

func TestEndpointsFor(t *testing.T) {
	st := func(t *testing.T, json string) *config.Settings {
		home := t.TempDir()
		p := filepath.Join(home, ".gemini", "settings.json")
		writeFile(t, p, []byte(json))
		s, err := config.Load(config.LoadOptions{
			Workspace:          t.TempDir(),
			HomeDir:            home,
			SystemSettingsPath: filepath.Join(home, "no-system.json"),
			SystemDefaultsPath: filepath.Join(home, "no-defaults.json"),
			Env:                func(string) (string, bool) { return "", false },
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const fromSettings = `{"security":{"auth":{"oauthClient":{"clientId":"set-id","clientSecret":"set-secret"}}}}`
	tests := []struct {
		name     string
		env      map[string]string
		settings string
		want     Endpoints
	}{
		{name: "nothing: no client", want: DefaultEndpoints()},
		{
			name: "environment",
			env:  map[string]string{EnvClientID: " env-id ", EnvClientSecret: "env-secret", EnvTokenURL: " http://t "},
			want: Endpoints{ClientID: "env-id", ClientSecret: "env-secret", ClientSource: EnvClientID, AuthURL: GoogleAuthURL, TokenURL: "http://t", UserInfoURL: GoogleUserInfoURL},
		},
		{
			name:     "settings",
			settings: fromSettings,
			want:     Endpoints{ClientID: "set-id", ClientSecret: "set-secret", ClientSource: SettingClientID, AuthURL: GoogleAuthURL, TokenURL: GoogleTokenURL, UserInfoURL: GoogleUserInfoURL},
		},
		{
			name:     "environment beats settings, never mixed",
			env:      map[string]string{EnvClientID: "env-id"},
			settings: fromSettings,
			want:     Endpoints{ClientID: "env-id", ClientSource: EnvClientID, AuthURL: GoogleAuthURL, TokenURL: GoogleTokenURL, UserInfoURL: GoogleUserInfoURL},
		},
		{
			name: "a secret alone is no client",
			env:  map[string]string{EnvClientSecret: "s"},
			want: DefaultEndpoints(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s *config.Settings
			if tt.settings != "" {
				s = st(t, tt.settings)
			}
			got := EndpointsFor(envFunc(tt.env), s)
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			if got.HasClient() != (tt.want.ClientID != "") {
				t.Errorf("HasClient = %v", got.HasClient())
			}
		})
	}
	if EndpointsFromEnv(envFunc(nil)).HasClient() {
		t.Error("a client without configuration")
	}
}
