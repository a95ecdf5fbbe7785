// Package mcpserve is the face behind `castor mcp serve`: Castor as an MCP
// server other agents (Claude Code, Codex, any MCP client) call. It
// exposes a tool that runs a prompt in a recorded session, new or resumed,
// and tools that list and read the recorded sessions. Sessions are built
// by the one assembly, internal/setup, per call, and recorded as the
// terminal's are, so `castor --resume` continues them too.
package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/version"
	castormcp "github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// Config is what the server's operator decides.
type Config struct {
	// Base is the assembly's options every session starts from; WorkDir is
	// the workspace sessions run in and are listed for.
	Base setup.Options
	// MaxApprovalMode bounds the mode a caller asks for ("" is default):
	// a client cannot raise it past the operator's.
	MaxApprovalMode policy.Mode
}

// Server holds the sessions' locks: one turn at a time per session, so
// that one recording file has one writer.
type Server struct {
	cfg Config

	mu    sync.Mutex
	busy  map[string]*sync.Mutex
	store *chats.Store
	runs  map[string]*pausedRun // turns waiting for an answer, by RequestState (mrtr.go)
}

// New returns the server for cfg; MCP returns the protocol server to run
// on a transport.
func New(cfg Config) *Server {
	if cfg.MaxApprovalMode == "" {
		cfg.MaxApprovalMode = policy.ModeDefault
	}
	return &Server{cfg: cfg, busy: map[string]*sync.Mutex{}, runs: map[string]*pausedRun{}}
}

// PromptArgs are the arguments of the prompt tool.
type PromptArgs struct {
	Prompt       string `json:"prompt" jsonschema:"the prompt to run, as typed in Castor (slash commands and @path includes work)"`
	SessionID    string `json:"session_id,omitempty" jsonschema:"a recorded session to continue (from an earlier answer or list_sessions); empty starts a new one"`
	ApprovalMode string `json:"approval_mode,omitempty" jsonschema:"default, auto_edit, yolo or plan; bounded by the server's --max-approval-mode"`
}

// PromptResult is the prompt tool's structured answer.
type PromptResult struct {
	SessionID    string `json:"session_id" jsonschema:"the session to pass back to continue the conversation"`
	Response     string `json:"response" jsonschema:"the final answer"`
	ApprovalMode string `json:"approval_mode" jsonschema:"the approval mode the turn ran in, after the server's bound"`
}

// ListArgs are the arguments of list_sessions (none).
type ListArgs struct{}

// SessionInfo is one recorded session in list_sessions' answer.
type SessionInfo struct {
	ID           string `json:"session_id"`
	Title        string `json:"title"`
	StartTime    string `json:"start_time"`
	LastUpdated  string `json:"last_updated"`
	MessageCount int    `json:"message_count"`
}

// ListResult is list_sessions' answer, newest first.
type ListResult struct {
	Sessions []SessionInfo `json:"sessions"`
}

// ReadArgs are the arguments of read_session.
type ReadArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session's id (a unique prefix will do)"`
}

// Message is one message of a recorded session.
type Message struct {
	Type      string   `json:"type" jsonschema:"user, gemini, info, error or warning"`
	Text      string   `json:"text"`
	ToolCalls []string `json:"tool_calls,omitempty" jsonschema:"the names of the tools the model called"`
}

// ReadResult is read_session's answer.
type ReadResult struct {
	SessionID string    `json:"session_id"`
	Messages  []Message `json:"messages"`
}

// MCP returns a protocol server exposing s's tools; one is made per
// connection or shared, as the transport needs.
func (s *Server) MCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "castor", Title: "Castor", Version: version.Version}, &mcp.ServerOptions{
		Instructions: "Castor is a coding agent. Use `prompt` to give it a task in its workspace; pass the returned session_id back to continue the same conversation.",
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "prompt",
		Title:       "Run a prompt in Castor",
		Description: "Runs a prompt in a Castor session (new, or continued with session_id) in the server's workspace and returns the final answer with the session id. Tool calls that need approval are asked through elicitation when the client supports it, otherwise refused unless the approval mode allows them.",
	}, s.prompt)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "list_sessions",
		Title:       "List Castor sessions",
		Description: "Lists the recorded Castor sessions of the server's workspace, newest first.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, s.list)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "read_session",
		Title:       "Read a Castor session",
		Description: "Returns the messages of a recorded Castor session.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, s.read)
	return srv
}

