package a2a

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
	"github.com/castor-dev/castor/a2a/internal/webhook"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/httpguard"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/policy"
)

// Config configures a Server.
type Config struct {
	// Workspace is the workspace of tasks whose settings name none, and of
	// commands (Gemini CLI's CODER_AGENT_WORKSPACE_PATH). "" means such
	// tasks use the current directory and workspace commands are refused.
	Workspace string
	// AllowedRoot bounds every task's workspace (CODER_AGENT_ALLOWED_ROOT);
	// "" means the user's home directory.
	AllowedRoot string
	// AuthToken, when set, must be sent as "Authorization: Bearer <token>"
	// on every request but the agent card.
	AuthToken string
	// URL is the JSON-RPC endpoint published in the agent card; "" means
	// the address the card was requested at.
	URL string
	// NewSession builds each task's engine session; it is required.
	NewSession NewSessionFunc
	// HomeDir is the user's home directory workspace commands see ("":
	// the OS one).
	HomeDir string
	// YOLO approves every tool call (GEMINI_YOLO_MODE=true).
	YOLO bool
	// MaxApprovalMode is the most permissive approval mode a client may
	// ask for (a task's autoExecute asks for yolo): a request above it is
	// capped, which the task's metadata (approvalModeCapped) and the log
	// say. "" means policy.ModeDefault: every tool call that asks, asks.
	// YOLO raises it to yolo.
	MaxApprovalMode policy.Mode
	// ListenHost is the host the server listens on; with AllowedHosts it
	// is what a request's Host may name (internal/httpguard): loopback
	// names always, any IP address when it is "" or unspecified (0.0.0.0,
	// ::). Other names are refused 421, which stops DNS rebinding.
	ListenHost string
	// AllowedHosts are more names clients reach the server by (a reverse
	// proxy's); "*" accepts any.
	AllowedHosts []string
	// AllowedOrigins are the browser origins allowed to call the server
	// across origins ("https://ui.example"; "*" any), answered with CORS
	// headers. Requests from other web pages are refused 403.
	AllowedOrigins []string
	// Store persists tasks; nil keeps them in memory only.
	Store TaskStore
	// Retention is how long a task is kept after its last activity: idle
	// tasks older than that are deleted, from memory and from a Store that
	// implements TaskPruner, at start and then periodically. Zero means
	// DefaultRetention (30 days); a negative value keeps tasks forever.
	Retention time.Duration
	// Commands are the slash commands served; nil means
	// command.DefaultRegistry().
	Commands *command.Registry
	// OnDisconnect says what happens to a running turn when the client
	// streaming it (or waiting for it in a blocking message/send) leaves
	// before its end: "" or DisconnectContinue, DisconnectCancel.
	OnDisconnect DisconnectMode
	// Limits bound what clients may make the server do.
	Limits Limits
	// AllowPrivatePush lets push notifications reach loopback, private and
	// link-local addresses, which are refused by default.
	AllowPrivatePush bool
	// Name and Description are shown in the agent card.
	Name, Description string
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Limits bound the resources clients can take. A zero field takes its
// default, given in brackets.
type Limits struct {
	// MaxBodyBytes bounds a request body (4 MiB).
	MaxBodyBytes int64
	// MaxConcurrentTurns bounds turns running at once across tasks (256).
	MaxConcurrentTurns int
	// MaxQueuedTurns bounds the turns waiting for one of those slots
	// (4096); a turn past both limits fails as busy. Negative: turns never
	// wait, and fail as busy once MaxConcurrentTurns run.
	MaxQueuedTurns int
	// MaxQueuedMessages bounds the messages waiting for one task's running
	// turn (32): the task runs them one after the other, in the order they
	// came, and refuses more as busy.
	MaxQueuedMessages int
	// MaxStreams bounds open streams (1024).
	MaxStreams int
	// MaxLiveTasks bounds tasks held in memory; idle ones are evicted to
	// the store to make room (1024).
	MaxLiveTasks int
	// MaxIdleSessions bounds the engine sessions kept by tasks between
	// their turns (256): past it, the least recently active task's session
	// is released and rebuilt from the stored conversation (and pending
	// calls) at its next turn, so that memory follows the turns running
	// rather than every task seen.
	MaxIdleSessions int
	// MaxTurnsPerTask bounds the messages one task may run (1000).
	MaxTurnsPerTask int
	// TurnTimeout bounds one turn's wall time (30m).
	TurnTimeout time.Duration
	// RequestTimeout bounds how long a blocking request waits for its
	// turn's end before answering with the task as it is (5m).
	RequestTimeout time.Duration
	// IdleTTL is how long an idle task stays in memory (30m).
	IdleTTL time.Duration
	// KeepAlive is the interval of stream keep-alive messages (15s).
	KeepAlive time.Duration
	// PushAttempts and PushBackoff govern webhook retries (4, 500ms
	// doubling); PushTimeout bounds one webhook call (10s).
	PushAttempts int
	PushBackoff  time.Duration
	PushTimeout  time.Duration
}

// withDefaults returns l with zero fields set to their defaults, which
// the machinery keeping the tasks decides.
func (l Limits) withDefaults() Limits {
	h := host.Limits(l)
	h.Defaults()
	return Limits(h)
}

// Server is an A2A server for Castor: an http.Handler serving the A2A
// 0.3.0 JSON-RPC transport, the agent card, and Gemini CLI's REST routes.
type Server struct {
	cfg Config
	// door checks every request's Host, Origin and body type before mux
	// (internal/httpguard).
	door  http.Handler
	mux   *http.ServeMux
	store TaskStore
	// shared is store when several replicas share it (SharedStore), and
	// events the same when it keeps their events (EventLog).
	shared  SharedStore
	events  EventLog
	cmds    *command.Registry
	log     *slog.Logger
	started time.Time
	now     func() time.Time
	push    *webhook.Sender
	// pushCtx is the deliveries' context: Shutdown cancels it pushGrace
	// after it began (stopPush).
	pushCtx  context.Context
	stopPush context.CancelFunc
	reqToken host.Token
	// v1rpc and v1rest serve A2A 1.0 (a2a-go's transports over handler).
	v1rpc, v1rest http.Handler

	// host keeps the tasks: which stay in memory, which run (internal/host).
	host *host.Host[*task]
	// wg is host's Work: turns and webhook deliveries Shutdown waits for.
	wg *sync.WaitGroup
	// closing refuses requests once Shutdown is called.
	closing atomic.Bool
	// capped logs the first client request capped by MaxApprovalMode.
	capped sync.Once
}

// NewServer returns a server for cfg. It checks the workspace settings
// but starts nothing that needs closing other than an idle-task janitor,
// which Shutdown stops.
func NewServer(cfg Config) (*Server, error) {
	if cfg.NewSession == nil {
		return nil, errors.New("a2a: Config.NewSession is required")
	}
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Name == "" {
		// Gemini CLI's name, kept so that clients that look for it work.
		cfg.Name = "Gemini SDLC Agent"
	}
	if cfg.Description == "" {
		cfg.Description = "An agent that generates code based on natural language instructions and streams file outputs."
	}
	if cfg.AllowedRoot == "" {
		if h, err := os.UserHomeDir(); err == nil {
			cfg.AllowedRoot = h
		} else {
			cfg.AllowedRoot = string(filepath.Separator)
		}
	}
	root, err := host.RealDir(cfg.AllowedRoot)
	if err != nil {
		return nil, fmt.Errorf("allowed root: %w", err)
	}
	cfg.AllowedRoot = root
	if cfg.Workspace != "" {
		// The operator's setting: its error is plain, not a client's
		// invalid params.
		ws, err := host.Workspace(cfg.Workspace, root)
		if err != nil {
			return nil, err
		}
		cfg.Workspace = ws
	}
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore()
	}
	if cfg.Commands == nil {
		cfg.Commands = command.DefaultRegistry()
	}
	if err := host.DisconnectMode(cfg.OnDisconnect).Check(); err != nil {
		return nil, fmt.Errorf("a2a: %w", err)
	}
	if cfg.YOLO {
		cfg.MaxApprovalMode = policy.ModeYolo
	}
	s := &Server{
		cfg: cfg, store: cfg.Store, cmds: cfg.Commands, log: cfg.Logger,
		now: cfg.Now, started: cfg.Now(), reqToken: host.NewToken(cfg.AuthToken),
	}
	if s.shared, _ = cfg.Store.(SharedStore); s.shared != nil {
		s.events, _ = cfg.Store.(EventLog)
		s.shared.OnCancel(s.cancelRequested)
	}
	s.push = webhook.NewSender(webhook.Options{AllowPrivate: cfg.AllowPrivatePush, Attempts: cfg.Limits.PushAttempts,
		Backoff: cfg.Limits.PushBackoff, Timeout: cfg.Limits.PushTimeout})
	s.pushCtx, s.stopPush = context.WithCancel(context.Background())
	keep := a2asrv.WithTransportKeepAlive(cfg.Limits.KeepAlive)
	s.v1rpc = a2asrv.NewJSONRPCHandler(handler{s}, keep)
	s.v1rest = a2asrv.NewRESTHandler(handler{s}, keep)
	s.routes()
	s.door = httpguard.New(httpguard.Options{
		ListenHost: cfg.ListenHost, Hosts: cfg.AllowedHosts, Origins: cfg.AllowedOrigins,
		HostHint: "castor a2a-server --allowed-host adds names", OriginHint: "castor a2a-server --allowed-origin adds origins",
	}).Handler(s.mux, refuse)
	s.host = host.New[*task](s.hostConfig())
	s.wg = s.host.Work()
	return s, nil
}

