package setup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/codeassist"
)

// newAuthClient returns the Code Assist transport, signed in and
// onboarded, when the auth type in effect talks to Code Assist with Google
// credentials (oauth-personal, compute-default-credentials, cloud-shell),
// and ok=false for the others (API key, Vertex AI, gateway, none), which
// the Gemini API path handles. The auth type is chosen as headless Gemini
// CLI chooses it: security.auth.selectedType, else the environment,
// checked against security.auth.enforcedType.
//
// Gemini CLI's own sign-in is never used (Google's terms forbid other
// tools from reusing it): oauth-personal needs the user's own OAuth client
// (CASTOR_OAUTH_CLIENT_ID, or security.auth.oauthClient in settings) and
// the tokens `castor auth login` saved with it; compute-default-credentials
// uses Application Default Credentials.
//
// The client is not wrapped in model.WithRetry: the caller wraps it with
// the same options as the Gemini API client. Failures the user must fix
// (no own client, not signed in, revoked sign-in, project required) are
// *model.AuthError.
func newAuthClient(ctx context.Context, st *config.Settings, getenv func(string) string, home config.Home, version string) (model.Model, bool, error) {
	return newAuthClientWith(ctx, st, getenv, home, version, authHooks{})
}

// authSetupTimeout bounds the sign-in check and onboarding at startup,
// so an unreachable service fails the run instead of hanging it.
// Onboarding polls every five seconds and normally ends within a minute.
const authSetupTimeout = 5 * time.Minute

// authHooks are what tests replace: the clock of the token source (to
// expire a token mid-session), the onboarding poll interval, and the
// transport under the auth layer.
type authHooks struct {
	now          func() time.Time
	pollInterval time.Duration
	transport    http.RoundTripper
}

func newAuthClientWith(ctx context.Context, st *config.Settings, getenv func(string) string, home config.Home, version string, h authHooks) (model.Model, bool, error) {
	if st == nil {
		st = &config.Settings{}
	}
	sel, err := oauth.SelectAuthType(st.Security.Auth.SelectedType, st.Security.Auth.EnforcedType, getenv)
	if err != nil {
		return nil, false, &model.AuthError{Err: err}
	}
	if !sel.Type.CodeAssist() {
		return nil, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, authSetupTimeout)
	defer cancel()
	var tokenClient *http.Client
	if h.transport != nil {
		tokenClient = &http.Client{Transport: h.transport}
	}
	creds, err := oauth.Resolve(ctx, oauth.ResolveOptions{
		AuthType:   sel.Type,
		Getenv:     getenv,
		Store:      oauth.NewStore(home),
		Endpoints:  oauth.EndpointsFor(getenv, st),
		HTTPClient: tokenClient,
		Now:        h.now,
	})
	if errors.Is(err, oauth.ErrNoClient) {
		// Say which setting or variable asked for the sign-in, so the
		// user knows what to change.
		err = &model.AuthError{Err: fmt.Errorf("%s: %w", sel.Source, oauth.ErrNoClient)}
	}
	if err != nil {
		return nil, false, err
	}
	cfg := codeassist.ConfigFromEnv(getenv)
	cfg.HTTPClient = creds.Client(h.transport)
	cfg.Version = version
	m, err := codeassist.New(cfg)
	if err != nil {
		return nil, false, configErrorf("%v", err)
	}
	ud, err := m.Setup(ctx, codeassist.SetupOptions{
		ProjectID:    codeassist.ProjectFromEnv(getenv),
		PollInterval: h.pollInterval,
	})
	if err != nil {
		return nil, false, err
	}
	return m.WithProject(ud.ProjectID), true, nil
}
