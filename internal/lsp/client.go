package lsp

import (
	"context"
	"encoding/json"
	"errors"

	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/internal/proc"
)

// stopGrace is how long a server has to exit after "exit" (and again
// after SIGTERM) before its group is killed.
const stopGrace = 2 * time.Second

// Client is one running language server for one root folder.
type Client struct {
	cfg  ServerConfig
	root string

	group  *proc.Group
	stdin  *os.File
	conn   *conn
	stderr *proc.Buffer
	// done closes when the process has exited; exitErr says how.
	done    chan struct{}
	exitErr error

	// syncMu keeps a document's versions in the order they are sent.
	syncMu  sync.Mutex
	mu      sync.Mutex
	closing bool
	docs    map[string]*document
	// seq counts publishDiagnostics notifications; published and
	// changed let WaitDiagnostics see a new one.
	seq       int
	published map[string]published
	changed   chan struct{}
}

// document is a file the server has open.
type document struct {
	version int
	text    string
	// sentSeq is seq when the last version was sent: a publish without a
	// version counts only if it came after.
	sentSeq int
}

// published is the last diagnostics a server sent for a document.
type published struct {
	version *int
	seq     int
	diags   []Diagnostic
}

// start runs the server in its own process group, in root, and
// initializes it.
func start(ctx context.Context, cfg ServerConfig, root string, environ []string) (*Client, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = root
	var add []string
	for k, v := range cfg.Env {
		add = append(add, k+"="+v)
	}
	cmd.Env = proc.Env(environ, add, nil)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	c := &Client{
		cfg: cfg, root: root, stdin: inW,
		stderr:    &proc.Buffer{Limit: 16 << 10},
		done:      make(chan struct{}),
		docs:      map[string]*document{},
		published: map[string]published{},
		changed:   make(chan struct{}),
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	c.group = proc.New(cmd, proc.Options{Grace: stopGrace, Tether: true, Unconfined: true})
	err = c.group.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	c.conn = newConn(inW)
	c.conn.notify = c.onNotify
	c.conn.request = c.onRequest
	go func() {
		_ = c.conn.run(outR)
		outR.Close()
	}()
	go func() {
		err := cmd.Wait()
		if c.group.Alive() {
			c.group.Stop()
		}
		c.group.Release()
		c.mu.Lock()
		c.exitErr = err
		c.mu.Unlock()
		close(c.done)
	}()
	if err := c.initialize(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// initialize is the handshake: the capabilities Castor uses, the root as
// the one workspace folder, the user's initializationOptions.
func (c *Client) initialize(ctx context.Context) error {
	rootURI := FileURI(c.root)
	params := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]any{"name": "castor"},
		"rootUri":    rootURI,
		"rootPath":   c.root,
		"workspaceFolders": []map[string]any{
			{"uri": rootURI, "name": filepath.Base(c.root)},
		},
		"capabilities": map[string]any{
			"workspace": map[string]any{
				"workspaceFolders": true,
				"configuration":    true,
				"symbol":           map[string]any{},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": false},
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"definition":         map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"rename":             map[string]any{},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			},
			"window": map[string]any{"workDoneProgress": false},
		},
	}
	if c.cfg.InitializationOptions != nil {
		params["initializationOptions"] = c.cfg.InitializationOptions
	}
	if err := c.call(ctx, "initialize", params, nil); err != nil {
		return err
	}
	return c.conn.Notify("initialized", map[string]any{})
}

// call is conn.Call that also ends when the process exits.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := c.conn.Call(ctx, method, params, result)
	if errors.Is(err, errClosed) {
		// The process is going: say how it ended rather than "closed".
		select {
		case <-c.done:
		case <-time.After(stopGrace):
		}
	}
	if err != nil && c.Exited() {
		return c.exitError()
	}
	return err
}

// Exited reports whether the server process has ended.
func (c *Client) Exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// exitError says how the server ended, with the end of its stderr.
func (c *Client) exitError() error {
	c.mu.Lock()
	err := c.exitErr
	c.mu.Unlock()
	msg := "exited"
	if err != nil {
		msg = err.Error()
	}
	if tail := strings.TrimSpace(c.stderr.Tail(2000)); tail != "" {
		msg += "; stderr: " + tail
	}
	return errors.New(msg)
}

// Stderr is the end of what the server wrote to its stderr.
func (c *Client) Stderr() string { return c.stderr.Tail(2000) }

