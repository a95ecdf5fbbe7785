package tui_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestACPUntrustedFolderRunsSafe opens `castor --acp` in the cloned
// repository with no trust decided: nothing of the folder runs (no hook,
// no MCP server, no YOLO: the model's shell call is asked about), nothing
// is saved, and the editor is told, in the session's first update and in
// the answer's _meta, with how to trust the folder.
func TestACPUntrustedFolderRunsSafe(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	writeClonedRepo(t, e)
	var mu sync.Mutex
	var text strings.Builder
	var asked []string
	h := acp.Handler{
		Update: func(_ context.Context, n sdk.SessionNotification) {
			if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
				mu.Lock()
				text.WriteString(u.Content.Text.Text)
				mu.Unlock()
			}
		},
		Permission: func(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			mu.Lock()
			asked = append(asked, e2etest.MustJSON(r.ToolCall))
			mu.Unlock()
			for _, o := range r.Options {
				if o.Kind == sdk.PermissionOptionKindRejectOnce {
					return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
				}
			}
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
		},
	}
	cmd := e2etest.Command(t, "--acp")
	cmd.Dir = e.WS
	cmd.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL}
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	c, err := acp.Start(cmd, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang, not a timing assertion
	defer cancel()
	if _, err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.WS, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr:\n%s", err, stderr.String())
	}
	if s.Modes == nil || s.Modes.CurrentModeId != "default" {
		t.Errorf("the session's mode is %+v, want default (the folder's YOLO ignored)", s.Modes)
	}
	meta, _ := s.Meta["castor/folderTrust"].(map[string]any)
	if meta["trusted"] != false || meta["folder"] != e.WS {
		t.Errorf("session/new _meta = %v, want castor/folderTrust saying the folder is not trusted", s.Meta)
	}
	const notice = "This folder is untrusted, project settings, hooks, MCPs, and GEMINI.md files will not be applied for this folder."
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		got := text.String()
		mu.Unlock()
		if strings.Contains(got, notice) && strings.Contains(got, "Trust folder") {
			break
		}
		if time.Now().After(deadline) { // a hang, not a timing assertion
			t.Fatalf("the editor was not told the folder is untrusted; messages: %q", got)
		}
	}

	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch ../PWNED_SHELL"}), fakegemini.Text("ok"))
	if _, err := c.PromptText(ctx, s.SessionId, "set things up"); err != nil {
		t.Fatalf("session/prompt: %v\nstderr:\n%s", err, stderr.String())
	}
	mu.Lock()
	if len(asked) != 1 || !strings.Contains(asked[0], "touch ../PWNED_SHELL") {
		t.Errorf("permission requests %q, want the shell call asked about", asked)
	}
	mu.Unlock()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if ran := ranMarkers(e); len(ran) > 0 {
		t.Errorf("the untrusted folder's code ran: %v\nstderr:\n%s", ran, stderr.String())
	}
	if rules := trustRules(t, e); rules != nil {
		t.Errorf("castor --acp saved a trust rule: %v", rules)
	}
}
