package lsp_test

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

// TestACPEditNotesAndRenameDiff: over ACP, an edit's tool-call update
// carries the new problems after its diff, and lsp_rename asks
// permission with the diff like any edit.
func TestACPEditNotesAndRenameDiff(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteSettings(t, e, settings(map[string]any{"words": testServer(t, "")}))
	e2etest.WriteFiles(t, e.WS, map[string]string{"code.txt": "func alpha\ncall alpha\n"})
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": filepath.Join(e.WS, "notes.txt"), "content": "ERROR: acp problem\n"}),
		fakegemini.Call("lsp_rename", map[string]any{"file_path": "code.txt", "line": 1, "symbol": "alpha", "new_name": "beta"}),
		fakegemini.Text("Done."),
	)
	var mu sync.Mutex
	var notes []string
	var asked []sdk.RequestPermissionRequest
	h := acp.Handler{
		Update: func(_ context.Context, n sdk.SessionNotification) {
			u := n.Update.ToolCallUpdate
			if u == nil {
				return
			}
			for _, c := range u.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					mu.Lock()
					notes = append(notes, c.Content.Content.Text.Text)
					mu.Unlock()
				}
			}
		},
		Permission: func(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			mu.Lock()
			asked = append(asked, r)
			mu.Unlock()
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
	if _, err := c.PromptText(context.Background(), sid, "Work."); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(notes, "\n"), "notes.txt:1:1: error: acp problem (lsptest)") {
		t.Errorf("no tool-call update carries the problem: %q", notes)
	}
	if len(asked) != 2 {
		t.Fatalf("%d permission requests, want 2 (the write, the rename)", len(asked))
	}
	diff := ""
	for _, c := range asked[1].ToolCall.Content {
		if c.Diff != nil {
			diff = c.Diff.NewText
		}
	}
	if diff != "func beta\ncall beta\n" {
		t.Errorf("the rename's permission request shows %q, want the renamed file", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "code.txt")); string(b) != "func beta\ncall beta\n" {
		t.Errorf("code.txt = %q", b)
	}
}
