package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/model"
)

// selectedTypeKey is the settings key of the chosen auth method.
const selectedTypeKey = "security.auth.selectedType"

// newAuthCommand is `castor auth`: sign in with Google through the user's
// own OAuth client, and report which credentials Castor uses. Gemini CLI's
// sign-in is never reused: Google's terms forbid other tools to.
func newAuthCommand(ctx context.Context, stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Sign in with Google through your own OAuth client, and show the auth method in use",
		Args:  cobra.NoArgs,
	}
	var noBrowser bool
	login := &cobra.Command{
		Use:   "login",
		Short: "Sign in with your Google account through your own OAuth client",
		Long: "Sign in with your Google account and use the Gemini Code Assist tier it comes with.\n\n" +
			"Gemini CLI's sign-in cannot be reused by third-party tools under Google's terms, so this needs an\n" +
			"OAuth client of your own: create one of type \"Desktop app\" in your Google Cloud project and set\n" +
			"CASTOR_OAUTH_CLIENT_ID and CASTOR_OAUTH_CLIENT_SECRET (or security.auth.oauthClient.clientId and\n" +
			"clientSecret in settings). Without one, use GEMINI_API_KEY, Vertex AI, or Application Default\n" +
			"Credentials (`gcloud auth application-default login` with compute-default-credentials).\n\n" +
			"A browser opens Google's sign-in page, which redirects back to Castor on 127.0.0.1 (PKCE). With\n" +
			"--no-browser (or NO_BROWSER=true, or no display), Castor prints a URL to open on any device and reads\n" +
			"back the address the browser was sent to. The tokens are saved in ~/.gemini/" + oauth.CredsFileName + "\n" +
			"(mode 0600), Castor's own file.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return authLogin(ctx, stdio, os.Getenv, noBrowser)
		},
	}
	login.Flags().BoolVar(&noBrowser, "no-browser", false, "paste the redirected address instead of opening a browser (same as NO_BROWSER=true)")
	status := &cobra.Command{
		Use:   "status",
		Short: "Show which credentials Castor uses (fails when the selected method cannot work)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return authStatus(stdio, os.Getenv, time.Now())
		},
	}
	logout := &cobra.Command{
		Use:   "logout",
		Short: "Sign out: delete Castor's saved Google tokens",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return authLogout(stdio, os.Getenv)
		},
	}
	cmd.AddCommand(login, status, logout)
	return cmd
}

func homeFor(getenv func(string) string) config.Home {
	return config.ResolveHome(func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
}

// loadAuthSettings loads the settings of the current directory; a broken
// file is reported and treated as empty, so auth commands still work.
func loadAuthSettings(stdio IO, getenv func(string) string) *config.Settings {
	wd, _ := os.Getwd()
	st, err := config.Load(config.LoadOptions{Workspace: wd, Env: func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}})
	if err != nil {
		fmt.Fprintf(stdio.Stderr, "Warning: %v\n", err)
		return &config.Settings{}
	}
	return st
}

func authLogin(ctx context.Context, stdio IO, getenv func(string) string, noBrowser bool) error {
	opts, err := oauth.LoginOptionsFromEnv(getenv, loadAuthSettings(stdio, getenv))
	if err != nil {
		return err
	}
	opts.NoBrowser = opts.NoBrowser || noBrowser
	opts.In, opts.Out = stdio.Stdin, stdio.Stdout
	creds, err := oauth.Login(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdio.Stdout, "Authentication succeeded")
	if email, err := oauth.FetchEmail(ctx, nil, opts.Endpoints.UserInfoURL, creds.AccessToken); err == nil && email != "" {
		// Only for display, by `castor auth status`.
		creds.Account = email
		fmt.Fprintf(stdio.Stdout, "Signed in as %s.\n", email)
	}
	home := homeFor(getenv)
	store := oauth.NewStore(home)
	if err := store.Save(creds); err != nil {
		return fmt.Errorf("saving credentials: %w", err)
	}
	// Recorded as Gemini CLI's auth dialog records the choice, so the next
	// run signs in without GOOGLE_GENAI_USE_GCA.
	if err := config.UpdateFile(home.SettingsPath(), selectedTypeKey, string(oauth.LoginWithGoogle)); err != nil {
		fmt.Fprintf(stdio.Stderr, "Warning: could not set %s in %s: %v\n", selectedTypeKey, home.SettingsPath(), err)
	}
	fmt.Fprintf(stdio.Stdout, "Tokens saved to %s (Castor's own file, for OAuth client %s from %s).\n", store.CredsPath(), opts.Endpoints.ClientID, opts.Endpoints.ClientSource)
	return nil
}

