package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/castor-dev/castor/model"
)

// Kinds of resolved credentials.
const (
	KindAccessToken = "access-token" // GOOGLE_CLOUD_ACCESS_TOKEN
	KindSignIn      = "sign-in"      // castor_oauth_creds.json, from the user's own OAuth client
	KindADCFile     = "adc-file"     // an Application Default Credentials file
	KindMetadata    = "metadata"     // the compute metadata server
)

// ResolveOptions configures Resolve.
type ResolveOptions struct {
	// AuthType is the Code Assist auth type in effect.
	AuthType AuthType
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Store is Castor's credentials file (~/.gemini).
	Store *Store
	// Endpoints is the user's OAuth client and the token endpoint; zero
	// means EndpointsFromEnv(Getenv). Callers with settings pass
	// EndpointsFor(getenv, settings).
	Endpoints Endpoints
	// HTTPClient sends token requests; nil means a client with a one
	// minute timeout.
	HTTPClient *http.Client
	// Now is the clock of the token source; nil means time.Now.
	Now func() time.Time
}

// Resolved are credentials ready to authorize Code Assist calls.
type Resolved struct {
	// Source issues access tokens.
	Source oauth2.TokenSource
	// Kind says where they came from (Kind* constants); Path names the
	// file for KindSignIn and KindADCFile.
	Kind string
	Path string
}

// Client returns an HTTP client that authorizes its requests with r (see
// Transport); base sends them, nil meaning http.DefaultTransport.
func (r *Resolved) Client(base http.RoundTripper) *http.Client {
	return &http.Client{Transport: &Transport{Source: r.Source, Base: base}}
}

// Resolve finds credentials for a Code Assist auth type, checking them by
// obtaining a token. Gemini CLI's own sign-in is never used.
//
// With GOOGLE_GENAI_USE_GCA set, GOOGLE_CLOUD_ACCESS_TOKEN is used as is.
// Otherwise:
//
//   - oauth-personal needs the user's own OAuth client (ErrNoClient
//     without one), and uses the tokens `castor auth login` saved with it
//     in castor_oauth_creds.json, refreshing them when stale;
//   - compute-default-credentials (and cloud-shell) use Application
//     Default Credentials: the file GOOGLE_APPLICATION_CREDENTIALS names,
//     else the one `gcloud auth application-default login` writes, else
//     the compute metadata server (GCE_METADATA_HOST overrides its
//     address).
//
// Headless Castor never opens a browser. Failures the user must fix are
// *model.AuthError.
func Resolve(ctx context.Context, o ResolveOptions) (*Resolved, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if o.Endpoints == (Endpoints{}) {
		o.Endpoints = EndpointsFromEnv(getenv)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = tokenClient
	}
	if getenv(EnvUseGCA) != "" && getenv(EnvAccessToken) != "" {
		return &Resolved{Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: getenv(EnvAccessToken), TokenType: "Bearer"}), Kind: KindAccessToken}, nil
	}
	switch o.AuthType {
	case LoginWithGoogle:
		return resolveSignIn(ctx, o)
	case ComputeADC, CloudShell:
		return resolveADC(o, getenv)
	}
	return nil, fmt.Errorf("oauth: %q is not a Code Assist auth type", o.AuthType)
}

