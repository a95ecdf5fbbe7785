package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Status is the state of one configured server.
type Status string

// Server states. Connecting, connected and disconnected are Gemini CLI's
// MCPServerStatus values; error means the server never came up (the reason
// says why), blocked that mcp.allowed / mcp.excluded / the command line
// keep it out, and disabled that the folder is not trusted.
const (
	StatusConnecting   Status = "connecting"
	StatusConnected    Status = "connected"
	StatusDisconnected Status = "disconnected"
	StatusError        Status = "error"
	StatusBlocked      Status = "blocked"
	StatusDisabled     Status = "disabled"
)

// ServerStatus describes one configured server.
type ServerStatus struct {
	Name   string
	Status Status
	// Reason says why a server is not connected ("" when it is).
	Reason string
	// Transport is the transport in use (or configured, before a
	// connection).
	Transport Transport
	// Tools, Prompts and Resources count what the server offered at its
	// last discovery.
	Tools, Prompts, Resources int
	// Instructions are the server's initialize instructions, if any.
	Instructions string
	// Config is the server's configuration.
	Config *ServerConfig
	// Failure is why the server is not connected, when it failed (Reason
	// is its text); faces that show the server's name and command already
	// print its Details.
	Failure *Failure
}

// errNoCapabilities is Gemini CLI's verdict on a server that offers
// nothing.
var errNoCapabilities = errors.New("No prompts, tools, or resources found on the server.")

// server is the client side of one configured MCP server.
type server struct {
	m   *Manager
	cfg *ServerConfig

	// connMu serializes connection attempts, so that concurrent calls to a
	// crashed server restart it once.
	connMu sync.Mutex

	mu           sync.Mutex
	status       Status
	reason       string
	transport    Transport
	session      *sdk.ClientSession
	tools        []*sdk.Tool
	prompts      []*sdk.Prompt
	resources    []*sdk.Resource
	caps         *sdk.ServerCapabilities
	instructions string
	closed       bool
	// everConnected is set once discovery succeeded: only such servers have
	// bridged tools worth reconnecting for.
	everConnected bool
	// out records the stderr, stray stdout and exit of the latest stdio
	// server process, for failure reports.
	out *processOutput
	// failure is the report behind reason, when a connection failed.
	failure *Failure
	// httpStatus keeps the last error answer of a remote server, so that
	// a failure can quote its status and what its body said.
	httpStatus httpAnswer
	// progress routes the server's progress reports to its calls.
	progress progressCalls
}

func (s *server) snapshot() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.transport
	if t == "" {
		t, _, _ = s.cfg.Transport()
	}
	return ServerStatus{
		Name: s.cfg.Name, Status: s.status, Reason: s.reason, Transport: t,
		Tools: len(s.tools), Prompts: len(s.prompts), Resources: len(s.resources),
		Instructions: s.instructions, Config: s.cfg,
		Failure: s.failureLocked(),
	}
}

// failureLocked is the failure that the current reason reports, if any.
func (s *server) failureLocked() *Failure {
	if s.failure == nil || s.failure.Error() != s.reason {
		return nil
	}
	return s.failure
}

func (s *server) setStatus(st Status, reason string) {
	s.mu.Lock()
	s.status, s.reason = st, reason
	s.mu.Unlock()
}

// connectTimeout bounds connecting and discovery: the server's own timeout
// when it sets one, otherwise the manager's.
func (s *server) connectTimeout() time.Duration {
	if s.cfg.Timeout > 0 {
		return s.cfg.Timeout
	}
	return s.m.connectTimeout
}

