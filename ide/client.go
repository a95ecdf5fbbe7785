package ide

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"
)

// ProtocolVersion is the MCP version the client asks for. Versions from
// 2026-07-28 on have no standalone event stream, which is how companions
// push their notifications, so the client stays on the newest version
// that has one; companions answer with 2025-06-18 or this.
const ProtocolVersion = "2025-11-25"

// requestTimeout bounds a tool call to the companion (Gemini CLI's
// IDE_REQUEST_TIMEOUT_MS).
const requestTimeout = 10 * time.Minute

// closeDiffTimeout bounds the closing of open diffs when the client
// closes.
const closeDiffTimeout = 5 * time.Second

// connectTimeout bounds the MCP handshake with a companion on this machine.
const connectTimeout = 10 * time.Second

// Errors of diff operations.
var (
	ErrNotConnected = errors.New("not connected to an IDE companion")
	ErrNoDiffing    = errors.New("the IDE companion offers no openDiff and closeDiff tools")
	ErrDisconnected = errors.New("the IDE connection closed before the diff was answered")
	ErrDiffClosed   = errors.New("the diff was closed before the user answered it in the IDE")
)

// Options configures a Client. The zero value discovers the companion of
// the IDE the process runs in, from the current directory.
type Options struct {
	// WorkDir must lie inside the IDE's workspace (default: the current
	// directory).
	WorkDir string
	// TempDir replaces os.TempDir, where discovery files live.
	TempDir string
	// Getenv replaces os.Getenv.
	Getenv func(string) string
	// IDEPID names the IDE process instead of walking the process tree.
	IDEPID int
	// Host replaces the companion's host (default 127.0.0.1, or
	// host.docker.internal inside a container).
	Host string
	// Version is reported to the companion as the client's version.
	Version string
	// Logf receives debug messages.
	Logf func(format string, args ...any)
	// Warn receives what the user should know: the connection lost and
	// found again, a diff the IDE could not open.
	Warn func(string)
	// InitialContextWait is how long Connect waits for the first context
	// update, so that the first prompt already carries it (default 500ms;
	// negative: do not wait).
	InitialContextWait time.Duration
	// ReconnectDelay is the pause before reconnection attempt n (from 0)
	// after the connection was lost (default: 0, then 1s doubling to 30s).
	ReconnectDelay func(attempt int) time.Duration

	// alive and ancestors replace the process checks in tests.
	alive     func(int) bool
	ancestors []int
}

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

func (o *Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

func (o *Options) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	} else {
		o.logf("ide: %s", msg)
	}
}

func (o *Options) workDir() string {
	if o.WorkDir != "" {
		return o.WorkDir
	}
	wd, _ := os.Getwd()
	return wd
}

func (o *Options) discover() *Discovery {
	return Discover(DiscoverOptions{
		WorkDir:   o.workDir(),
		TempDir:   o.TempDir,
		Getenv:    o.Getenv,
		IDEPID:    o.IDEPID,
		Ancestors: o.ancestors,
		Alive:     o.alive,
	})
}

// State is the connection state.
type State string

// Connection states.
const (
	Connected    State = "connected"
	Disconnected State = "disconnected"
)

// Status describes the connection.
type Status struct {
	// State is Connected or Disconnected.
	State State
	// Detail says why the client is disconnected.
	Detail string
	// IDE names the IDE.
	IDE IDEInfo
	// URL is the companion's endpoint and DiscoveryFile the file it came
	// from ("" when it came from the environment).
	URL           string
	DiscoveryFile string
	// ProtocolVersion is the negotiated MCP version; Server the
	// companion's name and version.
	ProtocolVersion string
	Server          string
	// Tools are the companion's tools; Diffing is set when they include
	// openDiff and closeDiff.
	Tools   []string
	Diffing bool
}

