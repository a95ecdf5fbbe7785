package setup

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestSetModelThinkingConfig: after a model switch (/model in the TUI,
// ACP's model option) the request carries the thinking config Castor
// would have started the new model with: a budget for 2.5 models, a level
// for 3.x ones, none for older ones, an alias resolved first.
func TestSetModelThinkingConfig(t *testing.T) {
	level := &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevelHigh}
	budget := &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr[int32](8192)}
	steps := []struct {
		model string // "" keeps the model
		want  *genai.ThinkingConfig
	}{
		{"", level}, // started on gemini-3-pro-preview
		{"gemini-2.5-flash", budget},
		{"gemini-3-flash-preview", level},
		{"gemini-2.0-flash", nil},
		{"pro", level}, // an alias, resolved as at start-up
		{"gemini-2.5-pro", budget},
	}
	srv := fakegemini.Start(t)
	env := map[string]string{"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": srv.URL, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
	a, err := New(context.Background(), Options{
		WorkDir: t.TempDir(), HomeDir: t.TempDir(), Model: "gemini-3-pro-preview",
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, DisableRecording: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, st := range steps {
		if st.model != "" {
			a.Session.SetModel(st.model)
		}
		srv.Enqueue(fakegemini.Text("ok"))
		if _, err := a.Send(context.Background(), "hi"); err != nil {
			t.Fatalf("after switching to %q: %v", st.model, err)
		}
		req := srv.LastRequest()
		var got *genai.ThinkingConfig
		if req.GenerationConfig != nil {
			got = req.GenerationConfig.ThinkingConfig
		}
		if thinkingJSON(got) != thinkingJSON(st.want) {
			t.Errorf("switched to %q (request model %s): thinkingConfig %s, want %s", st.model, req.Model, thinkingJSON(got), thinkingJSON(st.want))
		}
	}
}

func thinkingJSON(c *genai.ThinkingConfig) string {
	b, _ := json.Marshal(c)
	return string(b)
}
