package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/tailscale/hujson"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/oauth"
)

// selectedTypeKey is the settings key of the chosen auth method.
const selectedTypeKey = "security.auth.selectedType"

// newAuthCommand is `castor auth`: sign in with Google, shared with Gemini
// CLI through ~/.gemini/oauth_creds.json.
func newAuthCommand(ctx context.Context, stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Sign in with Google (shared with Gemini CLI)",
		Args:  cobra.NoArgs,
	}
	var noBrowser bool
	login := &cobra.Command{
		Use:   "login",
		Short: "Sign in with your Google account",
		Long: "Sign in with your Google account and use the Gemini Code Assist tier it comes with.\n\n" +
			"A browser opens Google's sign-in page, which redirects back to Castor on 127.0.0.1. With --no-browser\n" +
			"(or NO_BROWSER=true, or no display), Castor prints a URL to open on any device and reads the code\n" +
			"Google shows there. The sign-in is cached in ~/.gemini/oauth_creds.json, where Gemini CLI finds it too.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return authLogin(ctx, stdio, os.Getenv, noBrowser)
		},
	}
	login.Flags().BoolVar(&noBrowser, "no-browser", false, "paste a code instead of opening a browser (same as NO_BROWSER=true)")
	status := &cobra.Command{
		Use:   "status",
		Short: "Show the auth method and the Google sign-in (fails when not signed in)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return authStatus(stdio, os.Getenv, time.Now())
		},
	}
	logout := &cobra.Command{
		Use:   "logout",
		Short: "Sign out: delete the cached Google credentials (Gemini CLI's too)",
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

func authLogin(ctx context.Context, stdio IO, getenv func(string) string, noBrowser bool) error {
	opts, err := oauth.LoginOptionsFromEnv(getenv)
	if err != nil {
		return err
	}
	opts.NoBrowser = opts.NoBrowser || noBrowser
	opts.In, opts.Out = stdio.Stdin, stdio.Stdout
	creds, err := oauth.Login(ctx, opts)
	if err != nil {
		return err
	}
	home := homeFor(getenv)
	store := oauth.NewStore(home)
	if err := store.Save(creds); err != nil {
		return fmt.Errorf("saving credentials: %w", err)
	}
	fmt.Fprintln(stdio.Stdout, "Authentication succeeded")
	email, err := oauth.FetchEmail(ctx, nil, opts.Endpoints.UserInfoURL, creds.AccessToken)
	if err == nil && email != "" {
		// Only for display (status, and Gemini CLI's own UI).
		_ = store.SetActiveAccount(email)
		fmt.Fprintf(stdio.Stdout, "Signed in as %s.\n", email)
	}
	// Gemini CLI's auth dialog records the choice the same way, so the
	// next run of either program uses the sign-in.
	if err := config.UpdateFile(home.SettingsPath(), selectedTypeKey, string(oauth.LoginWithGoogle)); err != nil {
		fmt.Fprintf(stdio.Stderr, "Warning: could not set %s in %s: %v\n", selectedTypeKey, home.SettingsPath(), err)
	}
	fmt.Fprintf(stdio.Stdout, "Credentials saved to %s (shared with Gemini CLI).\n", store.CredsPath())
	return nil
}

func authStatus(stdio IO, getenv func(string) string, now time.Time) error {
	home := homeFor(getenv)
	store := oauth.NewStore(home)
	out := stdio.Stdout

	wd, _ := os.Getwd()
	st, err := config.Load(config.LoadOptions{Workspace: wd, Env: func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}})
	if err != nil {
		st = &config.Settings{}
		fmt.Fprintf(stdio.Stderr, "Warning: %v\n", err)
	}
	sel, selErr := oauth.SelectAuthType(st.Security.Auth.SelectedType, st.Security.Auth.EnforcedType, getenv)
	switch {
	case selErr != nil:
		fmt.Fprintf(out, "Auth method: %v\n", selErr)
	case sel.Type == "":
		fmt.Fprintln(out, "Auth method: none configured")
	default:
		fmt.Fprintf(out, "Auth method: %s (from %s)\n", sel.Type, sel.Source)
	}

	creds, err := store.Load()
	switch {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintln(out, "Google sign-in: not signed in")
		return errors.New("not signed in with Google: run `castor auth login`")
	case err != nil:
		return err
	case creds.IsADC():
		fmt.Fprintf(out, "Google sign-in: application default credentials (%s)\n", creds.Type)
		fmt.Fprintf(out, "Credentials: %s\n", store.CredsPath())
		return nil
	}
	if account := store.ActiveAccount(); account != "" {
		fmt.Fprintf(out, "Google sign-in: signed in as %s\n", account)
	} else {
		fmt.Fprintln(out, "Google sign-in: signed in")
	}
	fmt.Fprintf(out, "Credentials: %s\n", store.CredsPath())
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

func authLogout(stdio IO, getenv func(string) string) error {
	home := homeFor(getenv)
	store := oauth.NewStore(home)
	removed, err := store.Remove()
	if err != nil {
		return err
	}
	if err := store.ClearActiveAccount(); err != nil {
		fmt.Fprintf(stdio.Stderr, "Warning: %v\n", err)
	}
	if err := clearSelectedType(home.SettingsPath()); err != nil {
		fmt.Fprintf(stdio.Stderr, "Warning: could not clear %s in %s: %v\n", selectedTypeKey, home.SettingsPath(), err)
	}
	if removed {
		fmt.Fprintf(stdio.Stdout, "Signed out: removed %s.\n", store.CredsPath())
	} else {
		fmt.Fprintln(stdio.Stdout, "Not signed in; nothing to remove.")
	}
	return nil
}

// clearSelectedType removes security.auth.selectedType from the user
// settings when it selects Sign in with Google, as Gemini CLI's
// /auth logout does, so the next run does not try a sign-in that is gone.
// Another choice (an API key, Vertex AI) is the user's and stays; comments
// and formatting of the file are kept.
func clearSelectedType(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return err
	}
	auth := v.Find("/security/auth")
	if auth == nil {
		return nil
	}
	obj, ok := auth.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	i := slices.IndexFunc(obj.Members, func(m hujson.ObjectMember) bool {
		name, _ := m.Name.Value.(hujson.Literal)
		return name.String() == "selectedType"
	})
	if i < 0 {
		return nil
	}
	if val, _ := obj.Members[i].Value.Value.(hujson.Literal); val.String() != string(oauth.LoginWithGoogle) {
		return nil
	}
	// The next member takes over the removed one's leading whitespace and
	// comments, so the file keeps its layout.
	before := obj.Members[i].Name.BeforeExtra
	obj.Members = slices.Delete(obj.Members, i, i+1)
	switch {
	case i < len(obj.Members):
		obj.Members[i].Name.BeforeExtra = before
	case i > 0:
		// A non-nil AfterExtra on the last value means a trailing comma,
		// which Gemini CLI's parser rejects.
		obj.Members[i-1].Value.AfterExtra = nil
	}
	// Written through a symlinked settings.json, keeping its mode, with a
	// unique temporary file so two runs cannot collide.
	return fsutil.WriteFileAtomic(path, v.Pack(), 0o644)
}
