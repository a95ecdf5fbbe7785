package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/version"
)

// Server serves Castor sessions to one ACP client.
type Server struct {
	// Options are what every session is assembled from; the server sets
	// WorkDir (the session's cwd), Confirm, Files, Shell, MCPServers,
	// SessionID and Resume for each session.
	Options setup.Options
	// Name and Title identify the agent to the client (default "castor",
	// "Castor"); Version defaults to Castor's.
	Name, Title, Version string
	// Log receives diagnostics (default os.Stderr). Nothing but protocol
	// messages is ever written to the connection.
	Log io.Writer
	// AfterTurn, when set, is called as each prompt's turn ends (the
	// command gives memory back to the system there, internal/memtrim).
	AfterTurn func()

	conn *sdk.AgentSideConnection
	out  *lineWriter
	base context.Context

	inflight inflight
	closing  atomic.Bool
	// outFailed is set by the first failed write to the client: what
	// fails after it is said once, by Serve.
	outFailed atomic.Bool

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	authEnv  map[string]string
	sessions map[string]*session
}

// Serve answers the client writing to r and reading from w until the
// client goes away (r ends, or a write to w fails) or ctx is cancelled;
// then it cancels running
// turns and closes every session, so that nothing recorded is lost. It
// returns nil on a clean end.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	if s.Log == nil {
		s.Log = os.Stderr
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.base = ctx
	s.sessions = map[string]*session{}
	// A client that stops reading (its end of stdout closed, the pipe
	// broken) is gone as surely as one whose input ended: the SDK only
	// drops what it fails to write, so turns would go on acting for no
	// one. Serve ends as on a signal, sessions closed and recorded.
	gone := make(chan error, 1)
	out := &lineWriter{w: w, answered: s.inflight.done, failed: func(err error) {
		s.outFailed.Store(true)
		select {
		case gone <- err:
		default:
		}
	}}
	s.out = out
	// Nothing is read until the connection is fully set up: its handlers
	// use s.conn, and the SDK reads its logger from its own goroutine.
	ready := make(chan struct{})
	in := filterLines(Gate(r, ready), out, s.Log, func(id json.RawMessage) { s.inflight.add(id) }, s.drain)
	s.conn = sdk.NewAgentSideConnection(s, out, in)
	s.conn.SetLogger(slog.New(slog.NewTextHandler(s.Log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(ready)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
		s.answerBeforeExit()
	case err := <-gone:
		s.warn(fmt.Sprintf("the client stopped reading (writing to it failed: %s); its sessions are closed", rootCause(err)))
	}
	cancel()
	s.closeAll()
	return nil
}

// rootCause is the innermost error's text ("broken pipe" rather than
// "write |1: broken pipe").
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// answerBeforeExit cancels running turns when Serve is stopped (a signal)
// while the client is still there, and waits, within exitGrace, until the
// requests already read are answered: the prompts as cancelled, so that the
// editor is told rather than left waiting on a pipe that closes.
func (s *Server) answerBeforeExit() {
	s.cancelTurns()
	grace := time.NewTimer(exitGrace)
	defer grace.Stop()
	select {
	case <-s.inflight.idle():
	case <-grace.C:
	}
}

// cancelTurns refuses new prompts (as cancelled) and cancels every
// session's running turn.
func (s *Server) cancelTurns() {
	s.closing.Store(true)
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.cancelTurn()
	}
}

// exitGrace bounds how long a stopped server waits for its answers.
const exitGrace = 5 * time.Second

// drain runs when the client's input ends: running turns are cancelled
// (new prompts are refused as cancelled) and the requests already read
// are answered before the connection closes, so that a client piping a
// few requests and closing its end still gets every answer.
func (s *Server) drain() {
	s.cancelTurns()
	// A request stuck past the grace period (a hung MCP server start)
	// must not keep the process alive once its client is gone.
	grace := time.NewTimer(drainGrace)
	defer grace.Stop()
	hooks := make(chan struct{})
	go func() {
		<-s.inflight.idle()
		s.out.running.Wait() // notifications that follow answers
		close(hooks)
	}()
	select {
	case <-hooks:
	case <-s.base.Done():
	case <-grace.C:
		s.warn("client gone; requests still unanswered are dropped")
	}
}

// drainGrace bounds how long answers are awaited after the client's
// input ended.
const drainGrace = 30 * time.Second

func (s *Server) warn(msg string) { fmt.Fprintf(s.Log, "Warning: %s\n", msg) }

// closeAll cancels every session's turn, waits for it to end and closes
// the session.
func (s *Server) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	for _, ss := range all {
		// A turn's context comes from its prompt request, not from
		// Serve's: on a signal the client is still there and the turn
		// would run on, so it is cancelled here.
		ss.cancelTurn()
		ss.close()
	}
}