// SessionSpec is what a task asks of its engine session.
type SessionSpec struct {
	// WorkDir is the task's workspace.
	WorkDir string
	// SessionID is the task id.
	SessionID string
	// History is the stored conversation the session continues.
	History []*genai.Content
	// ApprovalMode is the task's approval mode; "" means the settings'.
	ApprovalMode policy.Mode
	// MaxApprovalMode is the server's ceiling (Config.MaxApprovalMode,
	// "" meaning default): the session's mode, the workspace settings'
	// included, never exceeds it.
	MaxApprovalMode policy.Mode
	// Elicit asks the task's client MCP servers' questions (see
	// elicit.go); the session should use it for its MCP servers.
	Elicit mcp.ElicitFunc
	// CannotConfirm is set for a task whose client cannot answer a
	// confirmation (plainclient.go): a call that needs approval is then
	// decided by the policy at once, refused unless it allows the call,
	// as in a headless run, instead of waiting for an answer that never
	// comes.
	CannotConfirm bool
}

// TaskSession is what a NewSessionFunc builds for a task: the engine
// session and what the assembly adds to it. The server keeps it with the
// task while the session lives, so that the task reaches its own
// commands and prompt expansion.
type TaskSession struct {
	// Session is the engine session; it is required.
	Session *agent.Session
	// Close releases what the session holds; nil means nothing.
	Close func() error
	// ExpandPrompt turns the text of a message into the parts sent to the
	// session (custom commands, @path includes); nil sends the text as
	// written.
	ExpandPrompt func(ctx context.Context, text string) ([]*genai.Part, error)
	// Commands are the slash commands the session accepts (built-ins,
	// custom and MCP prompt commands, and the session's own /compress):
	// listing and running commands for the task (a taskId with GET
	// /listCommands, commands/get, POST /executeCommand, command/execute)
	// use them, so /compress acts on that task's conversation. nil means
	// Config.Commands.
	Commands *command.Registry
}