// Client is a connection to an IDE companion. It keeps the latest editor
// context, opens diffs, and reconnects when the companion restarts. Its
// methods are safe for concurrent use.
type Client struct {
	opts Options

	mu      sync.Mutex
	conn    *conn
	gen     int
	status  Status
	ctx     *Context
	changed chan struct{}
	closed  bool
	looping bool
	diffs   map[string]chan diffResult

	done    chan struct{}
	kick    chan struct{}
	diffSem chan struct{}
	prompt  prompter
}

// conn is one MCP session with a companion.
type conn struct {
	gen     int
	session *mcp.ClientSession
	tr      *transport
	status  Status
	disc    *Discovery
}

// diffResult is how the user answered a diff.
type diffResult struct {
	accepted bool
	content  *string
	err      error
}

// Connect discovers the companion and connects to it. On failure the
// error is a *ConnectError saying precisely why.
func Connect(ctx context.Context, o Options) (*Client, error) {
	c := &Client{
		opts:    o,
		changed: make(chan struct{}),
		diffs:   map[string]chan diffResult{},
		done:    make(chan struct{}),
		kick:    make(chan struct{}, 1),
		diffSem: make(chan struct{}, 1),
	}
	cn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	c.install(cn)
	c.waitInitialContext(ctx)
	return c, nil
}

// waitInitialContext gives the companion a moment to send the context it
// sends every new session, so that the first prompt can carry it.
func (c *Client) waitInitialContext(ctx context.Context) {
	wait := c.opts.InitialContextWait
	if wait < 0 {
		return
	}
	if wait == 0 {
		wait = 500 * time.Millisecond
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		ch := c.Changed()
		if c.Context() != nil {
			return
		}
		select {
		case <-ch:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// dial discovers the companion and opens a session with it.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	d := c.opts.discover()
	cn, err := c.dialDiscovery(ctx, d)
	var ce *ConnectError
	if err == nil || !errors.As(err, &ce) || ce.Problem != ProblemRefused {
		return cn, err
	}
	// Nothing listens where the selected file says: the file is stale.
	// Another file of the workspace may be the live companion (Gemini CLI
	// gives up here, and the user must delete the stale file).
	for _, alt := range d.fallbacks {
		c.opts.logf("ide: %v; trying %s", err, alt.Selected.Path)
		if cn, aerr := c.dialDiscovery(ctx, alt); aerr == nil {
			return cn, nil
		}
	}
	return nil, err
}

// dialDiscovery connects to the companion d selects.
func (c *Client) dialDiscovery(ctx context.Context, d *Discovery) (*conn, error) {
	cwd := c.opts.workDir()
	base := &ConnectError{Discovery: d}
	if d.Selected != nil {
		base.File = d.Selected.Path
	}
	if d.Selected == nil && (d.WorkspacePath == nil || d.EnvPort == 0) {
		// Without a file, only GEMINI_CLI_IDE_WORKSPACE_PATH and
		// GEMINI_CLI_IDE_SERVER_PORT together can tell where the IDE is.
		base.Problem = ProblemNoDiscoveryFile
		return nil, base
	}
	if err := CheckWorkspace(d.WorkspacePath, cwd); err != nil {
		base.Problem, base.Err = ProblemWorkspace, err
		return nil, base
	}
	ports := []int{}
	if d.Port != 0 {
		ports = append(ports, d.Port)
	}
	if d.EnvPort != 0 && d.EnvPort != d.Port {
		ports = append(ports, d.EnvPort)
	}
	if len(ports) == 0 {
		base.Problem = ProblemNoPort
		return nil, base
	}
	hosts := []string{c.opts.Host}
	if c.opts.Host == "" {
		hosts = []string{serverHost(c.opts.getenv)}
		if hosts[0] != "127.0.0.1" {
			// Inside a container the companion is usually the container's
			// own (a dev container, `castor ide serve`), whatever Gemini
			// CLI assumes: try loopback too.
			hosts = append(hosts, "127.0.0.1")
		}
	}
	var first error
	for _, port := range ports {
		for _, host := range hosts {
			cn, err := c.connectHTTP(ctx, d, host, port)
			if err == nil {
				return cn, nil
			}
			c.opts.logf("ide: %v", err)
			var ce *ConnectError
			if first == nil || errors.As(first, &ce) && ce.Problem == ProblemUnreachable {
				first = err
			}
		}
	}
	return nil, first
}

// connectHTTP opens an MCP session over streamable HTTP.
func (c *Client) connectHTTP(ctx context.Context, d *Discovery, host string, port int) (*conn, error) {
	url := "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/mcp"
	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.mu.Unlock()
	tr := newTransport(d.AuthToken, func(method string, params json.RawMessage) { c.handleNote(gen, method, params) })
	version := c.opts.Version
	if version == "" {
		version = "dev"
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "castor", Version: version}, nil)
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	fail := func(err error) (*conn, error) {
		tr.base.CloseIdleConnections()
		c.mu.Lock()
		if c.gen == gen {
			// Context that came with the failed session is not the IDE's.
			c.ctx = nil
		}
		c.mu.Unlock()
		return nil, classify(err, &tr.probe, d, port, url)
	}
	cs, err := client.Connect(cctx, &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: tr},
		// A broken event stream means the companion is gone: fail at once
		// and let rediscovery find its successor, which has a new port.
		MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return fail(err)
	}
	st := Status{State: Connected, IDE: d.IDEInfo, URL: url}
	if d.Selected != nil && int(d.Selected.File.Port) == port {
		st.DiscoveryFile = d.Selected.Path
	}
	if ir := cs.InitializeResult(); ir != nil {
		st.ProtocolVersion = ir.ProtocolVersion
		if ir.ServerInfo != nil {
			st.Server = strings.TrimSpace(ir.ServerInfo.Name + " " + ir.ServerInfo.Version)
		}
	}
	// A companion without tools/list just offers no diffs, as in Gemini
	// CLI.
	if res, err := cs.ListTools(cctx, nil); err == nil {
		for _, t := range res.Tools {
			st.Tools = append(st.Tools, t.Name)
		}
	} else {
		c.opts.logf("ide: listing tools: %v", err)
	}
	st.Diffing = slices.Contains(st.Tools, "openDiff") && slices.Contains(st.Tools, "closeDiff")
	return &conn{gen: gen, session: cs, tr: tr, status: st, disc: d}, nil
}

