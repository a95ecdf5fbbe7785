package acp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestACPCommandsFollowMCPPrompts drives `castor --acp` with the SDK's Go
// client: a server's tool call takes its prompt greet away and offers
// farewell (notifications/prompts/list_changed), and the editor is sent
// a new available_commands_update without greet and with farewell, as
// Gemini CLI does when it reloads its commands; /farewell then expands
// to the server's prompt.
func TestACPCommandsFollowMCPPrompts(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{"live": e2etest.HelperMCPServer(t, "swap")}})
	var mu sync.Mutex
	var lists [][]string // every available_commands_update, in order
	h := acp.Handler{
		Update: func(_ context.Context, n sdk.SessionNotification) {
			if u := n.Update.AvailableCommandsUpdate; u != nil {
				var names []string
				for _, c := range u.AvailableCommands {
					names = append(names, c.Name)
				}
				mu.Lock()
				lists = append(lists, names)
				mu.Unlock()
			}
		},
		Permission: func(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			for _, o := range r.Options {
				if o.Kind == sdk.PermissionOptionKindAllowOnce {
					return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
				}
			}
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
		},
	}
	c, sid, stderr := e2etest.StartACPClient(t, e, h)
	defer c.Close()
	// last waits for an update satisfying ok and returns how many came.
	last := func(what string, ok func(map[string]bool) bool) int {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			n := len(lists)
			var got map[string]bool
			if n > 0 {
				got = map[string]bool{}
				for _, name := range lists[n-1] {
					got[name] = true
				}
			}
			mu.Unlock()
			if got != nil && ok(got) {
				return n
			}
			if time.Now().After(deadline) { // a hang, not a timing assertion
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("no available_commands_update %s; sent: %v\nstderr:\n%s", what, lists, stderr.String())
			}
		}
	}
	before := last("with greet", func(m map[string]bool) bool { return m["greet"] && !m["farewell"] })
	e.Srv.Enqueue(fakegemini.Call("swap_prompts", map[string]any{}), fakegemini.Text("swapped"))
	if _, err := c.PromptText(context.Background(), sid, "swap the prompts"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(e.Srv.LastRequest().Body), "swapped") {
		t.Fatal("swap_prompts did not run")
	}
	after := last("with farewell and without greet", func(m map[string]bool) bool { return m["farewell"] && !m["greet"] && m["compress"] })
	if after != before+1 {
		// One change, one update: the editor's list is not resent for nothing.
		mu.Lock()
		t.Errorf("%d updates after the swap, want 1: %v", after-before, lists[before:])
		mu.Unlock()
	}
	e.Srv.Enqueue(fakegemini.Text("ok"))
	if _, err := c.PromptText(context.Background(), sid, "/farewell"); err != nil {
		t.Fatal(err)
	}
	if got := e2etest.LastUserText(e.Srv.LastRequest()); !strings.Contains(got, "prompt farewell of server swap") {
		t.Errorf("/farewell reached the model as %q", got)
	}
}
