// Package companion is an IDE companion server as Gemini CLI's companion
// specification defines it: MCP over streamable HTTP on 127.0.0.1 at
// /mcp, a fresh bearer token per start, a discovery file in
// <tmpdir>/gemini/ide, the openDiff and closeDiff tools, and the
// ide/contextUpdate, ide/diffAccepted and ide/diffRejected notifications.
// Gemini CLI and Castor connect to it as they connect to the VS Code
// companion.
//
// An editor integration plugs in with the Editor interface (to show and
// close diffs) and reports what the user does through the Server's
// methods (FileFocused, CursorMoved, AcceptDiff, ...). ServeStdio runs the
// server for an editor plugin written in any language, over
// newline-delimited JSON (see ide/PROTOCOL.md).
package companion

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/httpguard"
	"github.com/castor-dev/castor/internal/textutil"
)

// DefaultDebounce is how long context changes settle before one
// ide/contextUpdate goes out (the spec's recommended 50 ms).
const DefaultDebounce = 50 * time.Millisecond

// Errors of the Server's methods.
var (
	ErrVirtualFile = errors.New("not an absolute file path (virtual files are left out of the context)")
	ErrNoDiff      = errors.New("no diff is open for this file")
	ErrNotStarted  = errors.New("the companion is not running")
)

// Editor is what the companion asks of the editor.
type Editor interface {
	// OpenDiff shows newContent against filePath's content on disk (empty
	// for a new file) in a view the user can edit, then accept or reject;
	// the answer comes back through Server.AcceptDiff or RejectDiff. It
	// returns once the view is open.
	OpenDiff(ctx context.Context, filePath, newContent string) error
	// CloseDiff closes the diff view of filePath, answered elsewhere, and
	// returns the content it held, with the user's edits.
	CloseDiff(ctx context.Context, filePath string) (content string, err error)
}

// Timer is a pending debounce; time.Timer satisfies it.
type Timer interface {
	Stop() bool
}

// Options configures a Server.
type Options struct {
	// Workspaces are the absolute roots open in the editor; the CLI only
	// connects from inside one of them.
	Workspaces []string
	// IDE names the editor in the discovery file.
	IDE ide.IDEInfo
	// PID is the editor's process id, in the discovery file's name; the
	// CLI prefers the file of the IDE it runs in (default: the parent of
	// this process, which is the editor when the editor started it).
	PID int
	// TempDir replaces os.TempDir.
	TempDir string
	// Editor shows diffs; without one, openDiff and closeDiff fail.
	Editor Editor
	// Version is reported as the MCP server's version.
	Version string
	// Debounce replaces DefaultDebounce.
	Debounce time.Duration
	// AfterFunc schedules the debounced update (default time.AfterFunc);
	// tests replace it to fire updates by hand.
	AfterFunc func(d time.Duration, f func()) Timer
	// Now is the clock for the files' focus timestamps.
	Now func() time.Time
	// Logf receives debug messages.
	Logf func(format string, args ...any)
}

// Server is a running companion. Its methods are safe for concurrent use.
type Server struct {
	opts  Options
	token string
	mcp   *mcp.Server
	sdk   http.Handler

	mu       sync.Mutex
	srv      *http.Server
	port     int
	file     string
	files    []ide.File // most recently focused first
	trusted  *bool
	diffs    map[string]string // open diffs: path → proposed content
	timer    Timer
	timerGen int
	sessions map[string]*session
	stopped  bool

	// notify sends a notification to every session; tests replace it.
	notify func(method string, params any)
	// contextSend orders context snapshots with their delivery (see
	// flushContext and initialized).
	contextSend sync.Mutex
}

// New returns a server that is not listening yet. Every server has a new
// random token.
func New(o Options) *Server {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PID == 0 {
		o.PID = os.Getppid()
	}
	if o.IDE.Name == "" {
		o.IDE = ide.IDEInfo{Name: "castor", DisplayName: "Castor companion"}
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &Server{
		opts:     o,
		token:    rand.Text(),
		diffs:    map[string]string{},
		sessions: map[string]*session{},
	}
	s.notify = s.broadcast
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "castor-ide-companion", Version: o.Version}, &mcp.ServerOptions{
		InitializedHandler: s.initialized,
		// The notifications travel on the standalone event stream, which
		// protocol versions from 2026-07-28 on do not have.
		SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18", "2025-03-26"},
		KeepAlive:                 time.Minute,
	})
	s.addTools()
	s.sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: 64 << 20, // whole files travel in openDiff
	})
	return s
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// Start listens on 127.0.0.1 on a port the system picks and writes the
// discovery file (mode 0600).
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{
		Handler:           httpguard.ReadBodyWithin(s.Handler(port), httpguard.BodyTimeout),
		ReadHeaderTimeout: httpguard.HeaderTimeout,
	}
	file, err := s.writeDiscoveryFile(port)
	if err != nil {
		ln.Close()
		return err
	}
	s.mu.Lock()
	s.srv, s.port, s.file = srv, port, file
	s.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("companion: %v", err)
		}
	}()
	s.logf("companion: listening on 127.0.0.1:%d, discovery file %s", port, file)
	return nil
}

