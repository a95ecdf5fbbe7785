package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/model"
)

// TestLoopCheck: the loop check asks Gemini CLI 0.61's models (flash with
// utility settings, then the pro model in use with its chat settings), a
// provider's model alone, and what modelConfigs.customAliases redefines;
// a bad redefinition is an error naming the file and key, and the model
// configs Castor does not read are warned about.
func TestLoopCheck(t *testing.T) {
	type want struct {
		model, config, double, doubleConfig string
	}
	utility := `{"temperature":0,"topP":1}`
	chat3 := `{"temperature":1,"topP":0.95,"topK":64,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}}`
	for _, tc := range []struct {
		name     string
		settings string
		model    string
		client   model.Model
		want     want
		warn     string
		err      string
	}{
		{name: "Gemini API key", client: &routing.Router{CustomTools: true}, model: "auto",
			want: want{"gemini-3-flash-preview", utility, "gemini-3.1-pro-preview-customtools", chat3}},
		{name: "sign-in or Vertex", client: &routing.Router{}, model: "gemini-2.5-flash",
			want: want{"gemini-3-flash-preview", utility, "gemini-3.1-pro-preview", chat3}},
		{name: "other provider", model: "openai/gpt-5", want: want{"openai/gpt-5", utility, "", "null"}},
		{name: "flash redefined", model: "auto",
			settings: `{"modelConfigs":{"customAliases":{"loop-detection":{"extends":"gemini-3-flash-base","modelConfig":{"model":"flash","generateContentConfig":{"maxOutputTokens":512}}}}}}`,
			want:     want{"gemini-3.8-flash", `{"maxOutputTokens":512,"temperature":0,"topP":1}`, "gemini-3.1-pro-preview", chat3}},
		{name: "double check redefined", model: "auto",
			settings: `{"modelConfigs":{"customAliases":{"loop-detection-double-check":{"modelConfig":{"generateContentConfig":{"temperature":0.5,"thinkingConfig":{"thinkingLevel":"LOW"}}}}}}}`,
			want:     want{"gemini-3-flash-preview", utility, "gemini-3.1-pro-preview", `{"temperature":0.5,"topP":0.95,"topK":64,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"LOW"}}`}},
		{name: "double check on a 2.5 model", model: "auto",
			settings: `{"modelConfigs":{"customAliases":{"loop-detection-double-check":{"modelConfig":{"model":"gemini-2.5-pro"}}}}}`,
			want:     want{"gemini-3-flash-preview", utility, "gemini-2.5-pro", `{"temperature":1,"topP":0.95,"topK":64,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":8192}}`}},
		{name: "a provider's session double-checked", model: "openai/gpt-5",
			settings: `{"modelConfigs":{"customAliases":{"loop-detection-double-check":{"modelConfig":{"model":"anthropic/claude"}}}}}`,
			want:     want{"openai/gpt-5", utility, "anthropic/claude", "null"}},
		{name: "other aliases warned about", model: "auto",
			settings: `{"modelConfigs":{"customAliases":{"my-flash":{"modelConfig":{"model":"gemini-2.5-flash"}}}}}`,
			want:     want{"gemini-3-flash-preview", utility, "gemini-3.1-pro-preview", chat3},
			warn:     "settings.json: modelConfigs.customAliases.my-flash is not supported by Castor yet (Castor reads only loop-detection and loop-detection-double-check); ignored"},
		{name: "not an object", model: "auto", settings: `{"modelConfigs":{"customAliases":{"loop-detection":"flash"}}}`,
			err: "settings.json: modelConfigs.customAliases.loop-detection should be an object with a modelConfig"},
		{name: "model not a name", model: "auto", settings: `{"modelConfigs":{"customAliases":{"loop-detection":{"modelConfig":{"model":3}}}}}`,
			err: "settings.json: modelConfigs.customAliases.loop-detection.modelConfig.model should be a model name"},
		{name: "bad generation setting", model: "auto", settings: `{"modelConfigs":{"customAliases":{"loop-detection-double-check":{"modelConfig":{"generateContentConfig":{"temperature":"hot"}}}}}}`,
			err: "settings.json: modelConfigs.customAliases.loop-detection-double-check.modelConfig.generateContentConfig: json: cannot unmarshal string into Go struct field GenerateContentConfig.temperature"},
		{name: "generation settings not an object", model: "auto", settings: `{"modelConfigs":{"customAliases":{"loop-detection":{"modelConfig":{"generateContentConfig":[]}}}}}`,
			err: "modelConfigs.customAliases.loop-detection.modelConfig.generateContentConfig: should be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
			os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
			os.MkdirAll(ws, 0o755)
			if tc.settings != "" {
				if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(tc.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			st, err := config.Load(config.LoadOptions{Workspace: ws, HomeDir: home, Env: config.EnvMap(nil), SystemSettingsPath: filepath.Join(root, "none.json"), SystemDefaultsPath: filepath.Join(root, "none2.json")})
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			lc, err := loopCheck(st, tc.client, tc.model, func(s string) { warned = append(warned, s) })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
			got := want{lc.Model, jsonOf(lc.Config), lc.DoubleCheckModel, jsonOf(lc.DoubleCheckConfig)}
			if got.model != tc.want.model || got.double != tc.want.double || !sameJSON(got.config, tc.want.config) || !sameJSON(got.doubleConfig, tc.want.doubleConfig) {
				t.Errorf("loop check\n%+v\nwant\n%+v", got, tc.want)
			}
			if tc.warn == "" && len(warned) > 0 || tc.warn != "" && (len(warned) != 1 || !strings.HasSuffix(warned[0], tc.warn)) {
				t.Errorf("warnings %q, want %q", warned, tc.warn)
			}
		})
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