// lock takes the session's turn lock; the returned func releases it.
func (s *Server) lock(id string) func() {
	if id == "" {
		return func() {}
	}
	s.mu.Lock()
	m, ok := s.busy[id]
	if !ok {
		m = &sync.Mutex{}
		s.busy[id] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (s *Server) prompt(ctx context.Context, req *mcp.CallToolRequest, in PromptArgs) (*mcp.CallToolResult, PromptResult, error) {
	if req.Params.RequestState != "" {
		// A multi round-trip client answering a question (mrtr.go).
		return s.resumeRun(ctx, req)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, PromptResult{}, errors.New("prompt is empty")
	}
	mode, err := policy.ParseMode(in.ApprovalMode)
	if err != nil {
		return nil, PromptResult{}, fmt.Errorf("approval_mode: %w", err)
	}
	mode, _ = mode.AtMost(s.cfg.MaxApprovalMode)
	id := in.SessionID
	if id != "" {
		info, err := s.resolve(id)
		if err != nil {
			return nil, PromptResult{}, err
		}
		id = info.ID
	}
	t := turn{prompt: in.Prompt, id: id, mode: mode}
	if askInResult(req.Session) {
		return s.startRun(ctx, req, t)
	}
	if canElicit(req.Session) {
		t.ask = req.Session.Elicit
	}
	p := &progress{ctx: ctx, ss: req.Session, token: req.Params.GetProgressToken()}
	return s.run(ctx, t, p.send)
}

// turn is one prompt call's turn; ask, when set, asks the client's user.
type turn struct {
	prompt string
	id     string
	mode   policy.Mode
	ask    func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

// run assembles the session and runs t's turn, passing streamed text to
// text.
func (s *Server) run(ctx context.Context, t turn, text func(string)) (*mcp.CallToolResult, PromptResult, error) {
	defer s.lock(t.id)()
	o := s.cfg.Base
	o.Resume = t.id
	o.SessionID = ""
	o.ApprovalMode = t.mode
	o.MaxApprovalMode = &s.cfg.MaxApprovalMode
	o.DisableRecording = false
	o.Interactive = t.ask != nil
	o.Confirm = nil
	if t.ask != nil {
		o.Confirm = func(ctx context.Context, c *agent.ToolCall) (tool.Decision, error) {
			return confirm(ctx, t.ask, c), nil
		}
	}
	o.Elicit = elicitFor(t.ask, o.Warn)
	a, err := setup.New(ctx, o)
	if err != nil {
		return nil, PromptResult{}, err
	}
	defer a.Close()
	parts, err := a.ExpandPrompt(ctx, t.prompt)
	if err != nil {
		return nil, PromptResult{}, err
	}
	var answer string
	for ev, err := range a.Session.Send(ctx, parts...) {
		if err != nil {
			return nil, PromptResult{}, err
		}
		switch ev.Type {
		case agent.EventContent:
			text(ev.Text)
		case agent.EventTurnEnd:
			answer = ev.Text
		}
	}
	out := PromptResult{SessionID: a.Session.ID(), Response: answer, ApprovalMode: string(t.mode)}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}}}, out, nil
}

// progress sends streamed text as progress notifications when the
// caller asked for them (a progress token in the request).
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any
	n     float64
}

func (p *progress) send(text string) {
	if p.token == nil || p.ss == nil || text == "" {
		return
	}
	p.n++
	// Best effort: a client that went away ends the turn through ctx.
	_ = p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: text})
}

func (s *Server) openStore() (*chats.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store, nil
	}
	home := config.ResolveHome(s.cfg.Base.Env)
	if s.cfg.Base.HomeDir != "" {
		home = config.HomeAt(s.cfg.Base.HomeDir)
	}
	st, err := chats.OpenStore(home.Dir, s.cfg.Base.WorkDir)
	if err != nil {
		return nil, err
	}
	s.store = st
	return st, nil
}

func (s *Server) resolve(ref string) (chats.Info, error) {
	st, err := s.openStore()
	if err != nil {
		return chats.Info{}, err
	}
	return st.Resolve(ref)
}

func (s *Server) list(context.Context, *mcp.CallToolRequest, ListArgs) (*mcp.CallToolResult, ListResult, error) {
	st, err := s.openStore()
	if err != nil {
		return nil, ListResult{}, err
	}
	infos, err := st.List()
	if err != nil && !errors.Is(err, chats.ErrNoSessions) {
		return nil, ListResult{}, err
	}
	out := ListResult{Sessions: []SessionInfo{}}
	for i := len(infos) - 1; i >= 0; i-- {
		in := infos[i]
		out.Sessions = append(out.Sessions, SessionInfo{
			ID: in.ID, Title: in.DisplayName, MessageCount: in.MessageCount,
			StartTime:   in.StartTime.UTC().Format("2006-01-02T15:04:05.000Z"),
			LastUpdated: in.LastUpdated.UTC().Format("2006-01-02T15:04:05.000Z"),
		})
	}
	return nil, out, nil
}

func (s *Server) read(_ context.Context, _ *mcp.CallToolRequest, in ReadArgs) (*mcp.CallToolResult, ReadResult, error) {
	if in.SessionID == "" {
		return nil, ReadResult{}, errors.New("session_id is required")
	}
	st, err := s.openStore()
	if err != nil {
		return nil, ReadResult{}, err
	}
	info, err := st.Resolve(in.SessionID)
	if err != nil {
		return nil, ReadResult{}, err
	}
	conv, err := st.Load(info)
	if err != nil {
		return nil, ReadResult{}, err
	}
	out := ReadResult{SessionID: info.ID, Messages: []Message{}}
	for _, m := range conv.Messages {
		msg := Message{Type: string(m.Type), Text: partsText(m.Content)}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, c.Name)
		}
		out.Messages = append(out.Messages, msg)
	}
	return nil, out, nil
}

func partsText(parts []*genai.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p != nil && p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// elicitFor answers the questions of Castor's own MCP servers: passed to
// the client when it can be asked, declined with why otherwise.
func elicitFor(ask func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error), warn func(string)) castormcp.ElicitFunc {
	if ask == nil {
		return castormcp.DeclineElicit("the MCP client that called Castor cannot be asked (it does not support elicitation).", warn)
	}
	return func(ctx context.Context, r castormcp.ElicitRequest) (castormcp.ElicitResult, error) {
		p := &mcp.ElicitParams{Message: fmt.Sprintf("MCP server '%s' asks: %s", r.Server, r.Message), RequestedSchema: r.Schema}
		if r.Mode == castormcp.ElicitURL {
			p.Mode, p.URL, p.ElicitationID = "url", r.URL, r.ElicitationID
		}
		res, err := ask(ctx, p)
		if err != nil {
			return castormcp.ElicitResult{Action: castormcp.ElicitCancel}, nil
		}
		return castormcp.ElicitResult{Action: castormcp.ElicitAction(res.Action), Content: res.Content}, nil
	}
}
