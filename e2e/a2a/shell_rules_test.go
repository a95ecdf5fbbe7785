package a2a_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestA2ADenyRuleSeesWhatRuns: a task of castor a2a-server
// --max-approval-mode yolo whose client asks for autoExecute, with a
// policy file denying rm (and, apart, tools.exclude
// run_shell_command(rm)), refuses every way of writing rm of issue #25's
// table, telling the model why, and still runs git status: the table
// e2e/tools runs through -p.
func TestA2ADenyRuleSeesWhatRuns(t *testing.T) {
	t.Parallel()
	for _, tt := range e2etest.RmCases(t) {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			e := e2etest.New(t, e2etest.RmConversation(tt.Forms)...)
			e2etest.WriteFiles(t, e.Home, tt.HomeFiles)
			e2etest.RmWorkspace(t, e.WS)
			srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"), "--max-approval-mode", "yolo")
			msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": map[string]any{
				"message": map[string]any{"kind": "message", "role": "user", "messageId": "m1",
					"parts":    []any{map[string]any{"kind": "text", "text": "clean up"}},
					"metadata": map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": e.WS, "autoExecute": true}}},
			}})
			resp, err := http.Post(srv.url, "application/json", strings.NewReader(string(msg)))
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Result map[string]any `json:"result"`
				Error  any            `json:"error"`
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || out.Result == nil {
				t.Fatalf("message/send: %+v %v", out, err)
			}
			srv.stop(syscall.SIGTERM)
			e2etest.CheckRmConversation(t, e.WS, tt.Forms, e.Srv.Requests(), tt.Refusal)
		})
	}
}
