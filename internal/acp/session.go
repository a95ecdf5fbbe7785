package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// session is one ACP session: an assembled Castor session and its turn.
type session struct {
	id   string
	srv  *Server
	conn *sdk.AgentSideConnection
	a    *setup.Agent
	root string

	mu     sync.Mutex
	turn   context.Context // the running prompt's context, nil between turns
	cancel context.CancelFunc
	done   chan struct{} // closed when the running prompt returns
	turns  sync.WaitGroup
	closed bool

	// cmdMu orders the command announcements (commands.go): each reads
	// the registry and sends under it, so the last one sent is the
	// newest set; sent is that set, following whether changes are sent.
	cmdMu     sync.Mutex
	sent      []sdk.AvailableCommand
	following bool
}

// open assembles a session in cwd with the client's MCP servers; resume
// names a recorded session to continue.
func (s *Server) open(_ context.Context, cwd string, servers []sdk.McpServer, resume string) (*session, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "cwd must be an absolute path"})
	}
	mcpServers, err := mcpSettings(servers)
	if err != nil {
		return nil, err
	}
	ss := &session{srv: s, conn: s.conn, root: filepath.Clean(cwd)}
	o := s.Options
	o.WorkDir = ss.root
	o.Env = s.env()
	o.Confirm = ss.confirm
	o.Elicit = ss.elicit
	o.MCPServers = mcpServers
	o.Resume = resume
	o.SessionID = "" // every ACP session is a session of its own
	if o.Warn == nil {
		o.Warn = s.warn
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	if caps.Fs.ReadTextFile || caps.Fs.WriteTextFile {
		o.Files = &clientFiles{s: ss, read: caps.Fs.ReadTextFile, write: caps.Fs.WriteTextFile, root: ss.root, gemini: s.home().Dir}
	}
	if caps.Terminal {
		o.Shell = ss.runInTerminal
	}
	// The session outlives this request: it is assembled with the
	// connection's lifetime, so its MCP servers keep running.
	a, err := setup.New(s.base, o)
	if err != nil {
		var re *setup.ResumeError
		if resume != "" && errors.As(err, &re) {
			return nil, &sdk.RequestError{Code: -32602, Message: "Session not found: " + resume, Data: map[string]any{"error": err.Error()}}
		}
		var ce *setup.ConfigError
		if errors.As(err, &ce) {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return nil, &sdk.RequestError{Code: -32000, Message: err.Error()}
	}
	ss.a = a
	ss.mu.Lock() // elicit may read it from an MCP server's goroutine
	ss.id = a.Session.ID()
	ss.mu.Unlock()
	s.mu.Lock()
	if old, ok := s.sessions[ss.id]; ok {
		// Loading a session twice keeps the first: one recorder per file.
		s.mu.Unlock()
		a.Close()
		return old, nil
	}
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss, nil
}

// mcpSettings turns ACP's MCP server specs into the settings' mcpServers
// entries the assembly starts.
func mcpSettings(servers []sdk.McpServer) (map[string]any, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	headers := func(hs []sdk.HttpHeader) map[string]any {
		m := map[string]any{}
		for _, h := range hs {
			m[h.Name] = h.Value
		}
		return m
	}
	for i, sv := range servers {
		switch {
		case sv.Stdio != nil:
			env := map[string]any{}
			for _, e := range sv.Stdio.Env {
				env[e.Name] = e.Value
			}
			args := make([]any, len(sv.Stdio.Args))
			for j, a := range sv.Stdio.Args {
				args[j] = a
			}
			out[sv.Stdio.Name] = map[string]any{"command": sv.Stdio.Command, "args": args, "env": env}
		case sv.Http != nil:
			out[sv.Http.Name] = map[string]any{"httpUrl": sv.Http.Url, "headers": headers(sv.Http.Headers)}
		case sv.Sse != nil:
			out[sv.Sse.Name] = map[string]any{"url": sv.Sse.Url, "type": "sse", "headers": headers(sv.Sse.Headers)}
		default:
			return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("mcpServers[%d]: unsupported transport", i)})
		}
	}
	return out, nil
}

// close ends the session once its turn is over; recorders flush here.
func (ss *session) close() {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	ss.closed = true
	ss.mu.Unlock()
	ss.turns.Wait()
	if err := ss.a.Close(); err != nil {
		ss.srv.warn(fmt.Sprintf("session %s: %v", ss.id, err))
	}
}

func (ss *session) cancelTurn() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.cancel != nil {
		ss.cancel()
	}
}

