package setup

import (
	"context"

	"github.com/castor-dev/castor/agent"
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