// connect dials or starts the server, initializes the session and
// discovers what it offers. On failure the status is error (first attempt)
// or disconnected (a reconnect) with the reason.
func (s *server) connect(ctx context.Context) error {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("the MCP client manager is closed")
	}
	if s.status == StatusBlocked || s.status == StatusDisabled {
		// Settings or folder trust keep this server out; nothing may start
		// it behind their back (a prompt or resource request by name).
		reason := s.reason
		s.mu.Unlock()
		return errors.New(reason)
	}
	if s.session != nil && s.status == StatusConnected {
		s.mu.Unlock()
		return nil
	}
	s.status, s.reason = StatusConnecting, ""
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, s.connectTimeout())
	defer cancel()
	s.httpStatus.reset()
	cs, used, err := s.dialWithin(ctx)
	ph := phaseConnect
	if err == nil {
		ph = phaseDiscover
		err = s.discover(ctx, cs)
		if err != nil {
			_ = cs.Close()
		}
	}
	if err != nil {
		err = s.connectFailure(ctx, err, ph, s.connectTimeout())
		s.mu.Lock()
		if s.everConnected {
			s.status = StatusDisconnected
		} else {
			s.status = StatusError
		}
		s.reason = err.Error()
		s.failure, _ = errors.AsType[*Failure](err)
		s.mu.Unlock()
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = cs.Close()
		return errors.New("the MCP client manager is closed")
	}
	s.session, s.transport = cs, used
	s.status, s.reason = StatusConnected, ""
	s.everConnected = true
	s.mu.Unlock()
	go s.watch(cs)
	s.m.debugf("MCP server '%s' connected over %s", s.cfg.Name, used)
	return nil
}

// watch waits for a session to end and records why, unless the session
// was replaced or closed on purpose meanwhile.
func (s *server) watch(cs *sdk.ClientSession) {
	out := s.output()
	err := cs.Wait()
	s.mu.Lock()
	if s.session != cs {
		s.mu.Unlock()
		return
	}
	if s.closed {
		s.session = nil
		s.status, s.reason = StatusDisconnected, ""
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	// Say how the server went (its exit status, its last stderr lines),
	// which may take a moment for the process to be reaped.
	if err == nil {
		err = sdk.ErrConnectionClosed
	}
	f := s.explain(err, phaseSession, out, 0)
	reason := f.Error()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != cs {
		return
	}
	s.session = nil
	if s.closed {
		s.status, s.reason = StatusDisconnected, ""
		return
	}
	s.status, s.reason, s.failure = StatusDisconnected, reason, f
	s.m.debugf("MCP server '%s' disconnected: %s", s.cfg.Name, reason)
}

// drop forgets a session found dead, so that the next use reconnects
// without waiting for watch to notice.
func (s *server) drop(cs *sdk.ClientSession, why error) {
	s.mu.Lock()
	if s.session != cs {
		s.mu.Unlock()
		return
	}
	s.session = nil
	if !s.closed {
		s.status, s.reason = StatusDisconnected, "the connection was closed: "+why.Error()
	}
	s.mu.Unlock()
	go func() { _ = cs.Close() }()
}

// ensure returns a live session, reconnecting (restarting a stdio server)
// when the previous one ended.
func (s *server) ensure(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs != nil {
		return cs, nil
	}
	s.m.debugf("MCP server '%s' is not connected; reconnecting", s.cfg.Name)
	if err := s.connect(ctx); err != nil {
		if f, ok := errors.AsType[*Failure](err); ok {
			// One report naming the server once, with the server's words.
			g := *f
			g.Problem = "not connected, and reconnecting failed: " + f.Problem
			return nil, &g
		}
		return nil, fmt.Errorf("MCP server '%s' is not connected and reconnecting failed: %w", s.cfg.Name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		return nil, fmt.Errorf("MCP server '%s' is not connected: %s", s.cfg.Name, s.reason)
	}
	return s.session, nil
}

// withSession runs f on a live session within the server's request
// timeout, reconnecting first when the connection was lost. A connection
// found closed before the request went out (the server died while idle and
// the call got there before watch noticed) is retried once on a fresh
// connection; a request lost in flight is not, since the tool may have
// acted.
func (s *server) withSession(ctx context.Context, f func(context.Context, *sdk.ClientSession) error) error {
	cs, err := s.ensure(ctx)
	if err != nil {
		return err
	}
	out := s.output()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout())
	defer cancel()
	err = f(ctx, cs)
	if err == nil || !lost(err) {
		return err
	}
	s.drop(cs, err)
	if !notSent(err) {
		// The server went away with the request: say how (its exit
		// status, its last stderr lines) rather than "EOF".
		return s.explain(err, phaseCall, out, 0)
	}
	if cs, err = s.ensure(ctx); err != nil {
		return err
	}
	out = s.output()
	if err = f(ctx, cs); err != nil && lost(err) {
		s.drop(cs, err)
		return s.explain(err, phaseCall, out, 0)
	}
	return err
}

// lost reports whether a request failed because the connection ended:
// closed, a stdio server's stdout reaching its end (the SDK reports that
// as a bare EOF), or a remote server that could not be reached again
// after its stream broke (the SDK words that error without wrapping).
func lost(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "failed to reconnect")
}

