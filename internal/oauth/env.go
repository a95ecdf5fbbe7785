// Package oauth provides the Google credentials Castor uses against the
// Code Assist endpoint, without borrowing Gemini CLI's sign-in.
//
// Gemini CLI's FAQ says third-party tools that reuse its OAuth sign-in
// break Google's terms, and their users get suspended. So Castor embeds no
// OAuth client and never reads or writes Gemini CLI's credentials cache.
// Code Assist is reached either through Application Default Credentials
// (a file named by GOOGLE_APPLICATION_CREDENTIALS, the one `gcloud auth
// application-default login` writes, or the compute metadata server), or
// through an OAuth client the user registered in their own Google Cloud
// project (CASTOR_OAUTH_CLIENT_ID / CASTOR_OAUTH_CLIENT_SECRET, or the
// settings security.auth.oauthClient.clientId / clientSecret). Tokens of
// such a sign-in live in Castor's own file, <gemini dir>/
// castor_oauth_creds.json, mode 0600.
//
// It provides the browser login (loopback redirect on 127.0.0.1 with
// PKCE) and the paste-the-redirect login for machines without a browser,
// and a token source that refreshes silently and writes refreshed tokens
// back to Castor's file.
//
// Credentials that can no longer be used (a revoked or expired refresh
// token, no OAuth client of the user's own) are reported as a
// *model.AuthError, so the CLI exits 41 and says what to do.
package oauth

import (
	"errors"
	"runtime"
	"strings"

	"golang.org/x/oauth2"

	"github.com/castor-dev/castor/config"
)

// Google's endpoints.
const (
	GoogleAuthURL     = "https://accounts.google.com/o/oauth2/v2/auth"
	GoogleTokenURL    = "https://oauth2.googleapis.com/token"
	GoogleUserInfoURL = "https://www.googleapis.com/oauth2/v2/userinfo"
)

// Scopes are the scopes the sign-in asks for: Code Assist needs
// cloud-platform, and the email names the account in `castor auth status`.
var Scopes = []string{
	"https://www.googleapis.com/auth/cloud-platform",
	"https://www.googleapis.com/auth/userinfo.email",
	"https://www.googleapis.com/auth/userinfo.profile",
}

// Environment variables read by this package. The CASTOR_OAUTH_* ones are
// Castor's own: the user's OAuth client, and endpoints tests (and
// enterprise proxies) can point elsewhere. The others are Gemini CLI's.
const (
	EnvClientID               = "CASTOR_OAUTH_CLIENT_ID"
	EnvClientSecret           = "CASTOR_OAUTH_CLIENT_SECRET"
	EnvAuthURL                = "CASTOR_OAUTH_AUTH_URL"
	EnvTokenURL               = "CASTOR_OAUTH_TOKEN_URL"
	EnvUserInfoURL            = "CASTOR_OAUTH_USERINFO_URL"
	EnvNoBrowser              = "NO_BROWSER"
	EnvCallbackHost           = "OAUTH_CALLBACK_HOST"
	EnvCallbackPort           = "OAUTH_CALLBACK_PORT"
	EnvUseGCA                 = "GOOGLE_GENAI_USE_GCA"
	EnvAccessToken            = "GOOGLE_CLOUD_ACCESS_TOKEN"
	EnvApplicationCredentials = "GOOGLE_APPLICATION_CREDENTIALS"
)

// Settings keys naming the user's own OAuth client; the environment
// variables EnvClientID and EnvClientSecret take precedence.
const (
	SettingClientID     = "security.auth.oauthClient.clientId"
	SettingClientSecret = "security.auth.oauthClient.clientSecret"
)

// Endpoints is the OAuth client and the Google endpoints it talks to.
type Endpoints struct {
	ClientID, ClientSecret string
	AuthURL, TokenURL      string
	UserInfoURL            string
	// ClientSource says where the client came from: EnvClientID, a
	// settings key, or "" when there is none.
	ClientSource string
}

// HasClient reports whether the user configured an OAuth client of their
// own; without one there is nothing to sign in or refresh with.
func (e Endpoints) HasClient() bool { return e.ClientID != "" }