// authStatus says which of Castor's authentication paths is in effect and
// where its credentials come from, without contacting anything. It fails
// when the selected path cannot work.
func authStatus(stdio IO, getenv func(string) string, now time.Time) error {
	out := stdio.Stdout
	st := loadAuthSettings(stdio, getenv)
	sel, err := oauth.SelectAuthType(st.Security.Auth.SelectedType, st.Security.Auth.EnforcedType, getenv)
	if err != nil {
		fmt.Fprintf(out, "Auth method: %v\n", err)
		return &model.AuthError{Err: err}
	}
	if sel.Type == "" {
		fmt.Fprintln(out, "Auth method: none selected")
	} else {
		fmt.Fprintf(out, "Auth method: %s (from %s)\n", sel.Type, sel.Source)
	}
	if sel.Type.CodeAssist() && getenv(oauth.EnvUseGCA) != "" && getenv(oauth.EnvAccessToken) != "" {
		fmt.Fprintf(out, "Using: Code Assist with the access token in %s\n", oauth.EnvAccessToken)
		return nil
	}
	switch sel.Type {
	case oauth.LoginWithGoogle:
		return ownClientStatus(out, getenv, st, sel, now)
	case oauth.ComputeADC, oauth.CloudShell:
		adcStatus(out, getenv)
		return nil
	case oauth.Gateway:
		fmt.Fprintf(out, "Using: Gemini API through GOOGLE_GEMINI_BASE_URL (%s)\n", getenv("GOOGLE_GEMINI_BASE_URL"))
		return nil
	}
	return geminiAPIStatus(out, getenv)
}