// notSent reports whether a connection error means the request was
// refused locally, before being written.
func notSent(err error) bool {
	return strings.Contains(err.Error(), "client is closing")
}

// close ends the session for good.
func (s *server) close() error {
	s.mu.Lock()
	s.closed = true
	cs := s.session
	s.session = nil
	if s.status == StatusConnected || s.status == StatusConnecting {
		s.status, s.reason = StatusDisconnected, ""
	}
	s.mu.Unlock()
	if cs == nil {
		return nil
	}
	err := cs.Close()
	if errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// dial connects over the configured transport. A url without a type is
// tried as streamable HTTP first and then as SSE, as Gemini CLI does.
func (s *server) dial(ctx context.Context) (*sdk.ClientSession, Transport, error) {
	kind, fallback, err := s.cfg.Transport()
	if err != nil {
		return nil, "", err
	}
	switch s.cfg.AuthProviderType {
	case "", "dynamic_discovery":
	case "google_credentials":
		if kind == TransportStdio {
			return nil, "", errors.New("authProviderType \"google_credentials\" needs a url or httpUrl")
		}
		if _, err := googleCredentials(s.cfg, nil); err != nil {
			return nil, "", err
		}
	default:
		return nil, "", fmt.Errorf("authProviderType %q is not supported", s.cfg.AuthProviderType)
	}
	client := s.newClient()
	switch kind {
	case TransportStdio:
		t, err := s.stdioTransport()
		if err != nil {
			return nil, "", err
		}
		cs, err := client.Connect(ctx, t, nil)
		return cs, kind, err
	case TransportSSE:
		cs, err := client.Connect(ctx, s.sseTransport(), nil)
		return cs, kind, err
	}
	t, err := s.httpTransport()
	if err != nil {
		return nil, "", err
	}
	cs, err := client.Connect(ctx, t, nil)
	if err == nil || !fallback || ctx.Err() != nil || isAuthError(err) {
		return cs, kind, err
	}
	s.m.debugf("MCP server '%s': HTTP connection failed (%v), attempting SSE fallback...", s.cfg.Name, err)
	cs, sseErr := s.newClient().Connect(ctx, s.sseTransport(), nil)
	if sseErr != nil {
		return nil, "", fmt.Errorf("streamable HTTP: %v; SSE: %w", err, sseErr)
	}
	return cs, TransportSSE, nil
}

// dialWithin is dial bounded by ctx. The SDK's Connect, when initialize
// fails, closes the session and waits for requests in flight, which a
// remote server that never answers holds open past the deadline (seconds
// more); the attempt is abandoned at the deadline and its session, if it
// comes, closed. A stdio server is waited for: closing it is what stops
// its process, which must not outlive Castor.
func (s *server) dialWithin(ctx context.Context) (*sdk.ClientSession, Transport, error) {
	if s.cfg.Command != "" {
		return s.dial(ctx)
	}
	type result struct {
		cs   *sdk.ClientSession
		used Transport
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		cs, used, err := s.dial(ctx)
		ch <- result{cs, used, err}
	}()
	select {
	case r := <-ch:
		return r.cs, r.used, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.cs != nil {
				_ = r.cs.Close()
			}
		}()
		return nil, "", ctx.Err()
	}
}

