package oauth

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// DefaultLoginTimeout is how long a login waits for the user, as in
// Gemini CLI.
const DefaultLoginTimeout = 5 * time.Minute

// callbackPath is the loopback redirect's path, as in Gemini CLI.
const callbackPath = "/oauth2callback"

// LoginOptions configures Login.
type LoginOptions struct {
	// Endpoints is the OAuth client and Google endpoints.
	Endpoints Endpoints
	// NoBrowser selects the paste-the-code flow: the user opens the URL on
	// any device and pastes the code shown back into In.
	NoBrowser bool
	// CallbackHost is the address the loopback server listens on
	// (OAUTH_CALLBACK_HOST, e.g. 0.0.0.0 inside a container whose port is
	// published); default 127.0.0.1. The redirect URI always names
	// 127.0.0.1, as Google requires of installed apps.
	CallbackHost string
	// CallbackPort is the loopback port (OAUTH_CALLBACK_PORT); 0 picks a
	// free one.
	CallbackPort int
	// OpenBrowser opens a URL; nil means OpenURL.
	OpenBrowser func(url string) error
	// In is where the paste flow reads the code from; Out receives the
	// instructions for the user.
	In  io.Reader
	Out io.Writer
	// HTTPClient sends token requests; nil means a client with a one
	// minute timeout.
	HTTPClient *http.Client
	// Timeout bounds the wait for the user (default DefaultLoginTimeout).
	Timeout time.Duration
}

// LoginOptionsFromEnv reads Endpoints (EndpointsFromEnv), NoBrowser
// (BrowserSuppressed), OAUTH_CALLBACK_HOST and OAUTH_CALLBACK_PORT.
func LoginOptionsFromEnv(getenv func(string) string) (LoginOptions, error) {
	o := LoginOptions{
		Endpoints:    EndpointsFromEnv(getenv),
		NoBrowser:    browserSuppressed(getenv),
		CallbackHost: strings.TrimSpace(getenv(EnvCallbackHost)),
	}
	if p := strings.TrimSpace(getenv(EnvCallbackPort)); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return LoginOptions{}, fmt.Errorf("Invalid value for OAUTH_CALLBACK_PORT: %q", p)
		}
		o.CallbackPort = n
	}
	return o, nil
}

// Login signs the user in and returns the new credentials; saving them is
// the caller's business. The browser flow redirects to a server on
// 127.0.0.1 and uses PKCE and a random state; the paste flow uses PKCE
// with Gemini CLI's code-display page as redirect. Error texts are Gemini
// CLI's.
func Login(ctx context.Context, o LoginOptions) (*Credentials, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultLoginTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = tokenClient
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if o.NoBrowser {
		return loginWithCode(ctx, o)
	}
	return loginWithBrowser(ctx, o)
}

// randomState returns 32 random bytes in hex, Gemini CLI's state.
func randomState() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

func exchange(ctx context.Context, o LoginOptions, cfg *oauth2.Config, code, verifier string) (*Credentials, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		// Without one the sign-in dies with the access token in an hour.
		return nil, errors.New("the token endpoint returned no refresh token")
	}
	return credentialsFromToken(tok), nil
}

// timeoutError explains why ctx ended.
func timeoutError(ctx context.Context, timeout string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errors.New(timeout)
	}
	return fmt.Errorf("Authentication cancelled by user: %w", ctx.Err())
}