// NewSessionFunc builds the engine session of a task. The session must
// pause turns for confirmations (the client answers them in a later
// message) and need not record itself: the task store is the record.
type NewSessionFunc func(ctx context.Context, spec SessionSpec) (*TaskSession, error)

// resolveWorkspace checks a client's workspace path (host.Workspace).
func resolveWorkspace(p, root string) (string, error) {
	ws, err := host.Workspace(p, root)
	if err != nil {
		return "", errInvalidParams("%v", err)
	}
	return ws, nil
}

// approvalCapped says how the server's MaxApprovalMode bounds what the
// task's client asked for, or "" when it does not.
func (s *Server) approvalCapped(st AgentSettings) string {
	if !st.AutoExecute || s.cfg.YOLO {
		return ""
	}
	most, capped := policy.ModeYolo.AtMost(s.cfg.MaxApprovalMode)
	if !capped {
		return ""
	}
	return fmt.Sprintf("a client asked for autoExecute (the yolo approval mode); this server allows at most %s, so tool calls beyond it ask for approval", cmp.Or(most, policy.ModeDefault))
}

// settingsFor resolves the settings of a new task; the client's isTrusted
// claim is dropped.
func (s *Server) settingsFor(in *AgentSettings) (AgentSettings, error) {
	out := AgentSettings{Kind: "agent-settings"}
	if in != nil {
		out.AutoExecute = in.AutoExecute
		out.WorkspacePath = strings.TrimSpace(in.WorkspacePath)
	}
	if note := s.approvalCapped(out); note != "" {
		s.capped.Do(func() { s.log.Warn("a2a: " + note + " (castor a2a-server --max-approval-mode raises it)") })
	}
	if out.WorkspacePath == "" {
		out.WorkspacePath = s.cfg.Workspace
	}
	if out.WorkspacePath == "" {
		wd, err := os.Getwd()
		if err != nil {
			return out, err
		}
		out.WorkspacePath = wd
	}
	ws, err := resolveWorkspace(out.WorkspacePath, s.cfg.AllowedRoot)
	if err != nil {
		return out, err
	}
	out.WorkspacePath = ws
	return out, nil
}

