package tools_test

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

// TestHeadlessShellSafety: as in Gemini CLI 0.61, a headless run in
// default mode refuses the shell tool even for a known-safe command (its
// deny rule is never loosened by the heuristics; the tool is not even
// declared), while with the shell tool allowed (--allowed-tools) a
// known-safe ls runs and a dangerous rm -rf or a redirection, which would
// need approval, is refused.
func TestHeadlessShellSafety(t *testing.T) {
	t.Parallel()
	t.Run("default mode refuses ls", func(t *testing.T) {
		e := e2etest.New(t,
			fakegemini.Call("run_shell_command", map[string]any{"command": "ls"}),
			fakegemini.Text("done"))
		e.Write("marker.txt", "x")
		r := e.Run("-p", "list the files")
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		reqs := e.Srv.Requests()
		for _, d := range reqs[0].FunctionDeclarations() {
			if d.Name == "run_shell_command" {
				t.Error("run_shell_command declared in a headless default-mode run")
			}
		}
		_, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
		if msg, _ := resp["error"].(string); !strings.HasPrefix(msg, `Tool "run_shell_command" not found.`) || strings.Contains(e2etest.MustJSON(resp), "marker.txt") {
			t.Errorf("response = %s", e2etest.MustJSON(resp))
		}
	})
	t.Run("allowed shell: safe runs, dangerous is refused", func(t *testing.T) {
		e := e2etest.New(t,
			fakegemini.Call("run_shell_command", map[string]any{"command": "ls"}),
			fakegemini.Call("run_shell_command", map[string]any{"command": "rm -rf victim"}),
			fakegemini.Call("run_shell_command", map[string]any{"command": "ls > listing.txt"}),
			fakegemini.Call("run_shell_command", map[string]any{"command": "git -c core.pager=cat log"}),
			fakegemini.Text("done"))
		e.Write("marker.txt", "x")
		if err := os.Mkdir(filepath.Join(e.WS, "victim"), 0o755); err != nil {
			t.Fatal(err)
		}
		e.Write("victim/keep.txt", "keep me")
		r := e.Run("--allowed-tools", "run_shell_command", "-p", "look around")
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		reqs := e.Srv.Requests()
		if len(reqs) != 5 {
			t.Fatalf("%d requests", len(reqs))
		}
		if _, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0); !strings.Contains(e2etest.MustJSON(resp), "marker.txt") {
			t.Errorf("ls: %s", e2etest.MustJSON(resp))
		}
		for i, cmd := range []string{"rm -rf victim", "ls > listing.txt", "git -c core.pager=cat log"} {
			if _, resp := e2etest.FunctionResponse(t, reqs[i+2].LastContent(), 0); resp["error"] != "Tool execution denied by policy." {
				t.Errorf("%s: %s", cmd, e2etest.MustJSON(resp))
			}
		}
		if _, err := os.Stat(filepath.Join(e.WS, "victim", "keep.txt")); err != nil {
			t.Errorf("rm -rf ran: %v", err)
		}
		if _, err := os.Stat(filepath.Join(e.WS, "listing.txt")); err == nil {
			t.Error("the redirection ran")
		}
	})
}

// TestACPShellSafety: in an interactive default-mode session (ACP, whose
// client answers permission requests), a known-safe ls runs without
// asking while touch is asked about, as in Gemini CLI 0.61.
func TestACPShellSafety(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "ls"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch made.txt"}),
		fakegemini.Text("done"))
	e.Write("marker.txt", "x")
	var mu sync.Mutex
	var asked []string
	c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{
		Permission: func(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			mu.Lock()
			asked = append(asked, e2etest.MustJSON(r.ToolCall.RawInput))
			mu.Unlock()
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
		},
	})
	if _, err := c.PromptText(context.Background(), sid, "look around"); err != nil {
		t.Fatalf("prompt: %v; stderr:\n%s", err, stderr.String())
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v; stderr:\n%s", err, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0], "touch made.txt") {
		t.Errorf("permission requests: %v", asked)
	}
	reqs := e.Srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests; stderr:\n%s", len(reqs), stderr.String())
	}
	if _, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0); !strings.Contains(e2etest.MustJSON(resp), "marker.txt") {
		t.Errorf("ls: %s", e2etest.MustJSON(resp))
	}
	if _, err := os.Stat(filepath.Join(e.WS, "made.txt")); err == nil {
		t.Error("touch ran although it was not approved")
	}
}
