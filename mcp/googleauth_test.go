package mcp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoogleCredentials: a server with authProviderType
// "google_credentials" is reached with an access token from Application
// Default Credentials (a service-account file whose token endpoint is a
// loopback fake), as Gemini CLI 0.61 does; a host outside Gemini CLI's
// list, or no scopes, is refused in its words.
func TestGoogleCredentials(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	server := sdk.NewServer(&sdk.Implementation{Name: "secops", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "lookup", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	var tokens, unauthorized atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			tokens.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"access_token":"adc-token","token_type":"Bearer","expires_in":3600}`))
			return
		}
		if r.Header.Get("Authorization") != "Bearer adc-token" {
			unauthorized.Add(1)
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		// The SDK's handler accepts loopback hosts only; this one plays
		// a googleapis.com server.
		r.Host = "127.0.0.1"
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	adc, _ := json.Marshal(map[string]string{
		"type": "service_account", "client_email": "castor@test.iam.gserviceaccount.com", "private_key_id": "k1",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"token_uri":   srv.URL + "/token",
	})
	file := filepath.Join(t.TempDir(), "adc.json")
	if err := os.WriteFile(file, adc, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", file)
	// Every host is dialled at the fake, so that a *.googleapis.com URL
	// stays on loopback.
	addr := srv.Listener.Addr().String()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	scopes := &OAuthConfig{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}}
	servers := []*ServerConfig{
		{Name: "secops", HTTPURL: "http://secops.googleapis.com/mcp", AuthProviderType: "google_credentials", OAuth: scopes},
		{Name: "elsewhere", HTTPURL: "http://example.com/mcp", AuthProviderType: "google_credentials", OAuth: scopes},
		{Name: "noscopes", HTTPURL: "http://x.googleapis.com/mcp", AuthProviderType: "google_credentials"},
	}
	m, d := startManager(t, Options{Servers: servers, HTTPClient: client})
	st := map[string]ServerStatus{}
	for _, s := range m.Statuses() {
		st[s.Name] = s
	}
	if st["secops"].Status != StatusConnected || tokens.Load() == 0 {
		t.Errorf("secops: %+v, %d tokens asked\n%s", st["secops"], tokens.Load(), d)
	}
	if !strings.Contains(st["elsewhere"].Reason, `Host "example.com" is not an allowed host for Google Credential provider.`) {
		t.Errorf("elsewhere: %+v", st["elsewhere"])
	}
	if !strings.Contains(st["noscopes"].Reason, "Scopes must be provided in the oauth config for Google Credentials provider") {
		t.Errorf("noscopes: %+v", st["noscopes"])
	}
	if unauthorized.Load() != 0 {
		t.Errorf("%d requests reached the server without the token", unauthorized.Load())
	}
}
