package config

import (
	"sort"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// v1Keys maps the flat settings keys of Gemini CLI before September 2025
// (settings "V1") to their nested V2 paths. Gemini CLI rewrote such files on
// load until January 2026 and then stopped reading them; castor keeps
// reading them so that an old settings.json still works. The table is
// Gemini CLI's last MIGRATION_MAP, except that loadMemoryFromIncludeDirectories
// goes to the key the V2 schema actually has (the map named a key that
// never existed).
var v1Keys = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"accessibility":                    "ui.accessibility",
		"allowedTools":                     "tools.allowed",
		"allowMCPServers":                  "mcp.allowed",
		"autoAccept":                       "tools.autoAccept",
		"autoConfigureMaxOldSpaceSize":     "advanced.autoConfigureMemory",
		"bugCommand":                       "advanced.bugCommand",
		"chatCompression":                  "model.compressionThreshold",
		"checkpointing":                    "general.checkpointing",
		"coreTools":                        "tools.core",
		"contextFileName":                  "context.fileName",
		"customThemes":                     "ui.customThemes",
		"customWittyPhrases":               "ui.customWittyPhrases",
		"debugKeystrokeLogging":            "general.debugKeystrokeLogging",
		"disableAutoUpdate":                "general.disableAutoUpdate",
		"disableUpdateNag":                 "general.disableUpdateNag",
		"dnsResolutionOrder":               "advanced.dnsResolutionOrder",
		"enableHooks":                      "tools.enableHooks",
		"enablePromptCompletion":           "general.enablePromptCompletion",
		"enforcedAuthType":                 "security.auth.enforcedType",
		"excludeTools":                     "tools.exclude",
		"excludeMCPServers":                "mcp.excluded",
		"excludedProjectEnvVars":           "advanced.excludedEnvVars",
		"experimentalSkills":               "experimental.skills",
		"extensionManagement":              "experimental.extensionManagement",
		"extensions":                       "extensions",
		"fileFiltering":                    "context.fileFiltering",
		"folderTrustFeature":               "security.folderTrust.featureEnabled",
		"folderTrust":                      "security.folderTrust.enabled",
		"hasSeenIdeIntegrationNudge":       "ide.hasSeenNudge",
		"hideWindowTitle":                  "ui.hideWindowTitle",
		"showStatusInTitle":                "ui.showStatusInTitle",
		"hideTips":                         "ui.hideTips",
		"hideBanner":                       "ui.hideBanner",
		"hideFooter":                       "ui.hideFooter",
		"hideCWD":                          "ui.footer.hideCWD",
		"hideSandboxStatus":                "ui.footer.hideSandboxStatus",
		"hideModelInfo":                    "ui.footer.hideModelInfo",
		"hideContextSummary":               "ui.hideContextSummary",
		"showMemoryUsage":                  "ui.showMemoryUsage",
		"showLineNumbers":                  "ui.showLineNumbers",
		"showCitations":                    "ui.showCitations",
		"ideMode":                          "ide.enabled",
		"includeDirectories":               "context.includeDirectories",
		"loadMemoryFromIncludeDirectories": "context.loadMemoryFromIncludeDirectories",
		"maxSessionTurns":                  "model.maxSessionTurns",
		"mcpServers":                       "mcpServers",
		"mcpServerCommand":                 "mcp.serverCommand",
		"memoryImportFormat":               "context.importFormat",
		"memoryDiscoveryMaxDirs":           "context.discoveryMaxDirs",
		"model":                            "model.name",
		"preferredEditor":                  "general.preferredEditor",
		"retryFetchErrors":                 "general.retryFetchErrors",
		"sandbox":                          "tools.sandbox",
		"selectedAuthType":                 "security.auth.selectedType",
		"enableInteractiveShell":           "tools.shell.enableInteractiveShell",
		"shellPager":                       "tools.shell.pager",
		"shellShowColor":                   "tools.shell.showColor",
		"shellInactivityTimeout":           "tools.shell.inactivityTimeout",
		"skipNextSpeakerCheck":             "model.skipNextSpeakerCheck",
		"summarizeToolOutput":              "model.summarizeToolOutput",
		"telemetry":                        "telemetry",
		"theme":                            "ui.theme",
		"toolDiscoveryCommand":             "tools.discoveryCommand",
		"toolCallCommand":                  "tools.callCommand",
		"usageStatisticsEnabled":           "privacy.usageStatisticsEnabled",
		"useExternalAuth":                  "security.auth.useExternal",
		"useRipgrep":                       "tools.useRipgrep",
		"vimMode":                          "general.vimMode",
	}
}}

// v1Order is v1Keys' keys sorted, so migration does the same thing on every
// run.
var v1Order = lazy.Value[[]string]{New: func() []string {
	keys := make([]string, 0, len(v1Keys.Get()))
	for k := range v1Keys.Get() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}}