func (s *Server) session(id sdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[string(id)]; ok {
		return ss, nil
	}
	return nil, &sdk.RequestError{Code: -32602, Message: "Session not found: " + string(id)}
}

// Initialize implements sdk.Agent.
func (s *Server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.caps = p.ClientCapabilities
	s.mu.Unlock()
	name, title, ver := s.Name, s.Title, s.Version
	if name == "" {
		name, title = "castor", "Castor"
	}
	if ver == "" {
		ver = version.Version
	}
	pv := sdk.ProtocolVersion(sdk.ProtocolVersionNumber)
	if p.ProtocolVersion < pv {
		pv = p.ProtocolVersion
	}
	return sdk.InitializeResponse{
		ProtocolVersion: pv,
		AgentInfo:       &sdk.Implementation{Name: name, Title: &title, Version: ver},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
				Delete: &sdk.SessionDeleteCapabilities{},
			},
		},
		AuthMethods: authMethods(),
	}, nil
}

// Authenticate implements sdk.Agent.
func (s *Server) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	env, err := authenticate(p.MethodId, p.Meta)
	if err != nil {
		return sdk.AuthenticateResponse{}, err
	}
	if p.MethodId == authAPIKey && env["GEMINI_API_KEY"] == "" {
		// Say now that no key can be found, not at the next session/new
		// (authkey.go).
		ks := s.keySearch()
		if where, read := ks.find(); where == "" {
			return sdk.AuthenticateResponse{}, ks.missingKeyError(read)
		}
	}
	s.mu.Lock()
	s.authEnv = env
	s.mu.Unlock()
	return sdk.AuthenticateResponse{}, nil
}

// Logout implements sdk.Agent: it forgets what authenticate set.
func (s *Server) Logout(context.Context, sdk.LogoutRequest) (sdk.LogoutResponse, error) {
	s.mu.Lock()
	s.authEnv = nil
	s.mu.Unlock()
	return sdk.LogoutResponse{}, nil
}

// NewSession implements sdk.Agent.
func (s *Server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	ss, err := s.open(ctx, p.Cwd, p.McpServers, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	// The client learns the session id from the answer: the commands
	// follow it.
	s.out.after(func() { ss.noteTrust(s.base); ss.announceCommands(s.base) }, `"result"`, `"sessionId":"`+ss.id+`"`)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(ss.id), Modes: ss.modes(), ConfigOptions: ss.configOptions(), Meta: ss.trustMeta()}, nil
}