// writeDiscoveryFile writes the file atomically, so that a CLI never reads
// half of it, and readable by the user alone, since it holds the token.
func (s *Server) writeDiscoveryFile(port int) (string, error) {
	tmp := s.opts.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	dir := ide.DiscoveryDir(tmp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating the discovery directory: %w", err)
	}
	wp := s.WorkspacePath()
	data, err := json.Marshal(ide.DiscoveryFile{
		Port:          ide.Port(port),
		WorkspacePath: &wp,
		AuthToken:     s.token,
		IDEInfo:       &s.opts.IDE,
	})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, ide.DiscoveryFileName(s.opts.PID, port))
	if err := fsutil.ReplaceFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("writing the discovery file: %w", err)
	}
	return path, nil
}

// Stop closes every session, stops the server and deletes the discovery
// file.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	srv, file := s.srv, s.file
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	var err error
	if file != "" {
		// The file goes first: a CLI must not find a companion that is
		// about to vanish.
		if rerr := os.Remove(file); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	if srv != nil {
		// Event streams never end by themselves: give open requests a
		// moment, then cut them.
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if serr := srv.Shutdown(sctx); serr != nil {
			srv.Close()
		}
	}
	return err
}

// stopSignals end a companion, which then deletes its discovery file. A
// hangup is among them: an editor that quits, or the terminal a companion
// was started from closing, sends SIGHUP, whose default action would kill
// the process and leave the file, and the token in it, behind. SIGINT is
// os.Interrupt, named so that the compiler lays the slice out statically.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// Run starts the server and serves until ctx ends or the process gets
// SIGINT, SIGTERM or SIGHUP, then stops it, deleting the discovery file.
func (s *Server) Run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, stopSignals...)
	defer stop()
	if err := s.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	return s.Stop(context.Background())
}

// Port returns the port listened on (0 before Start).
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// Token returns the secret bearer token.
func (s *Server) Token() string { return s.token }

// DiscoveryFile returns the discovery file's path ("" before Start).
func (s *Server) DiscoveryFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file
}

// WorkspacePath returns the workspace roots as the discovery file lists
// them.
func (s *Server) WorkspacePath() string {
	return strings.Join(s.opts.Workspaces, string(os.PathListSeparator))
}

// Env returns the variables an editor should set in its integrated
// terminals: GEMINI_CLI_IDE_SERVER_PORT picks this companion when several
// serve the same workspace.
func (s *Server) Env() map[string]string {
	return map[string]string{
		ide.EnvServerPort:    strconv.Itoa(s.Port()),
		ide.EnvWorkspacePath: s.WorkspacePath(),
	}
}

// Handler is the HTTP handler of a server listening on port: request
// checks, then MCP at /mcp.
func (s *Server) Handler(port int) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", s.serveMCP)
	return s.guard(mux)
}

// guard rejects what a local web page or another user could send, as the
// VS Code companion does: a request from a web page (a foreign Origin), a
// Host that is not a loopback name (DNS rebinding) and a body that is not
// JSON (internal/httpguard), and anything without the token.
func (s *Server) guard(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.token)
	door := httpguard.New(httpguard.Options{ListenHost: "127.0.0.1", JSONBodies: true})
	return door.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			s.logf("companion: rejected a request without the right token")
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	}), func(w http.ResponseWriter, r *http.Request, why *httpguard.Refusal) {
		s.logf("companion: refused a request: %s", why.Reason)
		// The VS Code companion's answers, which its clients know.
		switch why.What {
		case "origin":
			writeJSONError(w, http.StatusForbidden, "Request denied by CORS policy.")
		case "host":
			writeJSONError(w, http.StatusForbidden, "Invalid Host header")
		default:
			writeJSONError(w, why.Status, why.Reason)
		}
	})
}

