package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestACPPlanApproveExecute: in one prompt the model enters plan mode,
// writes a plan and submits it; the editor sees the plan as a plan
// update, a permission request showing its text with Allow and Reject
// only, and the mode changes; approving it lets the implementation run,
// in default mode, where its edit is asked about.
func TestACPPlanApproveExecute(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "feature.txt")
	e.Srv.Enqueue(
		fakegemini.Call("enter_plan_mode", map[string]any{}),
		fakegemini.Call("write_file", map[string]any{"file_path": "feature-x.md", "content": "# Feature X\n\n1. Create feature.txt\n2. Say done\n"}),
		fakegemini.Call("exit_plan_mode", map[string]any{"plan_filename": "feature-x.md"}),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "done\n"}),
		fakegemini.Text("Implemented."),
	)
	var mu sync.Mutex
	var plans [][]string
	var modes, asked []string
	var planText string
	var planOptions []string
	h := acp.Handler{
		Update: func(_ context.Context, n sdk.SessionNotification) {
			mu.Lock()
			defer mu.Unlock()
			if u := n.Update.Plan; u != nil {
				var entries []string
				for _, en := range u.Entries {
					entries = append(entries, en.Content)
				}
				plans = append(plans, entries)
			}
			if u := n.Update.CurrentModeUpdate; u != nil {
				modes = append(modes, string(u.CurrentModeId))
			}
		},
		Permission: func(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			mu.Lock()
			defer mu.Unlock()
			title := ""
			if r.ToolCall.Title != nil {
				title = *r.ToolCall.Title
			}
			asked = append(asked, title)
			if strings.HasPrefix(title, "Requesting plan approval for: ") {
				for _, c := range r.ToolCall.Content {
					if c.Content != nil && c.Content.Content.Text != nil {
						planText = c.Content.Content.Text.Text
					}
				}
				for _, o := range r.Options {
					planOptions = append(planOptions, o.Name)
				}
			}
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: "proceed_once"}}}, nil
		},
	}
	c, sid, stderr := e2etest.StartACPClient(t, e, h)
	defer c.Close()
	resp, err := c.PromptText(context.Background(), sid, "plan feature x, then build it")
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %s", resp.StopReason)
	}
	mu.Lock()
	defer mu.Unlock()
	// Approved without a mode, as ACP answers, the plan is implemented in
	// default mode: its edit is asked about.
	// Each request keeps its tool call's own title, as 0.61 shows them.
	if len(asked) != 3 || asked[0] != "Initiating Plan Mode" || !strings.HasSuffix(asked[1], "/plans/feature-x.md") || asked[2] != "Writing to feature.txt" {
		t.Errorf("permission requests %q", asked)
	}
	if !strings.Contains(planText, "1. Create feature.txt") || strings.Join(planOptions, ",") != "Allow,Reject" {
		t.Errorf("plan request text %q options %v", planText, planOptions)
	}
	if len(plans) != 1 || strings.Join(plans[0], "|") != "Create feature.txt|Say done" {
		t.Errorf("plan updates %v", plans)
	}
	if strings.Join(modes, ",") != "plan,default" {
		t.Errorf("mode updates %v", modes)
	}
	if got, _ := os.ReadFile(target); string(got) != "done\n" {
		t.Errorf("feature.txt = %q", got)
	}
}

// TestACPRewind: /rewind is one of the editor's commands; it lists the
// prompts, and "/rewind N" takes the conversation back before prompt N.
func TestACPRewind(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("One."), fakegemini.Text("Two."), fakegemini.Text("Three."))
	var mu sync.Mutex
	var said strings.Builder
	h := acp.Handler{Update: func(_ context.Context, n sdk.SessionNotification) {
		if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
			mu.Lock()
			said.WriteString(u.Content.Text.Text + "\n")
			mu.Unlock()
		}
	}}
	c, sid, stderr := e2etest.StartACPClient(t, e, h)
	defer c.Close()
	ctx := context.Background()
	for _, p := range []string{"first question", "second question", "/rewind", "/rewind 2", "third question"} {
		if _, err := c.PromptText(ctx, sid, p); err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", p, err, stderr.String())
		}
	}
	mu.Lock()
	out := said.String()
	mu.Unlock()
	if !strings.Contains(out, "1. first question\n2. second question") || !strings.Contains(out, "Rewound the conversation to before: second question") {
		t.Errorf("the editor was told:\n%s", out)
	}
	last := e2etest.ContentsText(e.Srv.LastRequest())
	if !strings.Contains(last, "first question") || strings.Contains(last, "second question") || strings.Contains(last, "Two.") {
		t.Errorf("after the rewind the model was sent:\n%s", last)
	}
}
