package oauth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
)

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A credentials file written by Gemini CLI is read, refreshed once its
// token has expired, and written back in the same shape.
func TestResolveRefreshesGeminiCLIFile(t *testing.T) {
	o := startOAuth(t)
	geminiFile := readTestdata(t, "gemini_cli_oauth_creds.json")
	gc, err := ParseCredentials(geminiFile)
	if err != nil {
		t.Fatal(err)
	}
	o.AddRefreshToken(gc.RefreshToken)
	store := &Store{Dir: filepath.Join(t.TempDir(), ".gemini")}
	writeFile(t, store.CredsPath(), geminiFile)

	res, err := Resolve(context.Background(), ResolveOptions{AuthType: LoginWithGoogle, Getenv: envFunc(nil), Store: store, Endpoints: fakeEndpoints(o)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindSignIn || res.Path != store.CredsPath() {
		t.Errorf("resolved %s %s", res.Kind, res.Path)
	}
	tok, err := res.Source.Token()
	if err != nil || !o.Issued(tok.AccessToken) {
		t.Fatalf("token %v %v", tok, err)
	}
	if n := o.Grants("refresh_token"); n != 1 {
		t.Errorf("%d refreshes", n)
	}
	for _, r := range o.Requests() {
		if r.Path == fakegemini.OAuthTokenPath && r.Form.Get("refresh_token") != gc.RefreshToken {
			t.Errorf("refreshed with %q", r.Form.Get("refresh_token"))
		}
	}
	written, err := os.ReadFile(store.CredsPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := sameShape(written, geminiFile); err != nil {
		t.Errorf("%v\n%s", err, written)
	}
	back, err := ParseCredentials(written)
	if err != nil || back.AccessToken != tok.AccessToken || back.RefreshToken != gc.RefreshToken || !back.Expiry.After(time.Now()) {
		t.Errorf("written %+v %v", back, err)
	}
	if fi, _ := os.Stat(store.CredsPath()); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestResolve(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))

	tests := []struct {
		name     string
		authType AuthType
		creds    string // oauth_creds.json, "" for none
		adc      func(tokenURL string) any
		env      map[string]string
		revoke   bool
		wantKind string
		wantErr  string
		wantAuth bool
	}{
		{name: "raw access token", env: map[string]string{"GOOGLE_GENAI_USE_GCA": "true", "GOOGLE_CLOUD_ACCESS_TOKEN": "ya29.raw"}, creds: `{"refresh_token":"rt"}`, wantKind: KindAccessToken},
		{name: "access token needs GCA", env: map[string]string{"GOOGLE_CLOUD_ACCESS_TOKEN": "ya29.raw"}, wantErr: "not signed in", wantAuth: true},
		{name: "cached sign-in", creds: `{"access_token":"a","refresh_token":"rt","expiry_date":1}`, wantKind: KindSignIn},
		{name: "not signed in", wantErr: "not signed in with Google: run `castor auth login`", wantAuth: true},
		{name: "revoked", creds: `{"refresh_token":"rt"}`, revoke: true, wantErr: "sign in again with `castor auth login`", wantAuth: true},
		{name: "corrupt file", creds: `{"access_token":`, wantErr: "sign in again with `castor auth login`", wantAuth: true},
		{
			name: "gcloud user credentials",
			adc: func(tokenURL string) any {
				return map[string]string{"type": "authorized_user", "client_id": "gcloud-client", "client_secret": "s", "refresh_token": "rt", "token_uri": tokenURL}
			},
			wantKind: KindADCFile,
		},
		{
			name: "service account",
			adc: func(tokenURL string) any {
				return map[string]string{"type": "service_account", "client_email": "castor@proj.iam.gserviceaccount.com", "private_key": keyPEM, "private_key_id": "k1", "token_uri": tokenURL, "project_id": "proj"}
			},
			wantKind: KindADCFile,
		},
		{
			name:  "revoked sign-in falls back to the ADC file",
			creds: `{"refresh_token":"gone"}`,
			adc: func(tokenURL string) any {
				return map[string]string{"type": "authorized_user", "client_id": "c", "refresh_token": "rt", "token_uri": tokenURL}
			},
			wantKind: KindADCFile,
		},
		{
			name:     "unsupported ADC type",
			adc:      func(string) any { return map[string]string{"type": "magic"} },
			wantErr:  "application default credentials",
			wantAuth: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fakegemini.StartOAuth(t)
			o.AddRefreshToken("rt")
			if tt.revoke {
				o.Revoke("rt")
			}
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			store := &Store{Dir: filepath.Join(t.TempDir(), ".gemini")}
			if tt.creds != "" {
				writeFile(t, store.CredsPath(), []byte(tt.creds))
			}
			if tt.adc != nil {
				b, _ := json.Marshal(tt.adc(o.TokenURL()))
				p := filepath.Join(t.TempDir(), "adc.json")
				writeFile(t, p, b)
				env[EnvApplicationCredentials] = p
			}
			authType := tt.authType
			if authType == "" {
				authType = LoginWithGoogle
			}
			res, err := Resolve(context.Background(), ResolveOptions{AuthType: authType, Getenv: envFunc(env), Store: store, Endpoints: fakeEndpoints(o)})
			if tt.wantErr != "" {
				var ae *model.AuthError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &ae) != tt.wantAuth {
					t.Fatalf("err = %v, want %q (auth error %v)", err, tt.wantErr, tt.wantAuth)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tt.wantKind {
				t.Errorf("kind = %s, want %s", res.Kind, tt.wantKind)
			}
			tok, err := res.Source.Token()
			if err != nil || tok.AccessToken == "" {
				t.Fatalf("token %v %v", tok, err)
			}
			if tt.wantKind != KindAccessToken && tt.wantKind != KindSignIn && !o.Issued(tok.AccessToken) {
				t.Errorf("token %q not from the fake", tok.AccessToken)
			}
		})
	}
}

// compute-default-credentials uses the metadata server when nothing is
// cached; GCE_METADATA_HOST points it at the fake. (The metadata client
// reads the process environment, so this test cannot run in parallel.)
func TestResolveMetadataServer(t *testing.T) {
	o := fakegemini.StartOAuth(t)
	t.Setenv("GCE_METADATA_HOST", o.MetadataHost())
	store := &Store{Dir: t.TempDir()}
	res, err := Resolve(context.Background(), ResolveOptions{AuthType: ComputeADC, Getenv: envFunc(nil), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := res.Source.Token()
	if res.Kind != KindMetadata || err != nil || !strings.HasPrefix(tok.AccessToken, "ya29.fake-metadata-") {
		t.Fatalf("%s %v %v", res.Kind, tok, err)
	}
	var sawFlavor bool
	for _, r := range o.Requests() {
		if r.Path == fakegemini.MetadataTokenPath && r.Header.Get("Metadata-Flavor") == "Google" {
			sawFlavor = true
		}
	}
	if !sawFlavor {
		t.Error("no metadata token request")
	}
	// Sign in with Google never asks the metadata server.
	if _, err := Resolve(context.Background(), ResolveOptions{AuthType: LoginWithGoogle, Getenv: envFunc(nil), Store: store}); !errors.Is(err, ErrNotSignedIn) {
		t.Errorf("oauth-personal without sign-in: %v", err)
	}
}
