package oauth

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/httpguard"
	"github.com/castor-dev/castor/model"
)

// DefaultLoginTimeout is how long a login waits for the user.
const DefaultLoginTimeout = 5 * time.Minute

// callbackPath is the loopback redirect's path.
const callbackPath = "/oauth2callback"

// LoginOptions configures Login.
type LoginOptions struct {
	// Endpoints is the user's OAuth client and Google's endpoints. Login
	// refuses to start without a client (see ErrNoLoginClient).
	Endpoints Endpoints
	// NoBrowser selects the paste flow: the user opens the URL on any
	// device and pastes back the address Google redirects to (or just its
	// code). A browser on this machine completes the login by itself.
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

// LoginOptionsFromEnv reads Endpoints (EndpointsFor with st, which may be
// nil), NoBrowser (BrowserSuppressed), OAUTH_CALLBACK_HOST and
// OAUTH_CALLBACK_PORT.
func LoginOptionsFromEnv(getenv func(string) string, st *config.Settings) (LoginOptions, error) {
	o := LoginOptions{
		Endpoints:    EndpointsFor(getenv, st),
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

// ErrNoLoginClient is the cause of the *model.AuthError Login returns
// when the user has no OAuth client of their own. One line, as the CLI
// prints it.
var ErrNoLoginClient = errors.New("castor auth login needs an OAuth client of your own: " +
	"Gemini CLI's sign-in cannot be reused by third-party tools under Google's terms; " +
	"create an OAuth client of type \"Desktop app\" in your Google Cloud project and set CASTOR_OAUTH_CLIENT_ID and CASTOR_OAUTH_CLIENT_SECRET " +
	"(or security.auth.oauthClient.clientId and clientSecret in settings), " +
	"or use GEMINI_API_KEY, Vertex AI, or `gcloud auth application-default login` with compute-default-credentials instead")

// Login signs the user in with their own OAuth client and returns the new
// credentials; saving them is the caller's business. Both flows redirect
// to a server on 127.0.0.1 and use PKCE and a random state; the paste
// flow also accepts the redirected address (or its code) typed in, for a
// browser on another machine.
func Login(ctx context.Context, o LoginOptions) (*Credentials, error) {
	if !o.Endpoints.HasClient() {
		return nil, &model.AuthError{Err: ErrNoLoginClient}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultLoginTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = tokenClient
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.NoBrowser && o.In == nil {
		return nil, errors.New("Manual authorization is required but there is no input to read the code from.")
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cb, err := startCallback(o)
	if err != nil {
		return nil, err
	}
	defer cb.close()
	if o.NoBrowser {
		return loginWithCode(ctx, o, cb)
	}
	return loginWithBrowser(ctx, o, cb)
}

// randomState returns 32 random bytes in hex.
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
	c := credentialsFromToken(tok)
	c.ClientID = cfg.ClientID
	return c, nil
}

// timeoutError explains why ctx ended.
func timeoutError(ctx context.Context, timeout string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errors.New(timeout)
	}
	return fmt.Errorf("Authentication cancelled by user: %w", ctx.Err())
}

// Pages the loopback server shows the browser. They are served locally:
// Castor has no web pages of its own to send the user to.
const (
	successPage = "<!doctype html><title>Castor</title><p>Castor is signed in. You can close this tab.</p>\n"
	failurePage = "<!doctype html><title>Castor</title><p>Castor sign-in failed: %s</p>\n"
)

// authorization is one authorization request: its URL, and the state and
// verifier that the answer must match.
type authorization struct {
	url, state, verifier string
}

// callbackResult is what the loopback redirect delivered.
type callbackResult struct {
	creds *Credentials
	err   error
}

// callback is the loopback server receiving Google's redirect.
type callback struct {
	cfg  *oauth2.Config
	srv  *http.Server
	done chan callbackResult

	mu      sync.Mutex
	current authorization
	once    sync.Once
}

func startCallback(o LoginOptions) (*callback, error) {
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
	cb := &callback{
		cfg:  o.Endpoints.Config(fmt.Sprintf("http://127.0.0.1:%d%s", port, callbackPath)),
		done: make(chan callbackResult, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc(callbackPath, func(w http.ResponseWriter, r *http.Request) { cb.serve(w, r, o) })
	// The browser comes back to 127.0.0.1 by Google's redirect: a web
	// page's request (another Host, a foreign Origin) is refused.
	door := httpguard.New(httpguard.Options{ListenHost: host})
	cb.srv = &http.Server{Handler: httpguard.ReadBodyWithin(door.Handler(mux, nil), httpguard.BodyTimeout), ReadHeaderTimeout: httpguard.HeaderTimeout}
	go cb.srv.Serve(l)
	return cb, nil
}

// close stops the server, letting the final page reach the browser.
func (cb *callback) close() {
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = cb.srv.Shutdown(sctx)
}

// next starts a new authorization request; only its state is accepted
// from then on.
func (cb *callback) next() authorization {
	a := authorization{state: randomState(), verifier: oauth2.GenerateVerifier()}
	a.url = cb.cfg.AuthCodeURL(a.state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(a.verifier))
	cb.mu.Lock()
	cb.current = a
	cb.mu.Unlock()
	return a
}

func (cb *callback) finish(c *Credentials, err error) {
	cb.once.Do(func() { cb.done <- callbackResult{c, err} })
}

func (cb *callback) serve(w http.ResponseWriter, r *http.Request, o LoginOptions) {
	cb.mu.Lock()
	a := cb.current
	cb.mu.Unlock()
	q := r.URL.Query()
	fail := func(err error) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, failurePage, html.EscapeString(err.Error()))
		cb.finish(nil, err)
	}
	switch {
	case q.Get("state") != a.state || a.state == "":
		// Not finished: a stray or forged request must not end a login
		// the user is still completing. Checked first, so a forged error
		// cannot end it either.
		http.Error(w, "State mismatch. Possible CSRF attack", http.StatusBadRequest)
	case q.Get("error") != "":
		desc := q.Get("error_description")
		if desc == "" {
			desc = "No additional details provided"
		}
		fail(fmt.Errorf("Google OAuth error: %s. %s", q.Get("error"), desc))
	case q.Get("code") == "":
		fail(errors.New("No authorization code received from Google OAuth. Please try authenticating again."))
	default:
		creds, err := exchange(r.Context(), o, cb.cfg, q.Get("code"), a.verifier)
		if err != nil {
			fail(fmt.Errorf("Failed to exchange authorization code for tokens: %w", err))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, successPage)
		cb.finish(creds, nil)
	}
}

func loginWithBrowser(ctx context.Context, o LoginOptions, cb *callback) (*Credentials, error) {
	a := cb.next()
	fmt.Fprintf(o.Out, "\nAttempting to open authentication page in your browser.\nOtherwise navigate to:\n\n%s\n\n\n", a.url)
	open := o.OpenBrowser
	if open == nil {
		open = OpenURL
	}
	if err := open(a.url); err != nil {
		fmt.Fprintf(o.Out, "Failed to open browser with error: %v\nPlease try running again with NO_BROWSER=true set.\n", err)
	}
	fmt.Fprintln(o.Out, "Waiting for authentication...")
	select {
	case res := <-cb.done:
		return res.creds, res.err
	case <-ctx.Done():
		return nil, timeoutError(ctx, "Authentication timed out after 5 minutes. The browser tab may have gotten stuck in a loading state. Please try again or use NO_BROWSER=true for manual authentication.")
	}
}

// maxCodeAttempts is how many codes the paste flow asks for.
const maxCodeAttempts = 2

// pastedCode takes what the user pasted: the address the browser was sent
// to (whose state must match) or the bare code.
func pastedCode(s string, a authorization) (string, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "code=") && !strings.Contains(s, "error=") {
		return s, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("not an address: %w", err)
	}
	q := u.Query()
	switch {
	case q.Get("state") != a.state:
		return "", errors.New("the address is not the answer to this sign-in (state mismatch)")
	case q.Get("error") != "":
		return "", fmt.Errorf("Google OAuth error: %s", q.Get("error"))
	}
	return q.Get("code"), nil
}

func loginWithCode(ctx context.Context, o LoginOptions, cb *callback) (*Credentials, error) {
	lines := readLines(o.In)
	for attempt := 1; attempt <= maxCodeAttempts; attempt++ {
		a := cb.next()
		fmt.Fprintf(o.Out, "Please visit the following URL to authorize the application:\n\n%s\n\n"+
			"Google then sends the browser to %s. If that page does not load (the browser is on another machine), copy the full address from the address bar.\n"+
			"Enter the address or the authorization code: ", a.url, cb.cfg.RedirectURL)
		var line string
		select {
		case res := <-cb.done:
			// A browser on this machine reached the loopback server.
			fmt.Fprintln(o.Out)
			return res.creds, res.err
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(o.Out)
				return nil, errors.New("Failed to authenticate with user code.")
			}
			line = l
		case <-ctx.Done():
			return nil, timeoutError(ctx, "Authorization timed out after 5 minutes.")
		}
		code, err := pastedCode(line, a)
		if err == nil && code == "" {
			fmt.Fprintln(o.Out, "Authorization code is required.")
			continue
		}
		var creds *Credentials
		if err == nil {
			creds, err = exchange(ctx, o, cb.cfg, code, a.verifier)
		}
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
// `castor auth status` shows. A nil hc means a
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