// LoadSession implements sdk.AgentLoader: the recorded session is resumed
// (appended to, never rewritten) and its whole history replayed.
func (s *Server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	ss, err := s.resume(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := ss.replay(ctx); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	ss.noteTrust(ctx) // trust.go
	ss.announceCommands(ctx)
	return sdk.LoadSessionResponse{Modes: ss.modes(), ConfigOptions: ss.configOptions(), Meta: ss.trustMeta()}, nil
}

// ResumeSession implements sdk.Agent: session/load without the replay.
func (s *Server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	ss, err := s.resume(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	ss.noteTrust(ctx)
	ss.announceCommands(ctx)
	return sdk.ResumeSessionResponse{Modes: ss.modes(), ConfigOptions: ss.configOptions(), Meta: ss.trustMeta()}, nil
}

// resume returns the open session id, or opens the recorded one.
func (s *Server) resume(ctx context.Context, id sdk.SessionId, cwd string, servers []sdk.McpServer) (*session, error) {
	if id == "" {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	if ss, err := s.session(id); err == nil {
		return ss, nil
	}
	return s.open(ctx, cwd, servers, string(id))
}

// ListSessions implements sdk.Agent with the sessions recorded for the
// directory, the ones `castor --list-sessions` shows there.
func (s *Server) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	cwd := s.Options.WorkDir
	if p.Cwd != nil && *p.Cwd != "" {
		cwd = *p.Cwd
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	if !filepath.IsAbs(cwd) {
		return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": "cwd must be an absolute path"})
	}
	store, err := chats.OpenStore(s.home().Dir, cwd)
	if err != nil {
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	infos, err := store.List()
	if err != nil {
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for i := len(infos) - 1; i >= 0; i-- { // newest first
		in := infos[i]
		title := in.DisplayName
		updated := in.LastUpdated.UTC().Format("2006-01-02T15:04:05.000Z")
		resp.Sessions = append(resp.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(in.ID), Cwd: cwd, Title: &title, UpdatedAt: &updated})
	}
	return resp, nil
}

// home is the user's ~/.gemini location as sessions see it.
func (s *Server) home() config.Home {
	if s.Options.HomeDir != "" {
		return config.HomeAt(s.Options.HomeDir)
	}
	return config.ResolveHome(s.env())
}

// CloseSession implements sdk.Agent.
func (s *Server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s.mu.Lock()
	ss, ok := s.sessions[string(p.SessionId)]
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	if !ok {
		return sdk.CloseSessionResponse{}, &sdk.RequestError{Code: -32602, Message: "Session not found: " + string(p.SessionId)}
	}
	ss.cancelTurn()
	ss.close()
	return sdk.CloseSessionResponse{}, nil
}

// UnstableDeleteSession is session/delete: the session, closed first if
// it is open here, is removed with its recording and artifacts from the
// sessions session/list shows (its own directory's when open, else the
// server's), as `castor --delete-session` removes one. The id must be a
// session's whole id, never an index.
func (s *Server) UnstableDeleteSession(_ context.Context, p sdk.UnstableDeleteSessionRequest) (sdk.UnstableDeleteSessionResponse, error) {
	id := string(p.SessionId)
	if id == "" {
		return sdk.UnstableDeleteSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	cwd := s.Options.WorkDir
	s.mu.Lock()
	ss, open := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if open {
		cwd = ss.root
		ss.cancelTurn()
		ss.close()
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	notFound := &sdk.RequestError{Code: -32602, Message: "Session not found: " + id}
	store, err := chats.OpenStore(s.home().Dir, cwd)
	if err != nil {
		return sdk.UnstableDeleteSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	info, err := store.Resolve(id)
	if err != nil || info.ID != id {
		return sdk.UnstableDeleteSessionResponse{}, notFound
	}
	if _, err := store.Delete(id); err != nil {
		return sdk.UnstableDeleteSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.UnstableDeleteSessionResponse{}, nil
}

// Cancel implements sdk.Agent. The connection has already cancelled the
// session's prompt request, which cancels its turn and any permission
// request it waits on; this cancels a turn started by other means too.
func (s *Server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if ss, err := s.session(p.SessionId); err == nil {
		ss.cancelTurn()
	}
	return nil
}

// Prompt implements sdk.Agent.
func (s *Server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return ss.prompt(ctx, p.Prompt)
}

// SetSessionMode implements sdk.Agent.
func (s *Server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, ss.setMode(string(p.ModeId))
}

// SetSessionConfigOption implements sdk.Agent: "model" picks the model,
// "mode" the approval mode.
func (s *Server) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "only select options exist"})
	}
	ss, err := s.session(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	switch v.ConfigId {
	case configModel:
		if err := ss.a.CheckModel(string(v.Value)); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		ss.a.Session.SetModel(string(v.Value))
	case configMode:
		if err := ss.setMode(string(v.Value)); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, err
		}
	default:
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "unknown config option " + string(v.ConfigId)})
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: ss.configOptions()}, nil
}

// env is the environment sessions start from: the options' (or the
// process's) with what authenticate chose on top.
func (s *Server) env() config.LookupFunc {
	base := s.Options.Env
	if base == nil {
		base = os.LookupEnv
	}
	s.mu.Lock()
	over := s.authEnv
	s.mu.Unlock()
	if len(over) == 0 {
		return base
	}
	return func(k string) (string, bool) {
		if v, ok := over[k]; ok {
			return v, true
		}
		return base(k)
	}
}

// lineWriter writes each protocol message with a single Write, so that
// the parse errors filterLines answers never interleave with the SDK's
// messages.
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	hooks []lineHook
	// running counts hooks started and not finished.
	running sync.WaitGroup
	// answered learns the id of each response written.
	answered func(id json.RawMessage)
	// failed learns each write that failed.
	failed func(err error)
}

// lineHook runs f once a written line holds every one of match.
type lineHook struct {
	match [][]byte
	f     func()
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(withModels(p)) // models.go
	n = min(n, len(p))
	if err != nil && l.failed != nil {
		l.failed(err)
	}
	kept := l.hooks[:0]
	var fire []func()
	for _, h := range l.hooks {
		hit := true
		for _, m := range h.match {
			hit = hit && bytes.Contains(p, m)
		}
		if hit {
			fire = append(fire, h.f)
		} else {
			kept = append(kept, h)
		}
	}
	l.hooks = kept
	// Hooks are counted before the answer is, so that whoever waits for
	// the answers also sees them.
	l.running.Add(len(fire))
	for _, f := range fire {
		go func() {
			defer l.running.Done()
			f()
		}()
	}
	if l.answered != nil {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(p, &m) == nil && m.Method == "" && len(m.ID) > 0 {
			l.answered(m.ID)
		}
	}
	return n, err
}

// after runs f once a line holding every one of match has been written.
func (l *lineWriter) after(f func(), match ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := lineHook{f: f}
	for _, m := range match {
		h.match = append(h.match, []byte(m))
	}
	l.hooks = append(l.hooks, h)
}

// filterLines passes the client's well-formed JSON objects on to the
// connection and answers anything else with a JSON-RPC error, which the
// SDK would only log: -32700 for a line that is not JSON, -32600 for JSON
// that is not a request object. Lines are read whatever their length; one
// longer than the SDK accepts (maxMessage) is answered here (tooLarge), as
// the SDK would end the connection on it.
//
// request learns the id of every request passed on, and atEOF runs when
// the input ends, before the connection sees the end.
func filterLines(r io.Reader, out io.Writer, log io.Writer, request func(id json.RawMessage), atEOF func()) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadBytes('\n')
			if t := bytes.TrimSpace(line); len(t) > 0 {
				var obj map[string]json.RawMessage
				switch {
				case !json.Valid(t):
					fmt.Fprintf(log, "acp: malformed JSON line ignored (%d bytes)\n", len(t))
					out.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n"))
				case json.Unmarshal(t, &obj) != nil:
					out.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}` + "\n"))
				case len(t) > maxMessage:
					fmt.Fprintf(log, "acp: message of %d bytes refused: the limit is %d bytes\n", len(t), maxMessage)
					if reply, toSDK := tooLarge(obj, len(t)); toSDK {
						if _, werr := pw.Write(reply); werr != nil {
							return
						}
					} else if reply != nil {
						out.Write(reply)
					}
				default:
					if id, ok := requestID(obj); ok && request != nil {
						request(id)
					}
					if _, werr := pw.Write(append(inbound(obj, t), '\n')); werr != nil { // models.go
						return
					}
				}
			}
			if err != nil {
				if atEOF != nil {
					atEOF()
				}
				if errors.Is(err, io.EOF) {
					pw.Close()
				} else {
					pw.CloseWithError(err)
				}
				return
			}
		}
	}()
	return pr
}

// maxMessage is the longest line the SDK's reader takes (its scanner's
// 10 MiB buffer holds the line and its newline).
const maxMessage = 10<<20 - 1

// tooLarge answers a message longer than maxMessage. A request gets an
// error response written to the client; a response to one of castor's own
// requests (a huge fs/read_text_file result) becomes an error response
// passed on to the SDK (toSDK), so that the call waiting for it fails
// instead of waiting forever; a notification is only logged (nil).
func tooLarge(obj map[string]json.RawMessage, size int) (reply []byte, toSDK bool) {
	id, hasID := obj["id"]
	if !hasID || string(id) == "null" {
		return nil, false
	}
	msg := fmt.Sprintf("message too large: %d bytes, the limit is %d", size, maxMessage)
	if _, isRequest := obj["method"]; isRequest {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": -32600, "message": "Invalid Request", "data": map[string]string{"error": msg}}})
		return append(b, '\n'), false
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": msg}})
	return append(b, '\n'), true
}

// requestID is the id of a request (a message with a method and a
// non-null id).
func requestID(obj map[string]json.RawMessage) (json.RawMessage, bool) {
	id, hasID := obj["id"]
	_, hasMethod := obj["method"]
	if !hasID || !hasMethod || string(id) == "null" {
		return nil, false
	}
	return id, true
}

// inflight counts the client's requests not answered yet.
type inflight struct {
	mu      sync.Mutex
	pending map[string]int
	waiters []chan struct{}
}

// key canonicalises an id so that 1 and 1.0 or "a" match their answer.
func (f *inflight) key(id json.RawMessage) string {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return string(id)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (f *inflight) add(id json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == nil {
		f.pending = map[string]int{}
	}
	f.pending[f.key(id)]++
}

func (f *inflight) done(id json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := f.key(id)
	if f.pending[k] == 0 {
		return // an answer to our own request's id space, or unknown
	}
	if f.pending[k]--; f.pending[k] == 0 {
		delete(f.pending, k)
	}
	if len(f.pending) == 0 {
		for _, w := range f.waiters {
			close(w)
		}
		f.waiters = nil
	}
}

// idle is closed once no request is pending.
func (f *inflight) idle() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan struct{})
	if len(f.pending) == 0 {
		close(ch)
	} else {
		f.waiters = append(f.waiters, ch)
	}
	return ch
}

// Gate returns r, whose reads wait until ready is closed: the SDK's
// connection starts reading at once, before a side has what it needs to
// answer (the server its handlers, the client its connection).
func Gate(r io.Reader, ready <-chan struct{}) io.Reader { return &gatedReader{r: r, ready: ready} }

type gatedReader struct {
	r     io.Reader
	ready <-chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}