// geminiAPIStatus describes the Gemini API and Vertex AI paths as
// model/gemini.ConfigFromEnv chooses between them.
func geminiAPIStatus(out io.Writer, getenv func(string) string) error {
	firstSet := func(keys ...string) string {
		for _, k := range keys {
			if strings.TrimSpace(getenv(k)) != "" {
				return k
			}
		}
		return ""
	}
	if v := strings.ToLower(strings.TrimSpace(getenv("GOOGLE_GENAI_USE_VERTEXAI"))); v == "true" || v == "1" {
		if getenv("GOOGLE_API_KEY") != "" {
			fmt.Fprintln(out, "Using: Vertex AI with an API key (GOOGLE_API_KEY)")
			return nil
		}
		project := getenv("GOOGLE_CLOUD_PROJECT")
		if project == "" {
			project = getenv("GOOGLE_CLOUD_PROJECT_ID")
		}
		fmt.Fprintf(out, "Using: Vertex AI with Application Default Credentials (project %q, location %q)\n", project, getenv("GOOGLE_CLOUD_LOCATION"))
		if project == "" || getenv("GOOGLE_CLOUD_LOCATION") == "" {
			fmt.Fprintln(out, "Note: Vertex AI with ADC needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
		}
		return nil
	}
	if k := firstSet("GEMINI_API_KEY", "GOOGLE_API_KEY"); k != "" {
		fmt.Fprintf(out, "Using: Gemini API with an API key (%s)\n", k)
		return nil
	}
	fmt.Fprintln(out, "Using: nothing")
	return &model.AuthError{Err: errors.New("no credentials: set GEMINI_API_KEY, use Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true), Application Default Credentials (`gcloud auth application-default login` with compute-default-credentials), or your own OAuth client (CASTOR_OAUTH_CLIENT_ID and `castor auth login`)")}
}

// adcStatus names the Application Default Credentials Resolve would pick.
func adcStatus(out io.Writer, getenv func(string) string) {
	if p := getenv(oauth.EnvApplicationCredentials); p != "" {
		fmt.Fprintf(out, "Using: Code Assist via Application Default Credentials from %s (%s)\n", oauth.EnvApplicationCredentials, p)
		return
	}
	if p := oauth.GcloudADCPath(getenv); p != "" {
		if _, err := os.Stat(p); err == nil {
			fmt.Fprintf(out, "Using: Code Assist via Application Default Credentials from gcloud (%s)\n", p)
			return
		}
	}
	host := getenv("GCE_METADATA_HOST")
	if host == "" {
		host = "metadata.google.internal"
	}
	fmt.Fprintf(out, "Using: Code Assist via Application Default Credentials from the metadata server (%s); without one, run `gcloud auth application-default login`\n", host)
}

// ownClientStatus describes the sign-in through the user's own client.
func ownClientStatus(out io.Writer, getenv func(string) string, st *config.Settings, sel oauth.Selection, now time.Time) error {
	ep := oauth.EndpointsFor(getenv, st)
	if !ep.HasClient() {
		fmt.Fprintln(out, "Using: nothing")
		return &model.AuthError{Err: fmt.Errorf("%s: %w", sel.Source, oauth.ErrNoClient)}
	}
	fmt.Fprintf(out, "Using: Code Assist via your own OAuth client %s (from %s)\n", ep.ClientID, ep.ClientSource)
	store := oauth.NewStore(homeFor(getenv))
	fmt.Fprintf(out, "Tokens: %s\n", store.CredsPath())
	creds, err := store.Load()
	switch {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintln(out, "Google sign-in: not signed in")
		return &model.AuthError{Err: oauth.ErrNotSignedIn}
	case err != nil:
		return &model.AuthError{Err: fmt.Errorf("%w; sign in again with `castor auth login`", err)}
	case creds.IsADC():
		return &model.AuthError{Err: fmt.Errorf("%s holds application default credentials, not a Castor sign-in; sign in again with `castor auth login`", store.CredsPath())}
	case creds.ClientID != "" && creds.ClientID != ep.ClientID:
		fmt.Fprintf(out, "Google sign-in: made with OAuth client %s, not %s\n", creds.ClientID, ep.ClientID)
		return &model.AuthError{Err: errors.New("the saved sign-in belongs to another OAuth client: sign in again with `castor auth login`")}
	}
	if creds.Account != "" {
		fmt.Fprintf(out, "Google sign-in: signed in as %s\n", creds.Account)
	} else {
		fmt.Fprintln(out, "Google sign-in: signed in")
	}
	switch {
	case creds.AccessToken == "":
		fmt.Fprintln(out, "Access token: none; one is fetched on next use")
	case creds.Expiry.IsZero():
		fmt.Fprintln(out, "Access token: no expiry recorded")
	case now.Before(creds.Expiry):
		fmt.Fprintf(out, "Access token: valid for %s more\n", creds.Expiry.Sub(now).Round(time.Minute))
	default:
		fmt.Fprintln(out, "Access token: expired; refreshed on next use")
	}
	if creds.RefreshToken == "" {
		fmt.Fprintln(out, "Refresh token: missing; sign in again when the access token expires")
	} else {
		fmt.Fprintln(out, "Refresh token: present")
	}
	return nil
}

// authLogout deletes Castor's tokens. The auth method in settings.json is
// left alone: that file is Gemini CLI's too, and its sign-in is its own.
func authLogout(stdio IO, getenv func(string) string) error {
	store := oauth.NewStore(homeFor(getenv))
	removed, err := store.Remove()
	if err != nil {
		return err
	}
	if removed {
		fmt.Fprintf(stdio.Stdout, "Signed out: removed %s.\n", store.CredsPath())
	} else {
		fmt.Fprintln(stdio.Stdout, "Not signed in; nothing to remove.")
	}
	return nil
}
