// Package oauth signs Castor in with a Google account the way Gemini CLI
// does, and shares that sign-in with Gemini CLI: the same installed-app
// OAuth client, the same scopes, and the same credentials cache
// (~/.gemini/oauth_creds.json, google-auth-library's JSON shape, mode
// 0600).
//
// It provides the browser login (loopback redirect on 127.0.0.1 with PKCE)
// and the paste-the-code login for machines without a browser, a token
// source that refreshes silently and writes refreshed tokens back to the
// cache, and the resolution Gemini CLI performs for its Code Assist auth
// types: a raw GOOGLE_CLOUD_ACCESS_TOKEN, cached credentials,
// GOOGLE_APPLICATION_CREDENTIALS, and the compute metadata server.
//
// Credentials that can no longer be refreshed (a revoked or expired
// refresh token) are reported as a *model.AuthError, so the CLI exits 41
// and tells the user to sign in again with `castor auth login`.
package oauth

import (
	"runtime"
	"strings"

	"golang.org/x/oauth2"
)

// Gemini CLI's installed-app OAuth client (packages/core/src/code_assist/
// oauth2.ts). Google's installed-app flow embeds the client id and secret
// in the distributed program, so they are public; using the same client is
// what lets a Gemini CLI sign-in refresh in Castor and the reverse.
const (
	GeminiClientID     = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"
	GeminiClientSecret = "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"
)

// Google's endpoints.
const (
	GoogleAuthURL     = "https://accounts.google.com/o/oauth2/v2/auth"
	GoogleTokenURL    = "https://oauth2.googleapis.com/token"
	GoogleUserInfoURL = "https://www.googleapis.com/oauth2/v2/userinfo"
)

// Pages Gemini CLI sends the browser to after the loopback redirect, and
// the redirect of the paste-the-code flow, which shows the user the code.
const (
	SignInSuccessURL = "https://developers.google.com/gemini-code-assist/auth_success_gemini"
	SignInFailureURL = "https://developers.google.com/gemini-code-assist/auth_failure_gemini"
	UserCodeRedirect = "https://codeassist.google.com/authcode"
)

// Scopes are the scopes Gemini CLI asks for.
var Scopes = []string{
	"https://www.googleapis.com/auth/cloud-platform",
	"https://www.googleapis.com/auth/userinfo.email",
	"https://www.googleapis.com/auth/userinfo.profile",
}

// Environment variables read by this package. The CASTOR_OAUTH_* ones are
// Castor's own, so tests (and enterprise proxies) can point the sign-in at
// other endpoints; the others are Gemini CLI's.
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

// Endpoints is the OAuth client and the Google endpoints it talks to.
type Endpoints struct {
	ClientID, ClientSecret string
	AuthURL, TokenURL      string
	UserInfoURL            string
}

// DefaultEndpoints returns Gemini CLI's client and Google's endpoints.
func DefaultEndpoints() Endpoints {
	return Endpoints{
		ClientID:     GeminiClientID,
		ClientSecret: GeminiClientSecret,
		AuthURL:      GoogleAuthURL,
		TokenURL:     GoogleTokenURL,
		UserInfoURL:  GoogleUserInfoURL,
	}
}

// EndpointsFromEnv returns DefaultEndpoints with each CASTOR_OAUTH_*
// variable that is set replacing its field.
func EndpointsFromEnv(getenv func(string) string) Endpoints {
	e := DefaultEndpoints()
	for _, o := range []struct {
		env string
		dst *string
	}{
		{EnvClientID, &e.ClientID},
		{EnvClientSecret, &e.ClientSecret},
		{EnvAuthURL, &e.AuthURL},
		{EnvTokenURL, &e.TokenURL},
		{EnvUserInfoURL, &e.UserInfoURL},
	} {
		if v := strings.TrimSpace(getenv(o.env)); v != "" {
			*o.dst = v
		}
	}
	return e
}

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