// resolveSignIn uses the tokens of the user's own OAuth client.
func resolveSignIn(ctx context.Context, o ResolveOptions) (*Resolved, error) {
	if !o.Endpoints.HasClient() {
		return nil, &model.AuthError{Err: ErrNoClient}
	}
	if o.Store == nil {
		return nil, &model.AuthError{Err: ErrNotSignedIn}
	}
	c, err := o.Store.Load()
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, &model.AuthError{Err: ErrNotSignedIn}
	case err != nil:
		return nil, &model.AuthError{Err: fmt.Errorf("%w; sign in again with `castor auth login`", err)}
	case c.IsADC():
		return nil, &model.AuthError{Err: fmt.Errorf("%s holds application default credentials, not a Castor sign-in; sign in again with `castor auth login`", o.Store.CredsPath())}
	case c.ClientID != "" && c.ClientID != o.Endpoints.ClientID:
		// The refresh token is bound to the client that obtained it.
		return nil, &model.AuthError{Err: fmt.Errorf("%s holds a sign-in for OAuth client %s, but %s names %s; sign in again with `castor auth login`", o.Store.CredsPath(), c.ClientID, o.Endpoints.ClientSource, o.Endpoints.ClientID)}
	}
	src := NewSource(c, SourceOptions{Endpoints: o.Endpoints, Store: o.Store, HTTPClient: o.HTTPClient, Now: o.Now})
	if _, err := src.TokenContext(ctx); err != nil {
		return nil, err
	}
	return &Resolved{Source: src, Kind: KindSignIn, Path: o.Store.CredsPath()}, nil
}

// resolveADC finds Application Default Credentials.
func resolveADC(o ResolveOptions, getenv func(string) string) (*Resolved, error) {
	path, fromEnv := getenv(EnvApplicationCredentials), true
	if path == "" {
		path, fromEnv = GcloudADCPath(getenv), false
	}
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			return adcFile(o, path, data)
		case fromEnv || !errors.Is(err, os.ErrNotExist):
			return nil, &model.AuthError{Err: fmt.Errorf("application default credentials: %w", err)}
		}
	}
	src := google.ComputeTokenSource("")
	if _, err := src.Token(); err != nil {
		return nil, &model.AuthError{Err: fmt.Errorf("no application default credentials: run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS, or run on Google Cloud (metadata server: %v)", err)}
	}
	return &Resolved{Source: src, Kind: KindMetadata}, nil
}

func adcFile(o ResolveOptions, path string, data []byte) (*Resolved, error) {
	c, err := ParseCredentials(data)
	if err == nil && !c.IsADC() {
		err = errors.New(`no "type": not an application default credentials file`)
	}
	var src oauth2.TokenSource
	if err == nil {
		src, err = adcSource(o.HTTPClient, c)
	}
	if err == nil {
		_, err = src.Token()
	}
	if err != nil {
		err = fmt.Errorf("application default credentials %s: %w", path, err)
		if !model.IsRetryable(err) {
			// Rejected rather than unreachable: the user must act.
			err = &model.AuthError{Err: err}
		}
		return nil, err
	}
	return &Resolved{Source: src, Kind: KindADCFile, Path: path}, nil
}

// GcloudADCPath returns where `gcloud auth application-default login`
// writes its credentials: CLOUDSDK_CONFIG, else %APPDATA%\gcloud on
// Windows and ~/.config/gcloud elsewhere. It is "" when no home is known.
func GcloudADCPath(getenv func(string) string) string {
	const f = "application_default_credentials.json"
	if d := getenv("CLOUDSDK_CONFIG"); d != "" {
		return filepath.Join(d, f)
	}
	if runtime.GOOS == "windows" {
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "gcloud", f)
		}
		return ""
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "gcloud", f)
}

// ErrNotSignedIn is the cause of the *model.AuthError Resolve returns when
// oauth-personal is selected, the user's OAuth client is configured, and
// no sign-in was saved with it yet.
var ErrNotSignedIn = errors.New("not signed in with Google: run `castor auth login` to sign in with your OAuth client")

// adcSource builds the token source for an Application Default
// Credentials file. The type was read from the file the user pointed us
// at, so passing it back as the expected type only guards against a
// file that changes under us.
func adcSource(hc *http.Client, c *Credentials) (oauth2.TokenSource, error) {
	// The source outlives this call: its refreshes get a background
	// context carrying our HTTP client.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
	creds, err := google.CredentialsFromJSONWithTypeAndParams(ctx, c.Raw, google.CredentialsType(c.Type), google.CredentialsParams{Scopes: Scopes})
	if err != nil {
		return nil, err
	}
	return creds.TokenSource, nil
}