// classify turns a failed handshake into the ConnectError that explains it.
func classify(err error, p *probe, d *Discovery, port int, url string) error {
	ce := &ConnectError{Discovery: d, URL: url, Port: port, Err: err}
	if d.Selected != nil && d.Selected.File != nil && int(d.Selected.File.Port) == port {
		ce.File = d.Selected.Path
	}
	status, body, sawReply, dialErr := p.get()
	ce.Status, ce.Body = status, strings.TrimSpace(body)
	switch {
	case dialErr != nil && errors.Is(dialErr, syscall.ECONNREFUSED):
		ce.Problem = ProblemRefused
	case dialErr != nil && !sawReply:
		ce.Problem, ce.Err = ProblemUnreachable, dialErr
	case status == http.StatusUnauthorized:
		ce.Problem = ProblemUnauthorized
	case status == http.StatusForbidden:
		ce.Problem = ProblemForbidden
	case strings.Contains(err.Error(), "unsupported protocol version"):
		ce.Problem = ProblemProtocol
		if _, v, ok := strings.Cut(err.Error(), "unsupported protocol version: "); ok {
			ce.ServerVersion, _ = strconv.Unquote(strings.TrimSpace(v))
		}
	default:
		ce.Problem = ProblemNotMCP
	}
	return ce
}

