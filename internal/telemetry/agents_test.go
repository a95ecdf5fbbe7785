package telemetry

import (
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

func TestTerminateReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call agent.ToolCall
		want string
	}{
		{"goal", agent.ToolCall{Status: agent.StatusSuccess, Result: tool.Text("Subagent 'reviewer' finished.\nTermination Reason: GOAL\nResult:\nok")}, "GOAL"},
		{"max turns", agent.ToolCall{Status: agent.StatusSuccess, Result: tool.Text("Subagent 'r' finished.\nTermination Reason: MAX_TURNS\nResult:\n")}, "MAX_TURNS"},
		{"no reason said", agent.ToolCall{Status: agent.StatusSuccess, Result: tool.Text("done")}, "GOAL"},
		{"failed", agent.ToolCall{Status: agent.StatusError, Result: tool.Fail(tool.ErrorType("x"), "boom")}, "ERROR"},
		{"cancelled", agent.ToolCall{Status: agent.StatusCancelled}, "ABORTED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := terminateReason(&tc.call); got != tc.want {
				t.Errorf("terminateReason = %q, want %q", got, tc.want)
			}
		})
	}
}