// callContext bounds a client request made by a tool: the running turn,
// else the connection.
func (ss *session) callContext() context.Context {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.turn != nil {
		return ss.turn
	}
	return ss.srv.base
}

func (ss *session) send(ctx context.Context, u sdk.SessionUpdate) {
	if err := ss.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(ss.id), Update: u}); err != nil && ctx.Err() == nil && !ss.srv.outFailed.Load() {
		ss.srv.warn(fmt.Sprintf("session/update: %v", err))
	}
}

func availableCommands(reg *command.Registry) []sdk.AvailableCommand {
	out := []sdk.AvailableCommand{}
	if reg == nil {
		return out
	}
	for _, c := range reg.CommandsFor(command.FaceACP) {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		var hint []string
		for _, a := range c.Arguments {
			hint = append(hint, a.Name)
		}
		for _, sc := range c.SubCommands {
			hint = append(hint, sc.Name)
		}
		if len(hint) > 0 {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: strings.Join(hint, " | ")}}
		}
		out = append(out, ac)
	}
	return out
}

// Modes and config options.

var modeIDs = []struct {
	id   string
	mode policy.Mode
	name string
	desc string
}{
	{"default", policy.ModeDefault, "Default", "Prompts for approval"},
	{"autoEdit", policy.ModeAutoEdit, "Auto Edit", "Auto-approves edit tools"},
	{"yolo", policy.ModeYolo, "YOLO", "Auto-approves all tools"},
	{"plan", policy.ModePlan, "Plan", "Read-only mode"},
}

const (
	configModel sdk.SessionConfigId = "model"
	configMode  sdk.SessionConfigId = "mode"
)

// models offered in the model selector, besides the one in use: auto and
// the 3.x models it routes to, as Gemini CLI 0.61's picker offers them.
var models = []string{routing.Auto, routing.ProModel, routing.FlashModel, routing.FlashLiteModel}

func (ss *session) currentMode() string {
	m := ss.a.Policy.Mode()
	for _, md := range modeIDs {
		if md.mode == m {
			return md.id
		}
	}
	return "default"
}

func (ss *session) modes() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(ss.currentMode())}
	for _, md := range modeIDs {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(md.id), Name: md.name, Description: sdk.Ptr(md.desc)})
	}
	return st
}

func (ss *session) setMode(id string) error {
	for _, md := range modeIDs {
		if md.id == id || string(md.mode) == id {
			ss.a.Policy.SetMode(md.mode)
			return nil
		}
	}
	return sdk.NewInvalidParams(map[string]any{"error": "unknown mode " + id})
}

func (ss *session) configOptions() []sdk.SessionConfigOption {
	cur := ss.a.Session.Model()
	names := slices.Clone(models)
	for _, pm := range ss.a.ProviderModels() { // the providers setting's models
		names = append(names, pm.Name)
	}
	if !slices.Contains(names, cur) {
		names = append([]string{cur}, names...)
	}
	var modelOpts sdk.SessionConfigSelectOptionsUngrouped
	for _, n := range names {
		modelOpts = append(modelOpts, sdk.SessionConfigSelectOption{Name: n, Value: sdk.SessionConfigValueId(n)})
	}
	var modeOpts sdk.SessionConfigSelectOptionsUngrouped
	for _, md := range modeIDs {
		modeOpts = append(modeOpts, sdk.SessionConfigSelectOption{Name: md.name, Value: sdk.SessionConfigValueId(md.id), Description: sdk.Ptr(md.desc)})
	}
	cat := func(c sdk.SessionConfigOptionCategory) *sdk.SessionConfigOptionCategory { return &c }
	return []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{Type: "select", Id: configMode, Name: "Mode", Category: cat("mode"),
			CurrentValue: sdk.SessionConfigValueId(ss.currentMode()), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modeOpts}}},
		{Select: &sdk.SessionConfigOptionSelect{Type: "select", Id: configModel, Name: "Model", Category: cat("model"),
			CurrentValue: sdk.SessionConfigValueId(cur), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modelOpts}}},
	}
}