// install makes cn the current connection and watches it.
func (c *Client) install(cn *conn) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cn.session.Close()
		return
	}
	c.conn = cn
	c.status = cn.status
	c.notifyLocked()
	c.mu.Unlock()
	c.opts.logf("ide: connected to %s (%s, MCP %s)", cn.status.URL, cn.status.IDE.DisplayName, cn.status.ProtocolVersion)
	go func() {
		err := cn.session.Wait()
		c.lost(cn, err)
	}()
}

// lost handles the end of a session: the context is cleared, pending diffs
// fail, and rediscovery starts.
func (c *Client) lost(cn *conn, err error) {
	cn.tr.base.CloseIdleConnections()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != cn {
		return
	}
	c.conn = nil
	c.ctx = nil
	// The transport's error (an SSE stream's retries, a session id) means
	// nothing to the user, who closed the editor or restarted the
	// companion: it goes to the debug log, the user reads what happened.
	detail := "IDE connection closed (the IDE or its companion stopped)"
	if err != nil && !c.closed {
		c.opts.logf("ide: session with %s ended: %v", cn.status.URL, err)
	}
	c.status = Status{State: Disconnected, Detail: detail, IDE: cn.status.IDE}
	for p, ch := range c.diffs {
		ch <- diffResult{err: ErrDisconnected}
		delete(c.diffs, p)
	}
	c.notifyLocked()
	if c.closed || c.looping {
		return
	}
	c.opts.warn(detail + "; looking for the companion again")
	c.looping = true
	go c.reconnect()
}

// reconnect looks for the companion again until one answers or the client
// is closed.
func (c *Client) reconnect() {
	defer func() {
		c.mu.Lock()
		c.looping = false
		c.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	for attempt := 0; ; attempt++ {
		t := time.NewTimer(c.reconnectDelay(attempt))
		select {
		case <-t.C:
		case <-c.kick:
			t.Stop()
		case <-c.done:
			t.Stop()
			return
		}
		cn, err := c.dial(ctx)
		if err == nil {
			c.install(cn)
			c.opts.warn("reconnected to the IDE companion at " + cn.status.URL)
			return
		}
		c.mu.Lock()
		c.status.Detail = err.Error()
		c.notifyLocked()
		c.mu.Unlock()
	}
}

func (c *Client) reconnectDelay(attempt int) time.Duration {
	if c.opts.ReconnectDelay != nil {
		return c.opts.ReconnectDelay(attempt)
	}
	if attempt == 0 {
		return 0
	}
	d := time.Second << min(attempt-1, 5)
	return min(d, 30*time.Second)
}

// Reconnect asks a disconnected client to look for the companion now
// instead of at its next scheduled attempt.
func (c *Client) Reconnect() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// notifyLocked wakes whoever waits on Changed.
func (c *Client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Changed returns a channel closed at the next change of status or
// context. Take it before checking the state you wait for.
func (c *Client) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Status returns the connection status.
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.status
	st.Tools = slices.Clone(st.Tools)
	return st
}

// Context returns the latest normalised editor context, or nil.
func (c *Client) Context() *Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// Trusted returns what the IDE last said about trusting the workspace,
// or nil.
func (c *Client) Trusted() *bool {
	return c.Context().Trusted()
}

// DiffingEnabled reports whether edits can be shown as diffs in the IDE.
func (c *Client) DiffingEnabled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn != nil && c.conn.status.Diffing
}

// Close ends the session and stops reconnecting. A diff still open in the
// IDE is closed first, as Gemini CLI does when IDE mode is disabled, so
// that the editor does not keep showing a change nobody will answer
// there; whoever waits on it is told the IDE went away (Confirm's
// terminal still answers the edit).
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.done)
	cn := c.conn
	open := make([]string, 0, len(c.diffs))
	for p := range c.diffs {
		open = append(open, p)
	}
	c.mu.Unlock()
	if cn == nil {
		return nil
	}
	for _, p := range open {
		// Bounded: a companion that stopped answering must not hold up
		// /ide disable or the end of the session.
		ctx, cancel := context.WithTimeout(context.Background(), closeDiffTimeout)
		if _, _, err := c.closeDiff(ctx, p); err != nil {
			c.opts.logf("ide: closing the diff of %s: %v", p, err)
		}
		cancel()
	}
	err := cn.session.Close()
	cn.tr.base.CloseIdleConnections()
	return err
}