func (c *Client) onNotify(method string, params json.RawMessage) {
	if method != "textDocument/publishDiagnostics" {
		return
	}
	var p publishDiagnosticsParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	c.mu.Lock()
	c.seq++
	c.published[normalizeURI(p.URI)] = published{version: p.Version, seq: c.seq, diags: p.Diagnostics}
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// onRequest answers what servers ask of a client: configuration (none:
// the server's defaults), progress tokens and registrations (accepted),
// edits (refused: Castor's edits go through its own tools).
func (c *Client) onRequest(method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		return make([]any, len(p.Items)), nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability", "window/showMessageRequest":
		return nil, nil
	case "workspace/workspaceFolders":
		return []map[string]any{{"uri": FileURI(c.root), "name": filepath.Base(c.root)}}, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "Castor applies edits through its own tools"}, nil
	}
	return nil, &rpcError{Code: -32601, Message: "method not found: " + method}
}

// Sync gives the server text as the content of path (didOpen the first
// time, didChange after) and returns the document's version; the same
// text as last time sends nothing.
func (c *Client) Sync(path, text string) (uri string, version int, err error) {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	uri = FileURI(path)
	c.mu.Lock()
	d := c.docs[uri]
	if d != nil && d.text == text {
		v := d.version
		c.mu.Unlock()
		return uri, v, nil
	}
	if d == nil {
		d = &document{}
		c.docs[uri] = d
	}
	d.version++
	d.text = text
	d.sentSeq = c.seq
	v := d.version
	c.mu.Unlock()
	if v == 1 {
		err = c.conn.Notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, LanguageID: c.cfg.languageID(path), Version: v, Text: text}})
	} else {
		err = c.conn.Notify("textDocument/didChange", didChangeParams{
			TextDocument:   versionedTextDocumentIdentifier{URI: uri, Version: v},
			ContentChanges: []contentChange{{Text: text}},
		})
	}
	return uri, v, err
}

// SyncFile is Sync with the file's content on disk.
func (c *Client) SyncFile(path string) (uri string, version int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return FileURI(path), 0, err
	}
	return c.Sync(path, string(b))
}

// settle is how long a server that does not version its diagnostics
// must stay quiet before its last ones count as final: such servers
// (typescript-language-server) publish a file's syntax problems first
// and its type errors a moment later.
const settle = 400 * time.Millisecond

// WaitDiagnostics waits for the server's diagnostics of version of uri
// (or later), until ctx ends; ok is false when none came.
func (c *Client) WaitDiagnostics(ctx context.Context, uri string, version int) (diags []Diagnostic, ok bool) {
	uri = normalizeURI(uri)
	var quiet <-chan time.Time
	for {
		c.mu.Lock()
		p, have := c.published[uri]
		d := c.docs[uri]
		changed := c.changed
		c.mu.Unlock()
		if have && d != nil {
			switch {
			case p.version != nil && *p.version >= version:
				return p.diags, true
			case p.version == nil && p.seq > d.sentSeq:
				diags, ok = p.diags, true
				quiet = time.After(settle)
			}
		}
		select {
		case <-changed:
		case <-quiet:
			return diags, ok
		case <-ctx.Done():
			return diags, ok
		case <-c.done:
			return nil, false
		}
	}
}

// changedChan closes at the next publishDiagnostics.
func (c *Client) changedChan() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Diagnostics returns the last diagnostics published for every document.
func (c *Client) Diagnostics() map[string][]Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]Diagnostic, len(c.published))
	for uri, p := range c.published {
		out[uri] = p.diags
	}
	return out
}

// Call sends a request to the server.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, method, params, result)
}

// Close asks the server to shut down and exit, and stops its process
// group if it does not within the grace period.
func (c *Client) Close() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	if !c.Exited() {
		ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
		if c.call(ctx, "shutdown", nil, nil) == nil {
			_ = c.conn.Notify("exit", nil)
		}
		cancel()
		c.stdin.Close()
		select {
		case <-c.done:
		case <-time.After(stopGrace):
			c.group.Stop()
			<-c.done
		}
	}
	c.stdin.Close()
	// What the server started and left running (gopls's go commands, its
	// index writers) goes with it: nothing of it writes after Close.
	c.group.Stop()
}

// closedByUs reports whether Close was called (an exit then is no crash).
func (c *Client) closedByUs() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// Pid is the server process's id.
func (c *Client) Pid() int { return c.group.Pid() }

// FileURI is the file:// URI of an absolute path.
func FileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// URIPath is the file path of a file:// URI ("" for another scheme).
func URIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // /C:/x on Windows
	}
	return filepath.FromSlash(p)
}

// normalizeURI makes the URIs servers send comparable with ours (they
// may escape a drive colon or spaces differently).
func normalizeURI(uri string) string {
	if p := URIPath(uri); p != "" {
		return FileURI(p)
	}
	return uri
}

// describe is how the server is named in messages: its command line.
func (cfg ServerConfig) describe() string {
	return strings.TrimSpace(cfg.Command + " " + strings.Join(cfg.Args, " "))
}