// isAuthError reports whether err is the server refusing us for want of
// credentials, which an SSE retry cannot cure.
func isAuthError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Unauthorized") || status401.Get().MatchString(msg)
}

// status401 finds the status 401 in an error's text, not the digits 401
// inside a port or an address (127.0.0.1:40111 refusing the connection
// is no request for credentials).
var status401 = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[^\d:.])401(?:$|[^\d.])`) }}

func (s *server) newClient() *sdk.Client {
	name := s.cfg.Name
	opts := &sdk.ClientOptions{
		Logger: s.m.slog,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			go s.refresh("tools")
		},
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			go s.refresh("prompts")
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			go s.refresh("resources")
		},
		// Gemini CLI still shows servers' log messages and offers roots;
		// the SDK keeps both through the deprecation window.
		//lint:ignore SA1019 Gemini CLI parity (logging notifications)
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			if r.Params != nil {
				s.m.debugf("[MCP LOG (%s)] %s: %v", name, r.Params.Level, r.Params.Data)
			}
		},
		// Both elicitation modes are offered; the roots capability is
		// what the SDK offers by default.
		Capabilities: &sdk.ClientCapabilities{
			//lint:ignore SA1019 Gemini CLI parity (roots)
			RootsV2:     &sdk.RootCapabilities{ListChanged: true},
			Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}},
		},
		ElicitationHandler:          s.elicit,
		ProgressNotificationHandler: s.progress.notify,
		ElicitationCompleteHandler: func(_ context.Context, r *sdk.ElicitationCompleteNotificationRequest) {
			if r.Params != nil {
				s.m.debugf("MCP server '%s': elicitation %s completed", name, r.Params.ElicitationID)
			}
		},
	}
	c := sdk.NewClient(&sdk.Implementation{Name: s.m.clientName, Version: s.m.clientVersion}, opts)
	for _, dir := range s.m.roots {
		//lint:ignore SA1019 Gemini CLI parity (roots)
		c.AddRoots(&sdk.Root{URI: fileURI(dir), Name: filepath.Base(dir)})
	}
	return c
}

func fileURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

func (s *server) stdioTransport() (sdk.Transport, error) {
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.cfg.Cwd
	if cmd.Dir == "" {
		cmd.Dir = s.m.workDir
	}
	base := append([]string{"GEMINI_CLI=1", "CASTOR=1"}, redactEnv(s.m.environ(), s.m.envAllowed, s.m.envBlocked)...)
	cmd.Env = mergeEnv(base, s.cfg.Env)
	out := newProcessOutput(s.cfg.Name)
	stderr := &lineWriter{emit: func(line string) {
		out.stderrLine(line)
		s.m.debugf("[MCP STDERR (%s)]: %s", s.cfg.Name, line)
	}}
	s.mu.Lock()
	s.out = out
	s.mu.Unlock()
	return &stdioTransport{cmd: cmd, out: out, terminate: 500 * time.Millisecond, stderr: stderr, debug: s.m.debug, limit: s.messageLimit()}, nil
}

// messageLimit is the bound on the server's messages.
func (s *server) messageLimit() messageLimit {
	return messageLimit{max: s.m.maxMessage(), dir: s.m.outputDir, server: s.cfg.Name, maxChars: s.m.outputLimit}
}

// output is the output record of the server's latest process (nil for a
// remote server).
func (s *server) output() *processOutput {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}

// connectFailure explains err, met while connecting within timeout.
func (s *server) connectFailure(ctx context.Context, err error, ph phase, timeout time.Duration) error {
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() == nil {
		timeout = 0
	}
	if timeout == 0 && s.cfg.Endpoint() != "" && isAuthError(err) {
		answer, _ := s.httpStatus.describe(err)
		if answer == "" {
			answer = "HTTP 401 Unauthorized"
		}
		return &Failure{Server: s.cfg.Name, Target: s.cfg.Target(), Err: err,
			Problem: s.cfg.hideURLSecrets(answer) + ": the server requires authentication and there is no valid stored OAuth token. " +
				`Give it credentials in its "headers" (e.g. "Authorization": "Bearer …"), or sign in with Gemini CLI's /mcp auth ` + s.cfg.Name + ", whose stored token Castor uses"}
	}
	return s.explain(err, ph, s.output(), timeout)
}