// handleNote receives the ide/* notifications of session gen.
func (c *Client) handleNote(gen int, method string, params json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen || c.closed {
		return
	}
	switch method {
	case "ide/contextUpdate":
		ctx, err := ParseContext(params)
		if err != nil {
			c.opts.logf("ide: %v", err)
			return
		}
		c.ctx = ctx
		c.notifyLocked()
	case "ide/diffAccepted":
		var p struct {
			FilePath string  `json:"filePath"`
			Content  *string `json:"content"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			c.opts.logf("ide: malformed %s: %v", method, err)
			return
		}
		c.resolveLocked(p.FilePath, diffResult{accepted: true, content: p.Content})
	case "ide/diffRejected", "ide/diffClosed":
		// diffClosed is what older companions send for a rejection.
		var p struct {
			FilePath string `json:"filePath"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			c.opts.logf("ide: malformed %s: %v", method, err)
			return
		}
		c.resolveLocked(p.FilePath, diffResult{})
	default:
		c.opts.logf("ide: ignoring notification %s", method)
	}
}

func (c *Client) resolveLocked(path string, r diffResult) {
	ch, ok := c.diffs[path]
	if !ok {
		c.opts.logf("ide: answer for a diff of %s that is not open", path)
		return
	}
	delete(c.diffs, path)
	ch <- r
}

// pendingDiff is a diff open in the IDE.
type pendingDiff struct {
	c       *Client
	path    string
	ch      chan diffResult
	release func()
}

