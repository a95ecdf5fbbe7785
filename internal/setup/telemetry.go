package setup

import (
	"context"
	"maps"
	"slices"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/oauth"
)

// telemetryObserver asks Options.Telemetry for the session's Observer
// with the merged settings; a mistake in the telemetry settings ends the
// assembly, as Gemini CLI 0.61 refuses to start with one.
func telemetryObserver(o Options, a *Agent) (agent.Observer, error) {
	if o.Telemetry == nil {
		return nil, nil
	}
	obs, err := o.Telemetry(a.Settings, a.Env.Lookup, o.Warn)
	if err != nil {
		return nil, configErrorf("%v", err)
	}
	return obs, nil
}

// subagentObserver tells the session's Observer of a subagent's turns and
// calls as a subagent's: its turns marked, its model calls of role
// "subagent", as Gemini CLI counts them.
type subagentObserver struct{ agent.Observer }

func (o subagentObserver) TurnStarted(ctx context.Context, t *agent.ObservedTurn) (context.Context, func(agent.TurnEndReason, error)) {
	c := *t
	c.Subagent = true
	return o.Observer.TurnStarted(ctx, &c)
}

func (o subagentObserver) ModelCalled(ctx context.Context, m *agent.ObservedModelCall) {
	if m.Role == "main" {
		c := *m
		c.Role = "subagent"
		m = &c
	}
	o.Observer.ModelCalled(ctx, m)
}

// SessionStart is what a session's telemetry reports of it once it is
// assembled (Gemini CLI 0.61's gemini_cli.config event).
type SessionStart struct {
	SessionID, Model string
	// ApprovalMode is the policy's mode (default, auto_edit, yolo, plan).
	ApprovalMode string
	// AuthType is the auth type in effect (oauth-personal,
	// gemini-api-key, vertex-ai, …), "" when none is configured.
	AuthType                          string
	Sandbox, RespectGitIgnore         bool
	CoreTools, MCPServers, Extensions []string
}

// SessionStartObserver is an agent.Observer told of each session New
// assembles.
type SessionStartObserver interface {
	SessionStarted(SessionStart)
}

// tellSessionStart tells the session's Observer, when it wants to know,
// what the session was assembled with.
func tellSessionStart(o Options, a *Agent, obs agent.Observer) {
	so, ok := obs.(SessionStartObserver)
	if !ok {
		return
	}
	st := a.Settings
	s := SessionStart{
		SessionID:        a.Session.ID(),
		Model:            a.Session.Model(),
		ApprovalMode:     string(a.Policy.Mode()),
		Sandbox:          a.Sandbox != nil,
		RespectGitIgnore: st.Context.FileFiltering.RespectGitIgnore,
		CoreTools:        st.Tools.Core,
	}
	if sel, err := oauth.SelectAuthType(st.Security.Auth.SelectedType, st.Security.Auth.EnforcedType, func(k string) string { v, _ := a.Env.Lookup(k); return v }); err == nil {
		s.AuthType = string(sel.Type)
	}
	servers := map[string]bool{}
	for name := range st.MCPServers {
		servers[name] = true
	}
	for name := range o.MCPServers {
		servers[name] = true
	}
	s.MCPServers = slices.Sorted(maps.Keys(servers))
	for _, e := range a.Extensions {
		s.Extensions = append(s.Extensions, e.Name)
	}
	so.SessionStarted(s)
}

// Compressed passes a subagent's summarised history on when the
// session's Observer wants it.
func (o subagentObserver) Compressed(ctx context.Context, sessionID string, info agent.CompressionInfo) {
	if c, ok := o.Observer.(agent.CompressionObserver); ok {
		c.Compressed(ctx, sessionID, info)
	}
}

// Routed passes a subagent's routing decision on when the session's
// Observer wants it.
func (o subagentObserver) Routed(ctx context.Context, r *agent.ObservedRouting) {
	if c, ok := o.Observer.(agent.RoutingObserver); ok {
		c.Routed(ctx, r)
	}
}

// LoopFound passes a subagent's loop on when the session's Observer
// wants it.
func (o subagentObserver) LoopFound(ctx context.Context, l *agent.ObservedLoop) {
	if c, ok := o.Observer.(agent.LoopObserver); ok {
		c.LoopFound(ctx, l)
	}
}

// LoopChecked passes a subagent's loop check on when the session's
// Observer wants it.
func (o subagentObserver) LoopChecked(ctx context.Context, lc *agent.ObservedLoopCheck) {
	if c, ok := o.Observer.(agent.LoopObserver); ok {
		c.LoopChecked(ctx, lc)
	}
}
