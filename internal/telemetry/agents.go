package telemetry

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/castor-dev/castor/agent"
)

// Gemini CLI 0.61's subagent run events and metrics.
const (
	invokeAgentTool   = "invoke_agent"
	eventAgentStart   = "gemini_cli.agent.start"
	eventAgentFinish  = "gemini_cli.agent.finish"
	metricAgentRuns   = "gemini_cli.agent.run.count"
	metricAgentMillis = "gemini_cli.agent.duration"
)

// terminateReason is a subagent run's terminate reason as its result
// tells the parent model ("Termination Reason: GOAL"), else ERROR for a
// call that failed and ABORTED for one cancelled or refused, as Gemini CLI
// names them.
func terminateReason(c *agent.ToolCall) string {
	if c.Result != nil && c.Status == agent.StatusSuccess {
		const key = "Termination Reason: "
		if _, after, ok := strings.Cut(c.Result.LLMText, key); ok {
			reason, _, _ := strings.Cut(after, "\n")
			if reason = strings.TrimSpace(reason); reason != "" {
				return reason
			}
		}
		return "GOAL"
	}
	if c.Status == agent.StatusError {
		return "ERROR"
	}
	return "ABORTED"
}

// agentCalled records a subagent run, the invoke_agent call that made it:
// gemini_cli.agent.start and gemini_cli.agent.finish (agent_id is the
// call's id) and the run count and duration metrics.
func (t *Telemetry) agentCalled(ctx context.Context, sessionID string, c *agent.ToolCall, start, end time.Time, common []attribute.KeyValue) {
	if c.Name != invokeAgentTool || c.Status == agent.StatusCancelled && c.Result == nil {
		return
	}
	name := argString(c.Args, "agent_name")
	if name == "" {
		return
	}
	id := []attribute.KeyValue{attribute.String("agent_id", c.ID), attribute.String("agent_name", name)}
	t.emit(ctx, eventAgentStart, sessionID, fmt.Sprintf("Agent %s started. ID: %s", name, c.ID), start, id...)
	ms := end.Sub(start).Milliseconds()
	reason := terminateReason(c)
	t.emit(ctx, eventAgentFinish, sessionID, fmt.Sprintf("Agent %s finished. Reason: %s. Duration: %dms.", name, reason, ms), end,
		append(id, attribute.Int64("duration_ms", ms), attribute.String("terminate_reason", reason))...)
	t.m.agentRuns.Add(ctx, 1, append(common, attribute.String("agent_name", name), attribute.String("terminate_reason", reason))...)
	t.m.agentDuration.Record(ctx, ms, append(common, attribute.String("agent_name", name))...)
}