func (s *server) httpClient() *http.Client {
	base := s.m.httpClient
	if base == nil {
		base = http.DefaultClient
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if len(s.cfg.Headers) > 0 {
		rt = &headerTransport{base: rt, headers: s.cfg.Headers}
	}
	// Messages are bounded while read, under the recorder, which keeps
	// the start of an error answer.
	rt = &limitTransport{base: rt, messageLimit: s.messageLimit()}
	if s.cfg.AuthProviderType == "google_credentials" {
		// Checked in dial; an error here cannot happen for a dialled
		// server, and leaves the request without a token otherwise.
		if g, err := googleCredentials(s.cfg, rt); err == nil {
			rt = g
		}
	}
	c := *base
	c.Transport = &statusRecorder{base: rt, rec: &s.httpStatus}
	return &c
}

// httpReconnects is how many times a streamable HTTP session tries to
// reconnect to its server before giving up.
const httpReconnects = 2

func (s *server) httpTransport() (sdk.Transport, error) {
	// A server that went away is retried twice, as Gemini CLI's
	// transport does (the TypeScript SDK's default), not the Go SDK's
	// five times: a call to a stopped server failed after 13 to 20
	// seconds of "connection refused".
	t := &sdk.StreamableClientTransport{Endpoint: s.cfg.Endpoint(), HTTPClient: s.httpClient(), MaxRetries: httpReconnects}
	h, err := s.m.oauthHandler(s.cfg)
	if err != nil {
		return nil, err
	}
	if h != nil {
		t.OAuthHandler = h
	}
	return t, nil
}

func (s *server) sseTransport() sdk.Transport {
	c := s.httpClient()
	if tok := s.m.storedBearer(s.cfg); tok != "" {
		// The SDK's SSE transport has no OAuth hook; a stored token still
		// works as a bearer header, which is all Gemini CLI does for SSE.
		cc := *c
		rt := cc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		cc.Transport = &headerTransport{base: rt, headers: map[string]string{"Authorization": "Bearer " + tok}}
		c = &cc
	}
	return &detachedTransport{inner: &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: c}}
}

// headerTransport adds configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// detachedTransport connects with a context that outlives the connect
// deadline. The SDK's SSE transport ties its event stream to the context
// given to Connect, so the discovery timeout would otherwise cut the
// stream the moment discovery finishes; the deadline still bounds the
// connect itself.
type detachedTransport struct{ inner sdk.Transport }