func loginWithBrowser(ctx context.Context, o LoginOptions) (*Credentials, error) {
	host := o.CallbackHost
	if host == "" {
		host = "127.0.0.1"
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(o.CallbackPort)))
	if err != nil {
		return nil, fmt.Errorf("OAuth callback server error: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if o.CallbackPort != 0 {
		port = o.CallbackPort
	}
	cfg := o.Endpoints.Config(fmt.Sprintf("http://127.0.0.1:%d%s", port, callbackPath))
	state := randomState()
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier))

	type result struct {
		creds *Credentials
		err   error
	}
	done := make(chan result, 1)
	var once sync.Once
	finish := func(c *Credentials, err error) { once.Do(func() { done <- result{c, err} }) }
	mux := http.NewServeMux()
	mux.HandleFunc(callbackPath, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case q.Get("error") != "":
			desc := q.Get("error_description")
			if desc == "" {
				desc = "No additional details provided"
			}
			http.Redirect(w, r, SignInFailureURL, http.StatusMovedPermanently)
			finish(nil, fmt.Errorf("Google OAuth error: %s. %s", q.Get("error"), desc))
		case q.Get("state") != state:
			// Not finished: a stray or forged request must not end a login
			// the user is still completing.
			http.Error(w, "State mismatch. Possible CSRF attack", http.StatusBadRequest)
		case q.Get("code") == "":
			http.Redirect(w, r, SignInFailureURL, http.StatusMovedPermanently)
			finish(nil, errors.New("No authorization code received from Google OAuth. Please try authenticating again."))
		default:
			creds, err := exchange(r.Context(), o, cfg, q.Get("code"), verifier)
			if err != nil {
				http.Redirect(w, r, SignInFailureURL, http.StatusMovedPermanently)
				finish(nil, fmt.Errorf("Failed to exchange authorization code for tokens: %w", err))
				return
			}
			http.Redirect(w, r, SignInSuccessURL, http.StatusMovedPermanently)
			finish(creds, nil)
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(l)
	defer func() {
		// Let the success redirect reach the browser before closing.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	fmt.Fprintf(o.Out, "\nAttempting to open authentication page in your browser.\nOtherwise navigate to:\n\n%s\n\n\n", authURL)
	open := o.OpenBrowser
	if open == nil {
		open = OpenURL
	}
	if err := open(authURL); err != nil {
		fmt.Fprintf(o.Out, "Failed to open browser with error: %v\nPlease try running again with NO_BROWSER=true set.\n", err)
	}
	fmt.Fprintln(o.Out, "Waiting for authentication...")
	select {
	case res := <-done:
		return res.creds, res.err
	case <-ctx.Done():
		return nil, timeoutError(ctx, "Authentication timed out after 5 minutes. The browser tab may have gotten stuck in a loading state. Please try again or use NO_BROWSER=true for manual authentication.")
	}
}

// maxCodeAttempts is how many codes the paste flow asks for, as in
// Gemini CLI.
const maxCodeAttempts = 2

func loginWithCode(ctx context.Context, o LoginOptions) (*Credentials, error) {
	if o.In == nil {
		return nil, errors.New("Manual authorization is required but there is no input to read the code from.")
	}
	lines := readLines(o.In)
	cfg := o.Endpoints.Config(UserCodeRedirect)
	for attempt := 1; attempt <= maxCodeAttempts; attempt++ {
		verifier := oauth2.GenerateVerifier()
		authURL := cfg.AuthCodeURL(randomState(), oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier))
		fmt.Fprintf(o.Out, "Please visit the following URL to authorize the application:\n\n%s\n\nEnter the authorization code: ", authURL)
		var code string
		select {
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(o.Out)
				return nil, errors.New("Failed to authenticate with user code.")
			}
			code = strings.TrimSpace(l)
		case <-ctx.Done():
			return nil, timeoutError(ctx, "Authorization timed out after 5 minutes.")
		}
		if code == "" {
			fmt.Fprintln(o.Out, "Authorization code is required.")
			continue
		}
		creds, err := exchange(ctx, o, cfg, code, verifier)
		if err == nil {
			return creds, nil
		}
		fmt.Fprintf(o.Out, "Failed to authenticate with authorization code: %v\n", err)
		if attempt < maxCodeAttempts {
			fmt.Fprintln(o.Out, "Retrying...")
		}
	}
	return nil, errors.New("Failed to authenticate with user code.")
}

// readLines delivers r's lines on a channel, closed at EOF. Reading a
// terminal cannot be interrupted, so the goroutine outlives a timed-out
// login until the next line or EOF; the CLI exits by then anyway.
func readLines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" || err == nil {
				ch <- strings.TrimRight(line, "\r\n")
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// FetchEmail asks the userinfo endpoint for the account's email, which
// Gemini CLI shows and caches in google_accounts.json. A nil hc means a
// client with a one minute timeout.
func FetchEmail(ctx context.Context, hc *http.Client, userInfoURL, accessToken string) (string, error) {
	if hc == nil {
		hc = tokenClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, userInfoURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("userinfo: %s", resp.Status)
	}
	var info struct {
		Email string `json:"email"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info); err != nil {
		return "", fmt.Errorf("userinfo: %w", err)
	}
	return info.Email, nil
}

// OpenURL opens url in the user's browser without waiting for it.
func OpenURL(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap the opener; its exit status says nothing useful
	return nil
}