// openDiff shows newContent for path in the IDE. Only one diff is open at
// a time (the VS Code companion cannot show two), so it waits for the
// previous one to be answered.
func (c *Client) openDiff(ctx context.Context, path, newContent string) (*pendingDiff, error) {
	select {
	case c.diffSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	release := func() { once.Do(func() { <-c.diffSem }) }
	c.mu.Lock()
	cn := c.conn
	if cn == nil || !cn.status.Diffing {
		c.mu.Unlock()
		release()
		if cn == nil {
			return nil, ErrNotConnected
		}
		return nil, ErrNoDiffing
	}
	// Registered before the call: the answer may overtake the result.
	ch := make(chan diffResult, 1)
	c.diffs[path] = ch
	c.mu.Unlock()
	unregister := func() {
		c.mu.Lock()
		if c.diffs[path] == ch {
			delete(c.diffs, path)
		}
		c.mu.Unlock()
	}
	cctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	res, err := cn.session.CallTool(cctx, &mcp.CallToolParams{
		Name:      "openDiff",
		Arguments: map[string]any{"filePath": path, "newContent": newContent},
	})
	if err == nil && res.IsError {
		err = toolError("openDiff", res)
	}
	if err != nil {
		unregister()
		release()
		if why := connectionBroke(err); why != "" {
			// The companion died without an event stream to tell us (MCP
			// makes the stream optional): the session is over. Closing it
			// runs lost, which reports it and looks for the companion
			// again, instead of every later edit failing the same way.
			c.opts.logf("ide: openDiff: %v", err)
			cn.session.Close()
			return nil, fmt.Errorf("the IDE companion at %s is gone (%s)", cn.status.URL, why)
		}
		return nil, fmt.Errorf("opening the diff in the IDE: %w", err)
	}
	return &pendingDiff{c: c, path: path, ch: ch, release: func() { unregister(); release() }}, nil
}

// DiffResult is the user's answer to a diff.
type DiffResult struct {
	// Accepted is false when the user rejected the change.
	Accepted bool
	// Content is the file content the user accepted, which may differ
	// from the proposal; nil when the companion did not send it.
	Content *string
}

// OpenDiff shows newContent for filePath in the IDE and waits until the
// user accepts or rejects it there, or ctx ends (the diff is then closed).
func (c *Client) OpenDiff(ctx context.Context, filePath, newContent string) (DiffResult, error) {
	d, err := c.openDiff(ctx, filePath, newContent)
	if err != nil {
		return DiffResult{}, err
	}
	defer d.release()
	select {
	case r := <-d.ch:
		return DiffResult{Accepted: r.accepted, Content: r.content}, r.err
	case <-ctx.Done():
		c.closeDiff(context.WithoutCancel(ctx), filePath)
		return DiffResult{}, ctx.Err()
	}
}

// CloseDiff closes the diff of filePath, answered elsewhere, and returns
// the content it showed (with the user's edits); ok is false when the
// companion reported none. An OpenDiff waiting on it returns
// ErrDiffClosed.
func (c *Client) CloseDiff(ctx context.Context, filePath string) (content string, ok bool, err error) {
	content, ok, err = c.closeDiff(ctx, filePath)
	c.mu.Lock()
	if ch, waiting := c.diffs[filePath]; waiting {
		delete(c.diffs, filePath)
		ch <- diffResult{err: ErrDiffClosed}
	}
	c.mu.Unlock()
	return content, ok, err
}

func (c *Client) closeDiff(ctx context.Context, path string) (string, bool, error) {
	c.mu.Lock()
	cn := c.conn
	c.mu.Unlock()
	if cn == nil {
		return "", false, ErrNotConnected
	}
	cctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	res, err := cn.session.CallTool(cctx, &mcp.CallToolParams{
		Name: "closeDiff",
		// suppressNotification keeps older companions from reporting the
		// close as a rejection of a diff already answered here.
		Arguments: map[string]any{"filePath": path, "suppressNotification": true},
	})
	if err != nil {
		return "", false, err
	}
	if res.IsError {
		return "", false, toolError("closeDiff", res)
	}
	for _, ct := range res.Content {
		tc, isText := ct.(*mcp.TextContent)
		if !isText {
			continue
		}
		var v struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal([]byte(tc.Text), &v) == nil && v.Content != nil {
			return *v.Content, true, nil
		}
		break
	}
	return "", false, nil
}

func toolError(name string, res *mcp.CallToolResult) error {
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok && tc.Text != "" {
			return errors.New(tc.Text)
		}
	}
	return fmt.Errorf("tool '%s' reported an error", name)
}

// PromptContext is the agent's per-prompt hook (agent.Config.PromptContext):
// the whole editor context on the first prompt, then only what changed,
// in Gemini CLI's words. A disconnected client is asked to reconnect.
func (c *Client) PromptContext(first bool) []*genai.Part {
	c.mu.Lock()
	cur, down := c.ctx, c.conn == nil && !c.closed
	c.mu.Unlock()
	if down {
		c.Reconnect()
	}
	if text := c.prompt.next(cur, first); text != "" {
		return []*genai.Part{{Text: text}}
	}
	return nil
}

// prompter remembers the context last given to the model.
type prompter struct {
	mu       sync.Mutex
	lastSent *Context
}

// next returns the text for a prompt: everything when first or when
// nothing was sent before, else the changes since the last one.
func (p *prompter) next(cur *Context, first bool) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var text string
	switch {
	case cur == nil:
		// No context at all (disconnected): say nothing, and send
		// everything once there is one again, as Gemini CLI does.
	case first || p.lastSent == nil:
		text = FullContextText(cur)
	default:
		text = DeltaText(p.lastSent, cur)
	}
	p.lastSent = cur
	return text
}

// connectionBroke says, in a few words, how a request to the companion
// failed when the failure is its connection's: refused (nothing listens
// any more), reset, or closed under a kept-alive connection (a companion
// killed between two requests). It is "" for any other error.
func connectionBroke(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	return ""
}