func (s *Server) routes() {
	// Every route but the agent card asks for the token, then for a JSON
	// body (a client without the token hears 401 whatever it sent).
	guard := func(h http.HandlerFunc) http.Handler {
		return s.reqToken.Guard(jsonBodies(h), "castor-a2a", s.cfg.Limits.MaxBodyBytes)
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /.well-known/agent-card.json", s.handleCard)
	m.HandleFunc("GET /.well-known/agent.json", s.handleCard)
	m.Handle("POST /{$}", guard(s.handleRPC))
	m.Handle("GET /health", guard(s.handleHealth))
	// Probes of a load balancer or orchestrator, which carry no token;
	// they say nothing about tasks.
	m.HandleFunc("GET /healthz", s.handleHealthz)
	m.HandleFunc("GET /readyz", s.handleReadyz)
	m.Handle("POST /tasks", guard(s.handleCreateTask))
	m.Handle("GET /tasks", guard(s.handleListTasks))
	m.Handle("GET /tasks/metadata", guard(s.handleAllMetadata))
	m.Handle("GET /tasks/{id}", guard(s.handleGetTaskREST))
	m.Handle("GET /tasks/{id}/metadata", guard(s.handleTaskMetadata))
	m.Handle("POST /tasks/{id}/execute", guard(s.handleExecuteREST))
	m.Handle("GET /listCommands", guard(s.handleListCommands))
	m.Handle("POST /executeCommand", guard(s.handleExecuteCommand))
	m.Handle(v1RESTPrefix+"/", guard(s.serveV1REST))
	s.mux = m
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("a2a: handler panicked", "panic", p, "path", r.URL.Path)
			jsonrpc.WriteError(w, http.StatusInternalServerError, jsonrpc.NullID, jsonrpc.Errorf(CodeInternalError, "Internal error"))
		}
	}()
	s.door.ServeHTTP(w, r)
}

// jsonBodies refuses a request body that is not JSON (httpguard.JSONBody)
// with 415 before h reads it.
func jsonBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := httpguard.JSONBody(r); why != nil {
			refuse(w, r, why)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refuse answers a request the door refused in its route's terms: a
// JSON-RPC error at the JSON-RPC endpoint (ContentTypeNotSupported for a
// body that is not JSON, as the A2A TCK expects), an AIP-193 error under
// the 1.0 HTTP+JSON binding, and {"error": reason} on Gemini CLI's routes.
func refuse(w http.ResponseWriter, r *http.Request, why *httpguard.Refusal) {
	switch {
	case r.URL.Path == "/":
		code := CodeInvalidRequest
		if why.What == "content-type" {
			code = CodeContentTypeNotSupported
		}
		jsonrpc.WriteError(w, why.Status, jsonrpc.NullID, jsonrpc.Errorf(code, "%s", why.Reason))
	case strings.HasPrefix(r.URL.Path, v1RESTPrefix+"/"):
		status, reason := "PERMISSION_DENIED", "REQUEST_REFUSED"
		if why.What == "content-type" {
			status, reason = "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"
		}
		aip193(w, why.Status, status, reason, why.Reason)
	default:
		restError(w, why.Status, why.Reason)
	}
}

// lookupTask returns a task from memory or the store.
func (s *Server) lookupTask(ctx context.Context, id string) (*task, error) {
	if t, ok := s.host.Get(id); ok {
		// Another replica may have run turns since this copy was saved or
		// loaded.
		if err := s.fresh(ctx, t); err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, errTaskNotFound(id)
			}
			return nil, err
		}
		return t, nil
	}
	if !validTaskID.Get().MatchString(id) {
		return nil, errTaskNotFound(id)
	}
	var st *StoredTask
	var version int64
	var err error
	if s.shared != nil {
		st, version, err = s.shared.LoadVersioned(ctx, id)
	} else {
		st, err = s.store.Load(ctx, id)
	}
	if errors.Is(err, ErrNotFound) {
		return nil, errTaskNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	restored := s.newTask(st.ID, st.ContextID, st.Settings)
	s.applyStored(restored, st, s.runsElsewhere(ctx, st))
	restored.version = version
	t, err := s.host.Adopt(restored)
	return t, asBusy(err)
}

