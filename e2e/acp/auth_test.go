package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestACPAuthenticateAPIKey: authenticate with gemini-api-key used to
// succeed with no key anywhere, and the next session/new failed. It now
// fails with the places searched when no key can be found (environment,
// .env from the process's directory up, the home's), and succeeds with
// a key from _meta, the environment or a .env file.
func TestACPAuthenticateAPIKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     string            // extra variable, "K=V"
		meta    map[string]any    // authenticate's _meta
		files   map[string]string // under the root: home/..., ws/...
		wantErr bool
	}{
		{name: "no key anywhere", wantErr: true},
		{name: "env file without the key", files: map[string]string{"home/.env": "OTHER=1\n"}, wantErr: true},
		{name: "key in _meta", meta: map[string]any{"api-key": "from-meta"}},
		{name: "key in the environment", env: "GEMINI_API_KEY=from-env"},
		{name: "GOOGLE_API_KEY", env: "GOOGLE_API_KEY=from-env"},
		{name: "home .gemini/.env", files: map[string]string{"home/.gemini/.env": "GEMINI_API_KEY=from-file\n"}},
		{name: "project .env", files: map[string]string{"ws/.env": "GEMINI_API_KEY=from-file\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("hello"))
			root := filepath.Dir(e.Home)
			for name, content := range tt.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := e2etest.Command(t, "--acp")
			cmd.Dir = e.WS
			cmd.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}
			if tt.env != "" {
				cmd.Env = append(cmd.Env, tt.env)
			}
			c, err := acp.Start(cmd, acp.Handler{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			if _, err := c.Init(ctx); err != nil {
				t.Fatal(err)
			}
			_, err = c.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "gemini-api-key", Meta: tt.meta})
			if tt.wantErr {
				var re *sdk.RequestError
				if !errors.As(err, &re) || re.Code != -32000 ||
					!strings.HasPrefix(re.Message, "Gemini API key is missing or not configured: GEMINI_API_KEY is not set") ||
					!strings.Contains(re.Message, "searched from "+e.WS+" up, then "+e.Home+"/.gemini/.env") {
					t.Fatalf("authenticate: %#v", err)
				}
				if tt.files["home/.env"] != "" && !strings.Contains(re.Message, "none in "+filepath.Join(e.Home, ".env")) {
					t.Errorf("the .env read is not named: %s", re.Message)
				}
				return
			}
			if err != nil {
				t.Fatalf("authenticate: %v", err)
			}
			if _, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.WS, McpServers: []sdk.McpServer{}}); err != nil {
				t.Errorf("session/new after authenticate: %v", err)
			}
		})
	}
}