// v2Containers are the top-level V2 groups that a V1 key may share a name
// with ("model" is a V1 string and a V2 object): an object value under such
// a name is already V2.
var v2Containers = lazy.Value[map[string]bool]{New: func() map[string]bool {
	m := map[string]bool{}
	for _, p := range v1Keys.Get() {
		m[strings.SplitN(p, ".", 2)[0]] = true
	}
	return m
}}

// needsV1Migration reports whether obj has a top-level key that V2 keeps
// somewhere else.
func needsV1Migration(obj map[string]any) bool {
	for k := range obj {
		target, ok := v1Keys.Get()[k]
		if !ok || target == k {
			continue
		}
		// A key that is also a V2 group ("model") does not make a file V1
		// on its own: {"model": "x"} is a V2 file with a wrong value,
		// which Gemini CLI 0.61 reports (see validateSettings). A file
		// with any other flat V1 key is migrated whole.
		if v2Containers.Get()[k] {
			continue
		}
		return true
	}
	return false
}

// migrateV1 moves flat keys to their nested paths. Keys it does not know, and
// V2 groups already present, are carried over, deep-merged with whatever the
// migration put under the same name (the V2 group wins on conflicts).
func migrateV1(flat map[string]any) map[string]any {
	out := map[string]any{}
	left := map[string]bool{}
	for k := range flat {
		left[k] = true
	}
	for _, old := range v1Order.Get() {
		v, ok := flat[old]
		if !ok {
			continue
		}
		if _, isObj := v.(map[string]any); isObj && v2Containers.Get()[old] {
			continue
		}
		if old == "chatCompression" {
			// V1 kept the threshold inside an object; V2 wants the number.
			if m, ok := v.(map[string]any); ok {
				if n, ok := m["contextPercentageThreshold"]; ok {
					v = n
				} else {
					delete(left, old)
					continue
				}
			}
		}
		setPath(out, strings.Split(v1Keys.Get()[old], "."), v)
		delete(left, old)
	}
	rest := make([]string, 0, len(left))
	for k := range left {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		nv := flat[k]
		if ev, ok := out[k].(map[string]any); ok {
			if nm, ok := nv.(map[string]any); ok {
				out[k] = mergeInto(mergeInto(map[string]any{}, ev, []string{k}), nm, []string{k})
				continue
			}
		}
		out[k] = nv
	}
	return out
}

// migrateDeprecated applies the renames Gemini CLI still performs on V2
// files: negative booleans turned positive, tools.approvalMode moved to
// general.defaultApprovalMode and experimental.plan to general.plan.enabled.
// A new key already present wins over the deprecated one.
func migrateDeprecated(obj map[string]any) {
	if g, ok := obj["general"].(map[string]any); ok {
		invertBool(g, "disableAutoUpdate", "enableAutoUpdate")
		invertBool(g, "disableUpdateNag", "enableAutoUpdateNotification")
	}
	if ui, ok := obj["ui"].(map[string]any); ok {
		if acc, ok := ui["accessibility"].(map[string]any); ok {
			invertBool(acc, "disableLoadingPhrases", "enableLoadingPhrases")
			if on, ok := acc["enableLoadingPhrases"].(bool); ok && !on {
				if _, set := ui["loadingPhrases"]; !set {
					ui["loadingPhrases"] = "off"
				}
			}
		}
	}
	if c, ok := obj["context"].(map[string]any); ok {
		if ff, ok := c["fileFiltering"].(map[string]any); ok {
			invertBool(ff, "disableFuzzySearch", "enableFuzzySearch")
		}
	}
	if t, ok := obj["tools"].(map[string]any); ok {
		if mode, ok := t["approvalMode"]; ok {
			g := ensureObject(obj, "general")
			if _, set := g["defaultApprovalMode"]; !set {
				g["defaultApprovalMode"] = mode
			}
			delete(t, "approvalMode")
		}
	}
	if x, ok := obj["experimental"].(map[string]any); ok {
		if plan, ok := x["plan"]; ok {
			p := ensureObject(ensureObject(obj, "general"), "plan")
			if _, set := p["enabled"]; !set {
				p["enabled"] = plan
			}
			delete(x, "plan")
		}
	}
}

// invertBool replaces the boolean m[old] by m[new] = !old unless m[new] is
// already a boolean.
func invertBool(m map[string]any, old, new string) {
	ov, ok := m[old].(bool)
	if !ok {
		return
	}
	if _, set := m[new].(bool); !set {
		m[new] = !ov
	}
	delete(m, old)
}

// ensureObject returns m[key] as an object, creating it (over any non-object
// value) when needed.
func ensureObject(m map[string]any, key string) map[string]any {
	if o, ok := m[key].(map[string]any); ok {
		return o
	}
	o := map[string]any{}
	m[key] = o
	return o
}

// setPath stores v at the nested path, creating objects on the way. Like
// Gemini CLI's setNestedProperty it gives up silently when a non-object
// value is in the way.
func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k]
		if !ok {
			n := map[string]any{}
			m[k] = n
			m = n
			continue
		}
		nm, ok := next.(map[string]any)
		if !ok {
			return
		}
		m = nm
	}
	m[path[len(path)-1]] = v
}