// restore rebuilds a task from the store; its agent is built on its next
// turn.
func (s *Server) restore(st *StoredTask) *task {
	t := s.newTask(st.ID, st.ContextID, st.Settings)
	s.applyStored(t, st, false)
	return t
}

// applyStored makes t hold the stored task st. A task stored as running
// whose turn no longer runs anywhere (elsewhere false: this process
// restarted, or the replica running it stopped) is shown interrupted and
// continuable; one running on another replica is shown running.
func (s *Server) applyStored(t *task, st *StoredTask, elsewhere bool) {
	t.settings = st.Settings
	t.plain = storedPlain(st.Metadata) // plainclient.go
	t.state = st.State
	t.status = st.Status
	t.history = st.History
	t.artifacts = st.Artifacts
	t.push = st.PushConfigs
	pending := st.Pending
	if !st.Timestamp.IsZero() {
		t.lastActive = st.Timestamp
	}
	text := "The server restarted while this task was running; send a message to continue."
	if s.shared != nil {
		text = replicaStopped
	}
	if !t.state.Terminal() && t.state != StateInputRequired && !elsewhere {
		// The process stopped during a turn; the turn is gone, the task
		// goes on with its next message. Calls it was answering may have
		// run: they are not asked again, but answered as interrupted.
		pending = nil
		t.state = StateInputRequired
		t.status = TaskStatus{State: StateInputRequired, Timestamp: stamp(s.now()),
			Message: &Message{Kind: "message", Role: "agent", MessageID: "restart-" + st.ID, TaskID: st.ID, ContextID: st.ContextID,
				Parts: []Part{TextPart(text)}}}
	}
	t.textIdx = map[string]int{}
	for i, m := range t.history {
		if m.Role == "agent" {
			t.textIdx[m.MessageID] = i
		}
	}
	t.session.Restore(st.Conversation, pending)
}

func errBusy(what string) *rpcError {
	return &rpcError{Code: CodeInternalError, Message: "Server busy: " + what + "; retry later", Data: map[string]any{"busy": true}}
}

// save persists a task. A failure (a full disk, a store that is down) is
// logged and returned, worded for the client, which must not believe the
// task saved: it lives on in this process's memory only.
func (s *Server) save(t *task) error {
	// Saves of one task run one at a time, each snapshot taken as its
	// save starts: a save slow to write must not land after a newer one
	// (a message accepted for the queue while the turn saves progress).
	t.saving.Lock()
	defer t.saving.Unlock()
	t.mu.Lock()
	st := t.storedLocked()
	prev := t.version
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.shared != nil {
		v, err := s.shared.SaveVersioned(ctx, st, prev)
		t.mu.Lock()
		if err == nil {
			t.version = v
		} else if errors.Is(err, ErrConcurrentModification) {
			// Stale: the next use reloads the task from the store.
			t.version = -1
		}
		t.mu.Unlock()
		if err != nil {
			s.log.Error("a2a: saving task failed", "task", t.id, "error", err)
			return fmt.Errorf("saving task %s failed: %v; this replica's copy was not saved", t.id, err)
		}
		return nil
	}
	if err := s.store.Save(ctx, st); err != nil {
		s.log.Error("a2a: saving task failed", "task", t.id, "error", err)
		return fmt.Errorf("saving task %s failed: %v; it is kept in this server's memory only and will not survive a restart", t.id, err)
	}
	return nil
}

// Shutdown ends every running turn with a final event (the task stays
// continuable), waits for turns and webhook deliveries (these for at
// most five seconds) to finish or ctx to expire, and saves every task. Requests arriving afterwards are
// refused. Call it before http.Server.Shutdown, which waits for open
// streams.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	// Deliveries, those of the final states this shutdown gives the
	// running turns included, get pushGrace; then they are cancelled, so
	// that a webhook that hangs or is down does not hold the process for
	// its timeouts and retries (PushTimeout × PushAttempts).
	grace := time.AfterFunc(pushGrace, s.stopPush)
	defer grace.Stop()
	defer s.stopPush()
	return s.host.Shutdown(ctx)
}

// pushGrace is how long Shutdown lets webhook deliveries run.
const pushGrace = 5 * time.Second

