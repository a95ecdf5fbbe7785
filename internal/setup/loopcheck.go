package setup

import (
	"cmp"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/model"
)

// Gemini CLI 0.61's model configs of the loop check, which settings may
// redefine under modelConfigs.customAliases.
const (
	customAliasesKey = "modelConfigs.customAliases"
	loopCheckAlias   = "loop-detection"
	doubleCheckAlias = "loop-detection-double-check"
)

// loopCheck is the session's model-assisted loop check (agent.LoopCheck).
// A Gemini session asks the models Gemini CLI 0.61 asks: its
// "loop-detection" model with utility settings, then, when that one is
// sure, its "loop-detection-double-check" model, the pro model in use
// with its chat settings (on the wire: gemini-3.1-pro-preview-customtools
// with a Gemini API key). A session on another provider's model asks
// that model alone, which its credentials reach. Either model config may
// be redefined in settings, as in Gemini CLI: its modelConfig's model and
// generateContentConfig (merged over the default) are honoured. The other
// model configs of modelConfigs.customAliases are not: warn says so, as
// for any setting Castor ignores.
func loopCheck(st *config.Settings, client model.Model, modelName string, warn func(string)) (*agent.LoopCheck, error) {
	warnOtherAliases(st, warn)
	lc := &agent.LoopCheck{Model: modelName}
	if providerName(modelName) == "" {
		customTools := false
		if r := routerOf(client); r != nil {
			customTools = r.CustomTools
		}
		lc = &agent.LoopCheck{Model: agent.DefaultLoopCheckModel, DoubleCheckModel: routing.Resolve("pro", customTools)}
	}
	var err error
	utility := func(string) *genai.GenerateContentConfig { return agent.DefaultLoopCheckConfig() }
	if lc.Model, lc.Config, err = aliasModelConfig(st, loopCheckAlias, lc.Model, utility); err != nil {
		return nil, err
	}
	if lc.DoubleCheckModel != "" || aliasSet(st, doubleCheckAlias) {
		lc.DoubleCheckModel, lc.DoubleCheckConfig, err = aliasModelConfig(st, doubleCheckAlias, cmp.Or(lc.DoubleCheckModel, lc.Model), doubleCheckConfig)
	}
	return lc, err
}

func aliasSet(st *config.Settings, alias string) bool {
	_, ok := st.Get(customAliasesKey + "." + alias)
	return ok
}

// warnOtherAliases warns about the model configs of
// modelConfigs.customAliases that only Gemini CLI reads.
func warnOtherAliases(st *config.Settings, warn func(string)) {
	all, _ := st.Get(customAliasesKey)
	m, _ := all.(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if name == loopCheckAlias || name == doubleCheckAlias || warn == nil {
			continue
		}
		line := config.IgnoredSetting{File: cmp.Or(st.FileOf("modelConfigs", "customAliases", name), "settings"), Key: customAliasesKey + "." + name,
			Status: config.SettingUnsupported, Note: "Castor reads only loop-detection and loop-detection-double-check"}.String()
		if _, said := warnedSettings.LoadOrStore(line, true); !said {
			warn(line)
		}
	}
}

// doubleCheckConfig is the double check's default generation config for
// a model: its chat settings (a 3.x model's thinking level, a 2.5 model's
// budget), as Gemini CLI resolves the model's own config; none for
// another provider's model.
func doubleCheckConfig(name string) *genai.GenerateContentConfig {
	if providerName(name) != "" {
		return nil
	}
	return chatGenerationConfig(name)
}

// aliasModelConfig applies a model config from settings to a default
// model, whose generation config is base(model). A model named by alias
// ("flash", "pro") is resolved; "extends" is not followed, Castor having
// no table of Gemini CLI's other model configs.
func aliasModelConfig(st *config.Settings, alias, name string, base func(string) *genai.GenerateContentConfig) (string, *genai.GenerateContentConfig, error) {
	key := customAliasesKey + "." + alias
	v, ok := st.Get(key)
	if !ok {
		return name, base(name), nil
	}
	where := cmp.Or(st.FileOf("modelConfigs", "customAliases", alias), "settings")
	entry, isObj := v.(map[string]any)
	if !isObj {
		return "", nil, configErrorf("%s: %s should be an object with a modelConfig", where, key)
	}
	mc, ok := entry["modelConfig"].(map[string]any)
	if !ok {
		if _, set := entry["modelConfig"]; set {
			return "", nil, configErrorf("%s: %s.modelConfig should be an object", where, key)
		}
		return name, base(name), nil
	}
	if m, set := mc["model"]; set {
		s, ok := m.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return "", nil, configErrorf("%s: %s.modelConfig.model should be a model name", where, key)
		}
		name = routing.Resolve(s, false)
	}
	gen := base(name)
	if g, set := mc["generateContentConfig"]; set {
		raw, err := json.Marshal(g)
		if err == nil && !strings.HasPrefix(string(raw), "{") {
			err = errNotObject
		}
		merged := &genai.GenerateContentConfig{}
		if err == nil && gen != nil {
			// A copy, so the default (shared with other calls) stays.
			base, _ := json.Marshal(gen)
			err = json.Unmarshal(base, merged)
		}
		if err == nil {
			err = json.Unmarshal(raw, merged)
		}
		if err != nil {
			return "", nil, configErrorf("%s: %s.modelConfig.generateContentConfig: %v", where, key, err)
		}
		gen = merged
	}
	return name, gen, nil
}

var errNotObject = errors.New("should be an object")