func writeJSONError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// serveMCP hands requests to the SDK, keeping hold of each session's
// standalone event stream to send the ide/* notifications on it.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodGet || id == "" {
		s.sdk.ServeHTTP(w, r)
		return
	}
	sw := &streamWriter{ResponseWriter: w, ready: make(chan struct{})}
	finished := make(chan struct{})
	go func() {
		select {
		case <-sw.ready:
			s.session(id).attach(sw)
		case <-finished:
		}
	}()
	s.sdk.ServeHTTP(sw, r)
	close(finished)
	// Nothing may write to the response once the handler returns.
	sw.kill()
	s.forgetStream(id)
}

// addTools registers openDiff and closeDiff with the result shapes of the
// spec.
func (s *Server) addTools() {
	s.mcp.AddTool(&mcp.Tool{
		Name:        "openDiff",
		Description: "(IDE Tool) Open a diff view to create or modify a file. Returns a notification once the diff has been accepted or rejected.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"filePath":{"type":"string"},"newContent":{"type":"string"}},"required":["filePath","newContent"],"additionalProperties":false}`),
	}, s.openDiffTool)
	s.mcp.AddTool(&mcp.Tool{
		Name:        "closeDiff",
		Description: "(IDE Tool) Close an open diff view for a specific file.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"filePath":{"type":"string"},"suppressNotification":{"type":"boolean"}},"required":["filePath"],"additionalProperties":false}`),
	}, s.closeDiffTool)
}

func toolFailure(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

func (s *Server) openDiffTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		FilePath   *string `json:"filePath"`
		NewContent *string `json:"newContent"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.FilePath == nil || in.NewContent == nil {
		return toolFailure("openDiff needs filePath and newContent strings"), nil
	}
	path := *in.FilePath
	if !filepath.IsAbs(path) {
		return toolFailure(fmt.Sprintf("filePath must be absolute, got %q", path)), nil
	}
	if s.opts.Editor == nil {
		return toolFailure("no editor is attached to the companion"), nil
	}
	s.mu.Lock()
	s.diffs[path] = *in.NewContent
	s.mu.Unlock()
	if err := s.opts.Editor.OpenDiff(ctx, path, *in.NewContent); err != nil {
		s.mu.Lock()
		delete(s.diffs, path)
		s.mu.Unlock()
		return toolFailure("Failed to open the diff view: " + err.Error()), nil
	}
	// Success is an empty content list, not a missing one.
	return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
}

func (s *Server) closeDiffTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		FilePath *string `json:"filePath"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.FilePath == nil {
		return toolFailure("closeDiff needs a filePath string"), nil
	}
	path := *in.FilePath
	s.mu.Lock()
	_, open := s.diffs[path]
	delete(s.diffs, path)
	s.mu.Unlock()
	// The text is JSON {"content": ...}; like the VS Code companion, a
	// diff that is not open has no content, {}.
	var out struct {
		Content *string `json:"content,omitempty"`
	}
	if open {
		if s.opts.Editor == nil {
			return toolFailure("no editor is attached to the companion"), nil
		}
		content, err := s.opts.Editor.CloseDiff(ctx, path)
		if err != nil {
			return toolFailure("Failed to close the diff view: " + err.Error()), nil
		}
		out.Content = &content
	}
	text, err := marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
}

// AcceptDiff reports that the user accepted the diff of filePath with
// content (their final version, edits included).
func (s *Server) AcceptDiff(filePath, content string) error {
	if !s.takeDiff(filePath) {
		return ErrNoDiff
	}
	s.notify("ide/diffAccepted", struct {
		FilePath string `json:"filePath"`
		Content  string `json:"content"`
	}{filePath, content})
	return nil
}

// RejectDiff reports that the user rejected the diff of filePath.
func (s *Server) RejectDiff(filePath string) error {
	if !s.takeDiff(filePath) {
		return ErrNoDiff
	}
	s.notify("ide/diffRejected", struct {
		FilePath string `json:"filePath"`
	}{filePath})
	return nil
}

// ProposedContent returns the content proposed for an open diff.
func (s *Server) ProposedContent(filePath string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.diffs[filePath]
	return c, ok
}

func (s *Server) takeDiff(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.diffs[path]
	delete(s.diffs, path)
	return ok
}