// CheckListenAddr refuses to serve on a non-loopback address without a
// token: the server runs tools on this machine for whoever can reach it.
func CheckListenAddr(addr, token string) error {
	if token != "" || host.Loopback(addr) {
		return nil
	}
	return fmt.Errorf("refusing to listen on %q without an auth token: set CODER_AGENT_AUTH_TOKEN or --auth-token, or listen on 127.0.0.1", addr)
}

func (s *Server) cardURL(r *http.Request) string {
	if s.cfg.URL != "" {
		return s.cfg.URL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/"
}

// AgentCard returns the card served at /.well-known/agent-card.json for
// the given endpoint URL.
func (s *Server) AgentCard(url string) map[string]any {
	card := map[string]any{
		"protocolVersion":    ProtocolVersion,
		"name":               s.cfg.Name,
		"description":        s.cfg.Description,
		"url":                url,
		"preferredTransport": "JSONRPC",
		"provider":           map[string]any{"organization": "Castor", "url": "https://github.com/castor-dev/castor"},
		"version":            version.Version,
		"capabilities": map[string]any{
			"streaming":              true,
			"pushNotifications":      true,
			"stateTransitionHistory": false,
			"extensions": []any{map[string]any{
				"uri":         ExtensionURI,
				"description": "An extension for interactive development tasks, enabling features like code generation, tool usage, and real-time status updates.",
				// Not required: Gemini CLI's own clients never activate it
				// and must keep working.
				"required": false,
			}},
		},
		"defaultInputModes":  []string{"text"},
		"defaultOutputModes": []string{"text"},
		"skills": []any{map[string]any{
			"id":          "code_generation",
			"name":        "Code Generation",
			"description": "Generates code snippets or complete files based on user requests, streaming the results.",
			"tags":        []string{"code", "development", "programming"},
			"examples": []string{
				"Write a python function to calculate fibonacci numbers.",
				"Create an HTML file with a basic button that alerts \"Hello!\" when clicked.",
			},
			"inputModes":  []string{"text"},
			"outputModes": []string{"text"},
		}},
		"supportsAuthenticatedExtendedCard": false,
		// A2A 1.0 clients read supportedInterfaces (0.3 ones url and
		// preferredTransport): JSON-RPC at the same URL for both versions,
		// and 1.0's HTTP+JSON binding under /a2a.
		"supportedInterfaces": []any{
			map[string]any{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
			map[string]any{"url": strings.TrimSuffix(url, "/") + v1RESTPrefix, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
			map[string]any{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": ProtocolVersion},
		},
	}
	if s.cfg.AuthToken != "" {
		// One scheme object in both versions' shapes: 0.3's type and
		// scheme, 1.0's httpAuthSecurityScheme (each ignores the other's).
		card["securitySchemes"] = map[string]any{"bearerAuth": map[string]any{"type": "http", "scheme": "bearer",
			"httpAuthSecurityScheme": map[string]any{"scheme": "bearer"}}}
		card["security"] = []any{map[string]any{"bearerAuth": []string{}}}
		card["securityRequirements"] = []any{map[string]any{"schemes": map[string]any{"bearerAuth": []string{}}}}
	}
	return card
}

// handleCard serves the agent card with the caching headers A2A 1.0
// recommends: Cache-Control, an ETag (a digest of the card, which differs
// by the URL it names) and Last-Modified (the card changes only with the
// process); a request naming the current ETag (If-None-Match) or a time
// since the start (If-Modified-Since) is answered 304 (http.ServeContent).
func (s *Server) handleCard(w http.ResponseWriter, r *http.Request) {
	b, err := json.Marshal(s.AgentCard(s.cardURL(r)))
	if err != nil {
		jsonrpc.WriteJSON(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
		return
	}
	b = append(b, '\n')
	sum := sha256.Sum256(b)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
	http.ServeContent(w, r, "", s.started.Truncate(time.Second), bytes.NewReader(b))
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	st := s.host.Stats()
	total := st.Live
	if ids, err := s.store.List(r.Context()); err == nil && len(ids) > total {
		total = len(ids)
	}
	status := "healthy"
	if s.closing.Load() {
		status = "shutting_down"
	}
	jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{
		"status":      status,
		"uptime":      s.now().Sub(s.started).Seconds(),
		"activeTasks": st.Running,
		"liveTasks":   st.Live,
		"totalTasks":  total,
		"streams":     st.Streams,
		"queuedTurns": st.Queued,
	})
}