func (t *detachedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	type result struct {
		c   sdk.Connection
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := t.inner.Connect(dctx)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			cancel()
			return nil, r.err
		}
		return &cancelConn{Connection: r.c, cancel: cancel}, nil
	case <-ctx.Done():
		cancel()
		go func() {
			if r := <-ch; r.c != nil {
				_ = r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

type cancelConn struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *cancelConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// discover lists what the session's server offers. A list the server does
// not support (method not found) counts as empty; a server with nothing at
// all is an error, as in Gemini CLI.
func (s *server) discover(ctx context.Context, cs *sdk.ClientSession) error {
	init := cs.InitializeResult()
	caps := &sdk.ServerCapabilities{}
	instructions := ""
	if init != nil {
		if init.Capabilities != nil {
			caps = init.Capabilities
		}
		instructions = init.Instructions
	}
	var tools []*sdk.Tool
	var prompts []*sdk.Prompt
	var resources []*sdk.Resource
	var err error
	if caps.Tools != nil {
		if tools, err = listAll(ctx, cs.Tools); err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
	}
	if caps.Prompts != nil {
		if prompts, err = listAll(ctx, cs.Prompts); err != nil {
			return fmt.Errorf("listing prompts: %w", err)
		}
	}
	if caps.Resources != nil {
		if resources, err = listAll(ctx, cs.Resources); err != nil {
			return fmt.Errorf("listing resources: %w", err)
		}
	}
	if len(tools) == 0 && len(prompts) == 0 && len(resources) == 0 {
		return errNoCapabilities
	}
	s.mu.Lock()
	s.tools, s.prompts, s.resources = tools, prompts, resources
	s.caps, s.instructions = caps, instructions
	s.mu.Unlock()
	s.m.serverChanged(s)
	s.m.promptsChanged() // a reconnect may bring other prompts
	return nil
}

// listAll drains a paginated listing; "method not found" is an empty list.
func listAll[P any, T any](ctx context.Context, list func(context.Context, *P) iter.Seq2[*T, error]) ([]*T, error) {
	var out []*T
	for item, err := range list(ctx, nil) {
		if err != nil {
			if isMethodNotFound(err) {
				return out, nil
			}
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

func isMethodNotFound(err error) bool {
	return strings.Contains(err.Error(), "method not found") || strings.Contains(err.Error(), "Method not found")
}

// refresh re-lists one kind of offering after a list_changed notification.
func (s *server) refresh(what string) {
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout())
	defer cancel()
	var err error
	switch what {
	case "tools":
		var tools []*sdk.Tool
		if tools, err = listAll(ctx, cs.Tools); err == nil {
			s.mu.Lock()
			s.tools = tools
			s.mu.Unlock()
		}
	case "prompts":
		var prompts []*sdk.Prompt
		if prompts, err = listAll(ctx, cs.Prompts); err == nil {
			s.mu.Lock()
			s.prompts = prompts
			s.mu.Unlock()
		}
	case "resources":
		var resources []*sdk.Resource
		if resources, err = listAll(ctx, cs.Resources); err == nil {
			s.mu.Lock()
			s.resources = resources
			s.mu.Unlock()
		}
	}
	if err != nil {
		s.m.debugf("MCP server '%s': refreshing %s failed: %v", s.cfg.Name, what, err)
		return
	}
	s.m.debugf("MCP server '%s': %s updated", s.cfg.Name, what)
	s.m.serverChanged(s)
	if what == "prompts" {
		s.m.promptsChanged()
	}
}

// lineWriter turns a byte stream into lines for a logger.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	emit func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.buf[:i]), "\r")
		w.buf = w.buf[i+1:]
		if strings.TrimSpace(line) != "" {
			w.emit(line)
		}
	}
	// Keep a runaway line from growing without bound.
	if len(w.buf) > 64<<10 {
		w.emit(string(w.buf))
		w.buf = nil
	}
	return len(p), nil
}

// DefaultProbeTimeout bounds Probe for a server that sets no timeout
// (Gemini CLI's `mcp list` uses five seconds to stay responsive).
const DefaultProbeTimeout = 5 * time.Second

// Probe checks that a server can be reached, the way `gemini mcp list`
// does: it connects (initialize), pings (a failed ping is not an error:
// ping is optional) and disconnects, within the server's timeout or
// DefaultProbeTimeout. opts supplies the environment, HTTP client, OAuth
// and debug settings; its Servers, Filter and FolderTrusted are ignored.
func Probe(ctx context.Context, cfg *ServerConfig, opts Options) error {
	opts.Servers, opts.Filter, opts.FolderTrusted = []*ServerConfig{cfg}, Filter{}, true
	m := New(opts)
	s := m.servers[0]
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, _, err := s.dialWithin(ctx)
	if err != nil {
		return s.connectFailure(ctx, err, phaseConnect, timeout)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		m.debugf("MCP ping failed for %s, but connect succeeded: %v", cfg.Name, err)
	}
	_ = cs.Close()
	return nil
}