// replay sends the recorded history of the session as updates.
func (ss *session) replay(ctx context.Context) error {
	store, err := chats.OpenStore(ss.a.Home.Dir, ss.root)
	if err != nil {
		return sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	info, err := store.Resolve(ss.id)
	if err != nil {
		return sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	conv, err := store.Load(info)
	if err != nil {
		return sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	for _, u := range replay(conv, ss.a.Session.Tools(), ss.root) {
		ss.send(ctx, u)
	}
	return nil
}

// Turns.

// prompt runs one turn: a slash command, or the prompt sent to the model
// with its events streamed as updates.
func (ss *session) prompt(ctx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32602, Message: "Session not found: " + ss.id}
	}
	if ss.srv.closing.Load() {
		// The client is gone: nothing would see this turn.
		ss.mu.Unlock()
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	for ss.cancel != nil {
		// A prompt is still running. As in Gemini CLI, the new one cancels
		// it and runs once it has returned: an editor that sends
		// session/cancel and at once the user's next message must not get
		// "busy" because the old turn is still unwinding.
		cancelOld, done := ss.cancel, ss.done
		ss.mu.Unlock()
		cancelOld()
		select {
		case <-done:
		case <-ctx.Done():
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		ss.mu.Lock()
		if ss.closed {
			ss.mu.Unlock()
			return sdk.PromptResponse{}, &sdk.RequestError{Code: -32602, Message: "Session not found: " + ss.id}
		}
		if ss.srv.closing.Load() {
			// The server began closing while this prompt waited.
			ss.mu.Unlock()
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	ss.turn, ss.cancel, ss.done = ctx, cancel, done
	ss.turns.Add(1)
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		ss.turn, ss.cancel, ss.done = nil, nil, nil
		ss.mu.Unlock()
		cancel()
		close(done)
		ss.turns.Done()
		if ss.srv.AfterTurn != nil {
			ss.srv.AfterTurn()
		}
	}()

	in, err := splitPrompt(blocks, ss.root)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	text := in.text
	if strings.HasPrefix(strings.TrimSpace(text), "/") {
		submit, handled := ss.runCommand(ctx, text)
		if handled && submit == "" {
			return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
		}
		if handled {
			text = submit
		}
	}
	var parts []*genai.Part
	if strings.TrimSpace(text) != "" {
		expanded, err := ss.a.ExpandPrompt(ctx, text)
		if err != nil {
			if ctx.Err() != nil {
				return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
			}
			return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		parts = append(parts, expanded...)
	}
	parts = append(parts, in.context...)
	if len(parts) == 0 {
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	m := newMapper(ss.root)
	mw := &modeWatch{ss: ss, last: ss.currentMode()}
	for ev, err := range ss.a.Session.Send(ctx, parts...) {
		if err != nil {
			if ctx.Err() != nil {
				return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
			}
			return sdk.PromptResponse{}, &sdk.RequestError{Code: -32603, Message: err.Error()}
		}
		if ev.Type == agent.EventWarning && ev.Text != "" {
			ss.srv.warn(ev.Text)
		}
		for _, u := range m.updates(ev) {
			ss.send(ctx, u)
		}
		if ev.Type == agent.EventToolCall {
			mw.check(ctx)
		}
	}
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	return sdk.PromptResponse{StopReason: m.stop, Usage: m.usage}, nil
}

// runCommand runs a slash command of the session. handled is false for a
// line naming no command, which goes to the model as typed, as in Gemini
// CLI; submit is the prompt a command asks to run.
func (ss *session) runCommand(ctx context.Context, line string) (submit string, handled bool) {
	name := strings.TrimPrefix(strings.TrimSpace(line), "/")
	if c, _, _ := ss.a.Commands.Lookup(name); c == nil || !c.OfferedIn(command.FaceACP) {
		return "", false
	}
	res, err := ss.a.Commands.RunLine(ctx, name, command.Env{Workspace: ss.root, HomeDir: ss.srv.Options.HomeDir, Trusted: ss.a.Trusted})
	switch {
	case err != nil:
		ss.send(ctx, sdk.UpdateAgentMessageText("Error: "+err.Error()))
	case res == nil:
	case res.Kind == command.ResultSubmitPrompt:
		return res.Content, true
	case res.Kind == command.ResultData:
		b, _ := json.MarshalIndent(res.Data, "", "  ")
		ss.send(ctx, sdk.UpdateAgentMessageText(string(b)))
	default:
		ss.send(ctx, sdk.UpdateAgentMessageText(res.Content))
	}
	return "", true
}

// confirm asks the client about a call needing approval. A client that
// cancels, goes away, or answers with an unknown option rejects the call.
func (ss *session) confirm(ctx context.Context, c *agent.ToolCall) (tool.Decision, error) {
	d := ss.ask(ctx, c)
	// A refusal lets the model reply (decision); a cancelled turn ends.
	d.GoOn = d.GoOn && ctx.Err() == nil
	return d, nil
}

// ask puts the call to the client: a form for ask_user, a permission
// request otherwise.
func (ss *session) ask(ctx context.Context, c *agent.ToolCall) tool.Decision {
	q := questionDetails(c) // plan.go
	if q != nil && q.Type == tool.ConfirmAskUser {
		return ss.askUser(ctx, q)
	}
	if q != nil && q.Plan != "" {
		ss.send(ctx, sdk.UpdatePlan(planEntries(q.Plan)...))
	}
	kind := callKind(c)
	// The call's own informative title ("git status", "Writing to
	// notes.md"), as the tool_call update has it and Gemini CLI 0.61
	// keeps it, not the confirmation's generic one ("Confirm Shell
	// Command").
	title := callTitle(c)
	req := sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(ss.id),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(c.ID),
			Title:      &title,
			Kind:       &kind,
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			Content:    confirmationContent(c),
			Locations:  callLocations(c.Name, c.Args, ss.root),
			RawInput:   rawArgs(c.Args),
		},
		Options: permissionOptions(c, ss.a.Policy.SavesAnswers() != ""),
	}
	if q != nil {
		req.Options = questionOptions()
	}
	if !ss.a.Policy.OffersAlways() {
		req.Options = onceOnly(req.Options) // security.disableAlwaysAllow
	}
	resp, err := ss.conn.RequestPermission(ctx, req)
	if err != nil {
		return tool.Decision{Outcome: tool.Cancel}
	}
	return decision(resp, req.Options)
}

// decision maps the client's answer to the engine's. A Reject is told to
// the model, which answers in the same turn, as Gemini CLI's ACP agent
// does (its terminal ends the turn instead); the "cancelled" outcome
// comes with a cancelled turn, which ends.
func decision(resp sdk.RequestPermissionResponse, offered []sdk.PermissionOption) tool.Decision {
	sel := resp.Outcome.Selected
	if sel == nil {
		return tool.Decision{Outcome: tool.Cancel}
	}
	for _, o := range offered {
		if o.OptionId == sel.OptionId {
			if out := tool.Outcome(o.OptionId); out.Valid() {
				return tool.Decision{Outcome: out, GoOn: out == tool.Cancel}
			}
		}
	}
	return tool.Decision{Outcome: tool.Cancel, GoOn: true}
}

// permissionOptions are allow once, allow for the session (worded for
// the kind of call), allow always and save when save is set (the
// security.enablePermanentToolApproval setting) and reject, as Gemini
// CLI offers them.
func permissionOptions(c *agent.ToolCall, save bool) []sdk.PermissionOption {
	opt := func(o tool.Outcome, name string, k sdk.PermissionOptionKind) sdk.PermissionOption {
		return sdk.PermissionOption{OptionId: sdk.PermissionOptionId(o), Name: name, Kind: k}
	}
	out := []sdk.PermissionOption{opt(tool.ProceedOnce, "Allow", sdk.PermissionOptionKindAllowOnce)}
	var d *tool.ConfirmationDetails
	if c.Confirmation != nil {
		d = c.Confirmation.Details
	}
	switch {
	case d == nil:
		out = append(out, opt(tool.ProceedAlways, "Allow for this session", sdk.PermissionOptionKindAllowAlways))
	case d.Type == tool.ConfirmEdit:
		out = append(out, opt(tool.ProceedAlways, "Allow all edits for this session", sdk.PermissionOptionKindAllowAlways))
	case d.Type == tool.ConfirmExec:
		root := d.RootCommand
		if root == "" {
			root = strings.Join(d.RootCommands, ", ")
		}
		name := "Allow for this session"
		if root != "" {
			name = "Always allow " + root + " for this session"
		}
		out = append(out, opt(tool.ProceedAlways, name, sdk.PermissionOptionKindAllowAlways))
	case d.Type == tool.ConfirmMCP:
		out = append(out,
			opt(tool.ProceedAlwaysServer, "Always allow server "+d.ServerName+" for this session", sdk.PermissionOptionKindAllowAlways),
			opt(tool.ProceedAlwaysTool, "Always allow tool "+d.ToolName+" for this session", sdk.PermissionOptionKindAllowAlways))
	default:
		out = append(out, opt(tool.ProceedAlways, "Allow for this session", sdk.PermissionOptionKindAllowAlways))
	}
	if save {
		out = append(out, opt(tool.ProceedAlwaysSave, "Allow always and save", sdk.PermissionOptionKindAllowAlways))
	}
	return append(out, opt(tool.Cancel, "Reject", sdk.PermissionOptionKindRejectOnce))
}
