package acp_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/routing"
)

// TestACPUnstableModelAPI drives `castor --acp` with the ACP library Gemini
// CLI 0.61 is built with (@agentclientprotocol/sdk 0.16.1): session/new and
// session/load list the models as 0.61 does (auto and the 3.x models), and
// session/set_model switches the model the next prompt asks.
func TestACPUnstableModelAPI(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "acp", "testdata", "gemini016")
	node := e2etest.NodeClient(t, dir, "@agentclientprotocol/sdk")
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("flash here"))
	steps := e.RunClient(node, dir, "ACP_WORKSPACE="+e.WS, "ACP_MODEL=gemini-2.5-flash")
	check := func(step, key string, want any) {
		t.Helper()
		if got := e2etest.MustJSON(steps[step][key]); got != e2etest.MustJSON(want) {
			t.Errorf("%s.%s = %s, want %s", step, key, got, e2etest.MustJSON(want))
		}
	}
	list := func(cur string, ids ...string) map[string]any {
		var models []map[string]any
		for _, id := range ids {
			models = append(models, map[string]any{"modelId": id, "name": id})
		}
		return map[string]any{"availableModels": models, "currentModelId": cur}
	}
	if msg, ok := steps["error"]; ok {
		t.Fatalf("client error: %v", msg)
	}
	offered := []string{routing.Auto, routing.ProModel, routing.FlashModel, routing.FlashLiteModel}
	check("new", "models", list(routing.Auto, offered...))
	check("set", "result", map[string]any{})
	check("prompt", "stopReason", "end_turn")
	check("prompt", "text", "flash here")
	if reqs := e.Srv.Requests(); len(reqs) != 1 || reqs[0].Model != "gemini-2.5-flash" {
		t.Errorf("model requests = %d, the last for %q; want one for gemini-2.5-flash", len(reqs), reqs[len(reqs)-1].Model)
	}
	// The model picked is listed too, first, as the config option lists it.
	check("load", "models", list("gemini-2.5-flash", append([]string{"gemini-2.5-flash"}, offered...)...))
	check("unknown", "code", -32602)
	check("exit", "code", 0)
}
