package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/castor-dev/castor/model"
)

// Kinds of resolved credentials.
const (
	KindAccessToken = "access-token" // GOOGLE_CLOUD_ACCESS_TOKEN
	KindSignIn      = "sign-in"      // oauth_creds.json from a Google sign-in
	KindADCFile     = "adc-file"     // an Application Default Credentials file
	KindMetadata    = "metadata"     // the compute metadata server
)

// ResolveOptions configures Resolve.
type ResolveOptions struct {
	// AuthType is the Code Assist auth type in effect.
	AuthType AuthType
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Store is the credentials cache (~/.gemini).
	Store *Store
	// Endpoints refresh signed-in credentials; zero means
	// EndpointsFromEnv(Getenv).
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

// Resolve finds credentials for a Code Assist auth type in Gemini CLI's
// order, checking each by obtaining a token:
//
//  1. GOOGLE_CLOUD_ACCESS_TOKEN, used as is, when GOOGLE_GENAI_USE_GCA is set;
//  2. the cached sign-in, ~/.gemini/oauth_creds.json (refreshed if stale);
//  3. the file named by GOOGLE_APPLICATION_CREDENTIALS;
//  4. for compute-default-credentials (and cloud-shell), the compute
//     metadata server (GCE_METADATA_HOST overrides its address).
//
// Headless Castor never opens a browser: when nothing works the error
// says to run `castor auth login`. Failures that a new sign-in fixes are
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

	var lastErr error
	type candidate struct {
		path  string
		creds *Credentials
		store *Store
	}
	var candidates []candidate
	if o.Store != nil {
		c, err := o.Store.Load()
		switch {
		case err == nil:
			candidates = append(candidates, candidate{o.Store.CredsPath(), c, o.Store})
		case !errors.Is(err, os.ErrNotExist):
			lastErr = &model.AuthError{Err: fmt.Errorf("%w; sign in again with `castor auth login`", err)}
		}
	}
	if p := getenv(EnvApplicationCredentials); p != "" {
		data, err := os.ReadFile(p)
		if err == nil {
			var c *Credentials
			if c, err = ParseCredentials(data); err == nil {
				// Never written back: the user owns that file.
				candidates = append(candidates, candidate{p, c, nil})
			}
		}
		if err != nil {
			lastErr = &model.AuthError{Err: fmt.Errorf("%s: %w", EnvApplicationCredentials, err)}
		}
	}
	for _, cand := range candidates {
		if cand.creds.IsADC() {
			src, err := adcSource(o.HTTPClient, cand.creds)
			if err == nil {
				_, err = src.Token()
			}
			if err == nil {
				return &Resolved{Source: src, Kind: KindADCFile, Path: cand.path}, nil
			}
			lastErr = fmt.Errorf("application default credentials %s: %w", cand.path, err)
			if !model.IsRetryable(err) {
				// Rejected rather than unreachable: the user must act.
				lastErr = &model.AuthError{Err: lastErr}
			}
			continue
		}
		src := NewSource(cand.creds, SourceOptions{Endpoints: o.Endpoints, Store: cand.store, HTTPClient: o.HTTPClient, Now: o.Now})
		if _, err := src.TokenContext(ctx); err != nil {
			lastErr = err
			continue
		}
		return &Resolved{Source: src, Kind: KindSignIn, Path: cand.path}, nil
	}

	if o.AuthType == ComputeADC || o.AuthType == CloudShell {
		src := google.ComputeTokenSource("")
		if _, err := src.Token(); err != nil {
			return nil, &model.AuthError{Err: fmt.Errorf("Could not authenticate using metadata server application default credentials. Please select a different authentication method or ensure you are in a properly configured environment. Error: %w", err)}
		}
		return &Resolved{Source: src, Kind: KindMetadata}, nil
	}
	if lastErr != nil {
		return nil, lastErr
	}
	return nil, &model.AuthError{Err: ErrNotSignedIn}
}

// ErrNotSignedIn is the cause of the *model.AuthError Resolve returns when
// no Google credentials exist.
var ErrNotSignedIn = errors.New("not signed in with Google: run `castor auth login` to sign in, provide a GEMINI_API_KEY, or ensure Application Default Credentials are configured")

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