// FileFocused reports that filePath became the active file: it moves to
// the front, with the time of focus, and the previous active file loses
// its cursor and selection.
func (s *Server) FileFocused(filePath string) error {
	if !filepath.IsAbs(filePath) {
		return ErrVirtualFile
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.focusLocked(filePath)
	s.changedLocked()
	return nil
}

func (s *Server) focusLocked(path string) {
	for i := range s.files {
		if s.files[i].IsActive {
			s.files[i].IsActive, s.files[i].Cursor, s.files[i].SelectedText = false, nil, ""
		}
	}
	s.files = slices.DeleteFunc(s.files, func(f ide.File) bool { return f.Path == path })
	s.files = slices.Insert(s.files, 0, ide.File{Path: path, Timestamp: s.opts.Now().UnixMilli(), IsActive: true})
	if len(s.files) > ide.MaxOpenFiles {
		s.files = s.files[:ide.MaxOpenFiles]
	}
}

// FileOpened reports a file open in the editor but not focused. It goes
// to the end of the list with timestamp 0 (never focused), so that it
// never looks more recent than the active file.
func (s *Server) FileOpened(filePath string) error {
	if !filepath.IsAbs(filePath) {
		return ErrVirtualFile
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indexLocked(filePath) >= 0 || len(s.files) >= ide.MaxOpenFiles {
		return nil
	}
	s.files = append(s.files, ide.File{Path: filePath})
	s.changedLocked()
	return nil
}

// FileClosed reports that filePath was closed.
func (s *Server) FileClosed(filePath string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.indexLocked(filePath); i >= 0 {
		s.files = slices.Delete(s.files, i, i+1)
		s.changedLocked()
	}
	return nil
}

// CursorMoved reports the cursor (1-based) in filePath, which becomes
// the active file if it was not.
func (s *Server) CursorMoved(filePath string, line, character int) error {
	if !filepath.IsAbs(filePath) {
		return ErrVirtualFile
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.activeLocked(filePath)
	f.Cursor = &ide.Cursor{Line: line, Character: character}
	s.changedLocked()
	return nil
}

// SelectionChanged reports the selected text in filePath ("" when nothing
// is selected), which becomes the active file if it was not. The text is
// cut at 16 KiB, as the VS Code companion cuts it.
func (s *Server) SelectionChanged(filePath, text string) error {
	if !filepath.IsAbs(filePath) {
		return ErrVirtualFile
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.activeLocked(filePath)
	f.SelectedText = textutil.CutUTF16(text, ide.MaxSelectedTextLen)
	s.changedLocked()
	return nil
}

// SetTrusted reports whether the editor trusts the workspace.
func (s *Server) SetTrusted(trusted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trusted = &trusted
	s.changedLocked()
}

func (s *Server) indexLocked(path string) int {
	return slices.IndexFunc(s.files, func(f ide.File) bool { return f.Path == path })
}

// activeLocked returns path's entry, focusing it first if needed: an
// editor reports cursor moves of the file the user works in.
func (s *Server) activeLocked(path string) *ide.File {
	if len(s.files) == 0 || s.files[0].Path != path || !s.files[0].IsActive {
		s.focusLocked(path)
	}
	return &s.files[0]
}

// Context returns the editor context as the next ide/contextUpdate will
// carry it.
func (s *Server) Context() *ide.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.contextLocked()
}

func (s *Server) contextLocked() *ide.Context {
	files := slices.Clone(s.files)
	for i := range files {
		if files[i].Cursor != nil {
			c := *files[i].Cursor
			files[i].Cursor = &c
		}
	}
	if files == nil {
		// The VS Code companion always sends the list, empty or not.
		files = []ide.File{}
	}
	var trusted *bool
	if s.trusted != nil {
		t := *s.trusted
		trusted = &t
	}
	return &ide.Context{WorkspaceState: &ide.WorkspaceState{OpenFiles: files, IsTrusted: trusted}}
}

// changedLocked (re)starts the debounce: a burst of changes sends one
// update, DefaultDebounce after the last of them.
func (s *Server) changedLocked() {
	if s.stopped {
		return
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timerGen++
	gen := s.timerGen
	s.timer = s.opts.AfterFunc(s.opts.Debounce, func() { s.flushContext(gen) })
}

func (s *Server) flushContext(gen int) {
	// Taking the snapshot and sending it happen under contextSend, as a
	// new session's greeting does, so a client never gets an older context
	// after a newer one.
	s.contextSend.Lock()
	defer s.contextSend.Unlock()
	s.mu.Lock()
	if gen != s.timerGen || s.stopped {
		// A later change restarted the debounce; its own timer sends.
		s.mu.Unlock()
		return
	}
	s.timer = nil
	c := s.contextLocked()
	s.mu.Unlock()
	s.notify("ide/contextUpdate", c)
}
