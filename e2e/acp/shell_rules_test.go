package acp_test

import (
	"context"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
)

// TestACPDenyRuleSeesWhatRuns: castor --acp -y with a policy file
// denying rm (and, apart, tools.exclude run_shell_command(rm)) refuses
// every way of writing rm of issue #25's table, telling the model why,
// and still runs git status: the table e2e/tools runs through -p.
func TestACPDenyRuleSeesWhatRuns(t *testing.T) {
	t.Parallel()
	for _, tt := range e2etest.RmCases(t) {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			e := e2etest.New(t, e2etest.RmConversation(tt.Forms)...)
			e2etest.WriteFiles(t, e.Home, tt.HomeFiles)
			e2etest.RmWorkspace(t, e.WS)
			asked := 0
			c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{Permission: func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
				asked++ // yolo asks nothing: refuse, so the count shows it
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
			}}, "-y")
			r, err := c.PromptText(context.Background(), sid, "clean up")
			if err != nil || r.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("prompt: %+v, %v; stderr:\n%s", r, err, stderr.String())
			}
			if err := c.Close(); err != nil {
				t.Errorf("close: %v; stderr:\n%s", err, stderr.String())
			}
			if asked != 0 {
				t.Errorf("yolo asked %d times", asked)
			}
			e2etest.CheckRmConversation(t, e.WS, tt.Forms, e.Srv.Requests(), tt.Refusal)
		})
	}
}