// DefaultEndpoints returns Google's endpoints and no client: Castor has no
// OAuth client of its own to embed.
func DefaultEndpoints() Endpoints {
	return Endpoints{
		AuthURL:     GoogleAuthURL,
		TokenURL:    GoogleTokenURL,
		UserInfoURL: GoogleUserInfoURL,
	}
}

// EndpointsFromEnv returns DefaultEndpoints with each CASTOR_OAUTH_*
// variable that is set replacing its field.
func EndpointsFromEnv(getenv func(string) string) Endpoints {
	return EndpointsFor(getenv, nil)
}

// EndpointsFor is EndpointsFromEnv with the client taken from settings
// (SettingClientID, SettingClientSecret) when CASTOR_OAUTH_CLIENT_ID is
// not set. The id and secret come from the same place, so a secret in the
// environment never pairs with an id from settings. st may be nil.
func EndpointsFor(getenv func(string) string, st *config.Settings) Endpoints {
	e := DefaultEndpoints()
	for _, o := range []struct {
		env string
		dst *string
	}{
		{EnvAuthURL, &e.AuthURL},
		{EnvTokenURL, &e.TokenURL},
		{EnvUserInfoURL, &e.UserInfoURL},
	} {
		if v := strings.TrimSpace(getenv(o.env)); v != "" {
			*o.dst = v
		}
	}
	if id := strings.TrimSpace(getenv(EnvClientID)); id != "" {
		e.ClientID, e.ClientSecret, e.ClientSource = id, strings.TrimSpace(getenv(EnvClientSecret)), EnvClientID
		return e
	}
	if id, _ := st.GetString(SettingClientID); strings.TrimSpace(id) != "" {
		secret, _ := st.GetString(SettingClientSecret)
		e.ClientID, e.ClientSecret, e.ClientSource = strings.TrimSpace(id), strings.TrimSpace(secret), SettingClientID
	}
	return e
}

// ErrNoClient is the cause of the *model.AuthError returned when Sign in
// with Google (oauth-personal) is selected but the user has no OAuth
// client of their own. It is one line, as the CLI prints it.
var ErrNoClient = errors.New("oauth-personal (Sign in with Google) needs an OAuth client of your own: " +
	"Gemini CLI's sign-in cannot be reused by third-party tools under Google's terms; " +
	"use GEMINI_API_KEY, Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true), " +
	"Application Default Credentials (`gcloud auth application-default login` and security.auth.selectedType \"compute-default-credentials\"), " +
	"or set CASTOR_OAUTH_CLIENT_ID and CASTOR_OAUTH_CLIENT_SECRET to your own OAuth client and run `castor auth login`")

// Config returns the oauth2 configuration for e with redirect as the
// redirect URI.
func (e Endpoints) Config(redirect string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     e.ClientID,
		ClientSecret: e.ClientSecret,
		Endpoint: oauth2.Endpoint{
			AuthURL:  e.AuthURL,
			TokenURL: e.TokenURL,
			// Google takes the client in the form body; saying so spares
			// oauth2 a failed probe with basic auth on every new endpoint.
			AuthStyle: oauth2.AuthStyleInParams,
		},
		RedirectURL: redirect,
		Scopes:      Scopes,
	}
}

// BrowserSuppressed reports whether Gemini CLI would skip the browser and
// use the paste-the-code flow: NO_BROWSER set, a BROWSER known not to be
// graphical, CI, or no display (Linux without DISPLAY, WAYLAND_DISPLAY or
// MIR_SOCKET; any other OS over SSH). goos is runtime.GOOS in production.
func BrowserSuppressed(getenv func(string) string, goos string) bool {
	if getenv(EnvNoBrowser) != "" {
		return true
	}
	if getenv("BROWSER") == "www-browser" || getenv("CI") != "" || getenv("DEBIAN_FRONTEND") == "noninteractive" {
		return true
	}
	if goos == "linux" {
		return getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" && getenv("MIR_SOCKET") == ""
	}
	return getenv("SSH_CONNECTION") != ""
}

// browserSuppressed is BrowserSuppressed for this machine.
func browserSuppressed(getenv func(string) string) bool {
	return BrowserSuppressed(getenv, runtime.GOOS)
}
