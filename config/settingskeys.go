package config

import "github.com/castor-dev/castor/internal/lazy"

// This file is the one table of Gemini CLI's settings keys and what Castor
// does with each. The keys are those of Gemini CLI's settings schema
// (packages/cli/src/config/settingsSchema.ts, the newest snapshot read:
// 0.56 nightly of August 2026, which the 0.61 reference agrees with), plus
// the few settings Castor adds. ignored.go walks settings files against it;
// settingskeys_test.go checks that every key marked honoured is still read
// somewhere in the module.

// SettingStatus says what Castor does with one setting.
type SettingStatus int

// What Castor does with a setting.
const (
	// SettingHonoured settings change what Castor does, as in Gemini CLI.
	SettingHonoured SettingStatus = iota
	// SettingCosmetic settings are display options of Gemini CLI's
	// terminal UI that Castor's own TUI has no counterpart for.
	SettingCosmetic
	// SettingNotApplicable settings steer something Castor does not have
	// at all (auto-update, Node.js tuning).
	SettingNotApplicable
	// SettingUnsupported settings are Gemini CLI features Castor has not
	// implemented yet.
	SettingUnsupported
	// SettingUnknown keys are not in the table: typos, settings newer
	// than the table, or keys Gemini CLI stopped reading.
	SettingUnknown
	// settingInert keys hold nothing to act on: editor metadata and
	// bookkeeping Gemini CLI writes for itself. They are never reported.
	settingInert
)

// String names the status in a word or two.
func (s SettingStatus) String() string {
	switch s {
	case SettingHonoured:
		return "honoured"
	case SettingCosmetic:
		return "cosmetic"
	case SettingNotApplicable:
		return "not applicable"
	case SettingUnsupported:
		return "not supported"
	case SettingUnknown:
		return "unknown"
	}
	return "inert"
}

// settingKey is one row of the table. A key names either a leaf value or
// a whole object whose members the user names (mcpServers, hooks,
// ui.customThemes): only keys that are a prefix of another row are
// descended into.
type settingKey struct {
	key    string
	status SettingStatus
	// def is Gemini CLI's default as JSON ("" when it has none); a file
	// setting exactly the default changes nothing and is not reported.
	def string
	// asIf is, as JSON, the value Castor always behaves as ("" when
	// none): setting it asks for what Castor does anyway, so it is not
	// reported either (privacy.usageStatisticsEnabled: false).
	asIf string
	// note says why a key is not honoured (shown in the warning); for an
	// honoured key, it is the text of the Go code that reads it (the
	// quoted key when empty), which the table's test looks for.
	note string
}

const (
	honoured      = SettingHonoured
	cosmetic      = SettingCosmetic
	notApplicable = SettingNotApplicable
	unsupported   = SettingUnsupported
	inert         = settingInert
)

// Reasons shared by many rows.
const (
	noInk    = ""
	noRouter = "Castor's auto model router is its own"
)

// settingsTable is the table of settings.json keys.
var settingsTable = []settingKey{
	{"$schema", inert, "", "", "editor metadata"},
	{"mcpServers", honoured, "{}", "", ".MCPServers"},
	// providers is Castor's own: models of other services, by name.
	{"providers", honoured, "{}", "", ".Providers"},
	{"policyPaths", honoured, "[]", "", ""},
	{"adminPolicyPaths", honoured, "[]", "", ""},

	{"general.preferredEditor", honoured, "", "", ".General.PreferredEditor"},
	{"general.openEditorInNewWindow", unsupported, "false", "", ""},
	{"general.vimMode", honoured, "false", "", ""},
	{"general.defaultApprovalMode", honoured, `"default"`, "", ".General.DefaultApprovalMode"},
	{"general.devtools", notApplicable, "false", "", "a Node.js inspector"},
	{"general.enableAutoUpdate", notApplicable, "true", "false", "Castor updates only when asked: castor update"},
	{"general.enableAutoUpdateNotification", honoured, "true", "", ""},
	{"general.updateFeedUrl", honoured, "", "", ""},
	{"general.enableNotifications", unsupported, "false", "", ""},
	{"general.notificationMethod", unsupported, `"auto"`, "", ""},
	{"general.checkpointing.enabled", honoured, "false", "", ".General.Checkpointing"},
	{"general.plan.enabled", honoured, "true", "", ""},
	{"general.plan.directory", honoured, "", "", ""},
	{"general.plan.modelRouting", honoured, "true", "", ""},
	{"general.retryFetchErrors", unsupported, "true", "", ""},
	{"general.maxAttempts", honoured, "10", "", ".General.MaxAttempts"},
	{"general.debugKeystrokeLogging", notApplicable, "false", "", "a debugging aid of Gemini CLI's Ink UI"},
	{"general.sessionRetention.enabled", honoured, "true", "", ""},
	{"general.sessionRetention.maxAge", honoured, `"30d"`, "", ""},
	{"general.sessionRetention.maxCount", honoured, "", "", ""},
	{"general.sessionRetention.minRetention", honoured, `"1d"`, "", ""},
	{"general.topicUpdateNarration", unsupported, "true", "", ""},
	{"general.logRagSnippets", notApplicable, "false", "", "Google-internal logging"},

	{"output.format", honoured, `"text"`, "", ""},

	{"ui.debugRainbow", cosmetic, "false", "", noInk},
	{"ui.theme", honoured, "", "", ""},
	{"ui.autoThemeSwitching", cosmetic, "true", "", noInk},
	{"ui.terminalBackgroundPollingInterval", cosmetic, "60", "", noInk},
	{"ui.customThemes", honoured, "{}", "", ""},
	{"ui.hideWindowTitle", cosmetic, "false", "", noInk},
	{"ui.inlineThinkingMode", cosmetic, `"off"`, "", noInk},
	{"ui.showStatusInTitle", cosmetic, "false", "", noInk},
	{"ui.dynamicWindowTitle", cosmetic, "true", "", noInk},
	{"ui.showHomeDirectoryWarning", cosmetic, "true", "", noInk},
	{"ui.showCompatibilityWarnings", cosmetic, "true", "", noInk},
	{"ui.hideTips", cosmetic, "false", "true", noInk}, // Castor shows no tips
	{"ui.escapePastedAtSymbols", cosmetic, "false", "", noInk},
	{"ui.showShortcutsHint", cosmetic, "true", "", noInk},
	{"ui.compactToolOutput", cosmetic, "true", "", noInk},
	{"ui.hideBanner", cosmetic, "false", "", noInk},
	{"ui.hideContextSummary", cosmetic, "false", "", noInk},
	{"ui.footer.items", cosmetic, "", "", noInk},
	{"ui.footer.showLabels", cosmetic, "true", "", noInk},
	{"ui.footer.hideCWD", cosmetic, "false", "", noInk},
	{"ui.footer.hideSandboxStatus", cosmetic, "false", "", noInk},
	{"ui.footer.hideModelInfo", cosmetic, "false", "", noInk},
	{"ui.footer.hideContextPercentage", cosmetic, "true", "", noInk},
	{"ui.hideFooter", cosmetic, "false", "", noInk},
	{"ui.collapseDrawerDuringApproval", cosmetic, "true", "", noInk},
	{"ui.showMemoryUsage", cosmetic, "false", "", noInk},
	{"ui.showLineNumbers", cosmetic, "true", "", noInk},
	{"ui.showCitations", cosmetic, "false", "", noInk},
	{"ui.showModelInfoInChat", cosmetic, "false", "", noInk},
	{"ui.showUserIdentity", cosmetic, "true", "", noInk},
	{"ui.useAlternateBuffer", cosmetic, "false", "", "Castor's TUI stays inline"},
	{"ui.renderProcess", cosmetic, "true", "", noInk},
	{"ui.terminalBuffer", cosmetic, "false", "", noInk},
	{"ui.useBackgroundColor", cosmetic, "true", "", noInk},
	{"ui.incrementalRendering", cosmetic, "true", "", noInk},
	{"ui.showSpinner", cosmetic, "true", "", noInk},
	{"ui.loadingPhrases", cosmetic, `"off"`, "", noInk},
	{"ui.errorVerbosity", cosmetic, `"low"`, "", noInk},
	{"ui.customWittyPhrases", cosmetic, "[]", "", noInk},
	{"ui.accessibility.enableLoadingPhrases", cosmetic, "true", "", noInk},
	{"ui.accessibility.screenReader", honoured, "false", "", ""},

	{"ide.enabled", honoured, "false", "", ".IDE.Enabled"},
	{"ide.hasSeenNudge", inert, "false", "", "Gemini CLI's own bookkeeping"},

	{"privacy.usageStatisticsEnabled", notApplicable, "true", "false", "Castor collects no usage statistics"},

	{"telemetry.enabled", honoured, "false", "", ""},
	{"telemetry.target", honoured, "", "", ""},
	{"telemetry.otlpEndpoint", honoured, "", "", ""},
	{"telemetry.otlpProtocol", honoured, "", "", ""},
	{"telemetry.traces", honoured, "", "", ""},
	{"telemetry.logPrompts", honoured, "", "", ""},
	{"telemetry.outfile", honoured, "", "", ""},
	{"telemetry.useCollector", honoured, "", "", ""},
	{"telemetry.useCliAuth", unsupported, "false", "", ""},

	{"billing.overageStrategy", unsupported, `"ask"`, "", ""},
	{"billing.vertexAi.requestType", unsupported, "", "", ""},
	{"billing.vertexAi.sharedRequestType", unsupported, "", "", ""},

	{"model.name", honoured, "", "", ".Model.Name"},
	{"model.maxSessionTurns", honoured, "-1", "", ".Model.MaxSessionTurns"},
	{"model.summarizeToolOutput", unsupported, "", "", ""},
	{"model.compressionThreshold", honoured, "0.5", "", ".Model.CompressionThreshold"},
	{"model.disableLoopDetection", honoured, "false", "", ".Model.DisableLoopDetection"},
	// Castor never asks the model who speaks next, which is what true
	// (the default) asks for.
	{"model.skipNextSpeakerCheck", unsupported, "true", "", ""},
	// Castor's own: spending caps in US dollars (docs/providers.md).
	{"model.maxBudgetUsd", honoured, "0", "", ".Model.MaxBudgetUSD"},
	{"model.dailyBudgetUsd", honoured, "0", "", ".Model.DailyBudgetUSD"},

	{"modelConfigs.aliases", unsupported, "", "", noRouter},
	// Whole: its reader (internal/setup/loopcheck.go) honours the loop
	// check's two model configs and warns about the others.
	{"modelConfigs.customAliases", honoured, "{}", "", ""},
	{"modelConfigs.customOverrides", unsupported, "[]", "", ""},
	{"modelConfigs.overrides", unsupported, "[]", "", ""},
	{"modelConfigs.modelDefinitions", unsupported, "", "", noRouter},
	{"modelConfigs.modelIdResolutions", unsupported, "", "", noRouter},
	{"modelConfigs.classifierIdResolutions", unsupported, "", "", noRouter},
	{"modelConfigs.modelChains", unsupported, "", "", noRouter},

	{"agents.overrides", honoured, "{}", "", ""},
	{"agents.browser.sessionMode", unsupported, `"persistent"`, "", "Castor has no browser agent"},
	{"agents.browser.headless", unsupported, "false", "", "Castor has no browser agent"},
	{"agents.browser.profilePath", unsupported, "", "", "Castor has no browser agent"},
	{"agents.browser.visualModel", unsupported, "", "", "Castor has no browser agent"},
	{"agents.browser.allowedDomains", unsupported, `["github.com","*.google.com","localhost"]`, "", "Castor has no browser agent"},
	{"agents.browser.disableUserInput", unsupported, "true", "", "Castor has no browser agent"},
	{"agents.browser.maxActionsPerTask", unsupported, "100", "", "Castor has no browser agent"},
	{"agents.browser.confirmSensitiveActions", unsupported, "false", "", "Castor has no browser agent"},
	{"agents.browser.blockFileUploads", unsupported, "false", "", "Castor has no browser agent"},

	{"context.fileName", honoured, "", "", ".Context.FileNames"},
	{"context.importFormat", honoured, "", "", ".Context.ImportFormat"},
	{"context.includeDirectoryTree", honoured, "true", "", ".Context.IncludeDirectoryTree"},
	{"context.discoveryMaxDirs", honoured, "200", "", ".Context.DiscoveryMaxDirs"},
	{"context.memoryBoundaryMarkers", honoured, `[".git"]`, "", ".Context.MemoryBoundaryMarkers"},
	{"context.includeDirectories", honoured, "[]", "", ".Context.IncludeDirectories"},
	{"context.loadMemoryFromIncludeDirectories", honoured, "false", "", ".Context.LoadMemoryFromIncludeDirectories"},
	{"context.fileFiltering.respectGitIgnore", honoured, "true", "", ".FileFiltering.RespectGitIgnore"},
	{"context.fileFiltering.respectGeminiIgnore", honoured, "true", "", ".FileFiltering.RespectGeminiIgnore"},
	{"context.fileFiltering.enableFileWatcher", unsupported, "false", "", ""},
	{"context.fileFiltering.enableRecursiveFileSearch", honoured, "true", "", ""},
	{"context.fileFiltering.enableFuzzySearch", cosmetic, "true", "", "Castor's @ completion has no fuzzy matching"},
	{"context.fileFiltering.customIgnoreFilePaths", honoured, "[]", "", ".FileFiltering.CustomIgnoreFilePaths"},

	{"tools.sandbox", honoured, "", "", ""},
	{"tools.sandboxAllowedPaths", honoured, "[]", "", ""},
	{"tools.sandboxNetworkAccess", honoured, "false", "", ""},
	// Castor's own: Gemini CLI's sandboxes leave .git writable.
	{"tools.sandboxAllowGitWrites", honoured, "false", "", ""},
	{"tools.shell.enableInteractiveShell", honoured, "true", "", ""},
	{"tools.shell.backgroundCompletionBehavior", unsupported, `"silent"`, "", ""},
	{"tools.shell.pager", unsupported, `"cat"`, "", ""},
	{"tools.shell.showColor", unsupported, "true", "", ""},
	{"tools.shell.inactivityTimeout", honoured, "300", "", ""},
	{"tools.shell.enableShellOutputEfficiency", unsupported, "true", "", ""},
	{"tools.core", honoured, "", "", ".Tools.Core"},
	{"tools.allowed", honoured, "", "", ".Tools.Allowed"},
	{"tools.confirmationRequired", unsupported, "", "", ""},
	{"tools.exclude", honoured, "", "", ".Tools.Exclude"},
	{"tools.discoveryCommand", honoured, "", "", ""},
	{"tools.callCommand", honoured, "", "", ""},
	{"tools.useRipgrep", honoured, "true", "", ".Tools.UseRipgrep"},
	{"tools.truncateToolOutputThreshold", honoured, "40000", "", ".Tools.TruncateToolOutputThreshold"},
	// Castor never asks a model to repair a failed edit, which is what
	// true (the default) asks for.
	{"tools.disableLLMCorrection", unsupported, "true", "", ""},
	// Castor's own: Gemini CLI fixes the search cap at 100 matches and
	// never lets web_fetch reach private addresses.
	{"tools.grepMaxMatches", honoured, "", "", ""},
	{"tools.webFetch.allowPrivateAddresses", honoured, "false", "", ""},
	// Castor's own: the A2A server's task store, and the PostgreSQL
	// store's pool and leases, for replicas behind a load balancer.
	{"a2a.store", honoured, "", "", ""},
	{"a2a.postgres.maxConns", honoured, "", "", ""},
	{"a2a.postgres.leaseSeconds", honoured, "30", "", ""},
	// Castor's own: language servers (internal/lsp, docs/lsp.md).
	{"lsp.enabled", honoured, "true", "", ""},
	{"lsp.servers", honoured, "{}", "", ""},
	{"lsp.diagnosticsTimeout", honoured, "3000", "", ""},

	{"mcp.serverCommand", honoured, "", "", ".MCP.ServerCommand"},
	{"mcp.allowed", honoured, "", "", ".MCP.Allowed"},
	{"mcp.excluded", honoured, "", "", ".MCP.Excluded"},
	{"mcp.startTimeout", honoured, "", "", ""},

	{"useWriteTodos", honoured, "true", "", ""},

	{"security.toolSandboxing", honoured, "false", "", ""},
	{"security.disableYoloMode", honoured, "false", "", ""},
	{"security.disableAlwaysAllow", honoured, "false", "", ""},
	{"security.enablePermanentToolApproval", honoured, "false", "", ""},
	{"security.ignorePolicyErrors", honoured, "", "", ""},
	{"security.autoAddToPolicyByDefault", unsupported, "false", "", ""},
	{"security.blockGitExtensions", honoured, "false", "", ""},
	{"security.allowedExtensions", honoured, "[]", "", ""},
	{"security.folderTrust.enabled", honoured, "true", "", "FolderTrustEnabled"},
	{"security.environmentVariableRedaction.allowed", honoured, "[]", "", `redaction(st, "allowed")`},
	{"security.environmentVariableRedaction.blocked", honoured, "[]", "", `redaction(st, "blocked")`},
	{"security.environmentVariableRedaction.enabled", honoured, "false", "", ""},
	{"security.auth.selectedType", honoured, "", "", ".Auth.SelectedType"},
	{"security.auth.enforcedType", honoured, "", "", ".Auth.EnforcedType"},
	{"security.auth.useExternal", unsupported, "", "false", ""},
	// Castor's own: an OAuth client of the user's instead of Castor's.
	{"security.auth.oauthClient.clientId", honoured, "", "", ""},
	{"security.auth.oauthClient.clientSecret", honoured, "", "", ""},
	{"security.enableConseca", unsupported, "false", "", ""},

	{"advanced.autoConfigureMemory", notApplicable, "true", "", "a Node.js heap size"},
	{"advanced.dnsResolutionOrder", notApplicable, "", "", "a Node.js resolver option"},
	{"advanced.excludedEnvVars", honoured, `["DEBUG","DEBUG_MODE"]`, "", ""},
	{"advanced.ignoreLocalEnv", honoured, "false", "", ""},
	{"advanced.bugCommand", unsupported, "", "", "Castor has no /bug"},

	{"experimental.gemma", unsupported, "true", "", ""},
	{"experimental.voiceMode", unsupported, "false", "", ""},
	{"experimental.voice.activationMode", unsupported, `"push-to-talk"`, "", ""},
	{"experimental.voice.backend", unsupported, `"gemini-live"`, "", ""},
	{"experimental.voice.whisperModel", unsupported, `"ggml-base.en.bin"`, "", ""},
	{"experimental.voice.stopGracePeriodMs", unsupported, "4000", "", ""},
	{"experimental.adk.agentSessionNoninteractiveEnabled", notApplicable, "false", "", "Gemini CLI's ADK migration"},
	{"experimental.adk.agentSessionInteractiveEnabled", notApplicable, "false", "", "Gemini CLI's ADK migration"},
	{"experimental.adk.agentSessionSubagentEnabled", notApplicable, "false", "", "Gemini CLI's ADK migration"},
	{"experimental.enableAgents", honoured, "true", "", ""},
	// Castor's own: false scans subfolders' GEMINI.md at start instead of
	// when a tool first touches them.
	{"experimental.jitContext", honoured, "", "", ""},
	{"experimental.worktrees", unsupported, "false", "", ""},
	{"experimental.extensionManagement", unsupported, "true", "", ""},
	{"experimental.extensionConfig", unsupported, "true", "", ""},
	{"experimental.extensionRegistry", unsupported, "false", "", ""},
	{"experimental.extensionRegistryURI", unsupported, `"https://geminicli.com/extensions.json"`, "", ""},
	{"experimental.extensionReloading", unsupported, "false", "", ""},
	{"experimental.useOSC52Paste", cosmetic, "false", "", noInk},
	{"experimental.useOSC52Copy", cosmetic, "false", "true", "Castor's /copy always uses OSC 52"},
	{"experimental.taskTracker", unsupported, "false", "", ""},
	{"experimental.modelSteering", unsupported, "false", "", ""},
	{"experimental.directWebFetch", unsupported, "false", "", ""},
	{"experimental.dynamicModelConfiguration", unsupported, "false", "", ""},
	{"experimental.gemmaModelRouter.enabled", unsupported, "false", "", ""},
	{"experimental.gemmaModelRouter.autoStartServer", unsupported, "false", "", ""},
	{"experimental.gemmaModelRouter.binaryPath", unsupported, `""`, "", ""},
	{"experimental.gemmaModelRouter.classifier.host", unsupported, `"http://localhost:9379"`, "", ""},
	{"experimental.gemmaModelRouter.classifier.model", unsupported, `"gemma3-1b-gpu-custom"`, "", ""},
	{"experimental.stressTestProfile", notApplicable, "false", "", "a Gemini CLI test profile"},
	{"experimental.autoMemory", unsupported, "false", "", ""},
	{"experimental.generalistProfile", unsupported, "false", "", ""},
	{"experimental.powerUserProfile", unsupported, "false", "", ""},
	{"experimental.contextManagement", unsupported, "false", "", ""},
	{"experimental.topicUpdateNarration", unsupported, "false", "", ""},

	{"extensions.disabled", notApplicable, "[]", "", "Gemini CLI no longer reads it (its migration to extension-enablement.json was removed); use castor extensions disable"},
	{"extensions.workspacesWithMigrationNudge", inert, "[]", "", "Gemini CLI's own bookkeeping"},

	{"skills.enabled", honoured, "true", "", ""},
	{"skills.disabled", honoured, "[]", "", ""},

	{"hooksConfig.enabled", honoured, "true", "", ""},
	{"hooksConfig.disabled", honoured, "[]", "", ""},
	{"hooksConfig.notifications", cosmetic, "true", "", noInk},
	// hooks is read layer by layer by internal/hooks, which names an
	// unknown event itself.
	{"hooks", honoured, "{}", "", `lf.Raw["hooks"]`},

	{"contextManagement.historyWindow.maxTokens", unsupported, "150000", "", ""},
	{"contextManagement.historyWindow.retainedTokens", unsupported, "40000", "", ""},
	{"contextManagement.messageLimits.normalMaxTokens", unsupported, "2500", "", ""},
	{"contextManagement.messageLimits.retainedMaxTokens", unsupported, "12000", "", ""},
	{"contextManagement.messageLimits.normalizationHeadRatio", unsupported, "0.25", "", ""},
	{"contextManagement.tools.distillation.maxOutputTokens", unsupported, "10000", "", ""},
	{"contextManagement.tools.distillation.summarizationThresholdTokens", unsupported, "20000", "", ""},
	{"contextManagement.tools.outputMasking.protectionThresholdTokens", unsupported, "50000", "", ""},
	{"contextManagement.tools.outputMasking.minPrunableThresholdTokens", unsupported, "30000", "", ""},
	{"contextManagement.tools.outputMasking.protectLatestTurn", unsupported, "true", "", ""},

	// Gemini CLI takes admin settings from its admin server only and
	// drops them from files, and so does Castor.
	// Flat V1 keys whose nested homes later Gemini CLI versions dropped
	// (the V1 migration still puts them there).
	{"tools.autoAccept", notApplicable, "false", "", "Gemini CLI no longer has it; general.defaultApprovalMode replaces it"},
	{"tools.enableHooks", notApplicable, "", "", "Gemini CLI no longer has it; hooksConfig.enabled replaces it"},
	{"experimental.skills", notApplicable, "", "", "Gemini CLI no longer has it; skills.enabled replaces it"},
	{"general.enablePromptCompletion", notApplicable, "false", "", "Gemini CLI no longer has it"},
	{"security.folderTrust.featureEnabled", notApplicable, "", "", "Gemini CLI no longer has it; security.folderTrust.enabled replaces it"},

	{"admin", notApplicable, "", "", "admin settings come only from an administrator's server, never from files"},
}

// extensionTable is the table of gemini-extension.json keys.
var extensionTable = []settingKey{
	{"name", honoured, "", "", ""},
	{"version", honoured, "", "", ""},
	{"description", honoured, "", "", ""},
	{"mcpServers", honoured, "", "", ""},
	{"contextFileName", honoured, "", "", ""},
	{"excludeTools", honoured, "", "", ""},
	{"settings", honoured, "", "", ""},
	{"themes", cosmetic, "[]", "", noInk},
	{"plan.directory", honoured, "", "", ""},
	{"migratedTo", notApplicable, "", "", "castor extensions update does not follow it to the new source"},
}

// settingDescriptions says in a line what each key of settingsTable
// asks for, for the generated settings reference
// (docs/configuration/settings.md, `go generate ./config`). It lives
// beside the table, where settingskeys_test.go does not look for readers
// of a key, so a description never counts as code reading it.
var settingDescriptions = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"$schema":          "The JSON schema an editor validates the file against.",
		"mcpServers":       "MCP servers to start, by name: `command`/`args`/`env`/`cwd`, `url`, `httpUrl`, `headers`, `timeout`, `trust`, `includeTools`, `excludeTools`, `oauth` (see docs/mcp.md).",
		"providers":        "Model providers besides Gemini, by name: `type` (`openai` or `anthropic`), `baseUrl`, `apiKeyEnv`, `headers`, `models` (name → `contextWindow`, `inputPricePerMTok`, `cachedInputPricePerMTok`, `outputPricePerMTok`; for `anthropic`, `maxTokens`, `thinkingBudget` and `cacheWritePricePerMTok`, default 1.25× input); a model is then named `provider/model` (see docs/providers.md).",
		"policyPaths":      "Policy files or folders to read instead of `~/.gemini/policies` (user tier).",
		"adminPolicyPaths": "Policy files or folders of the admin tier, ignored when `/etc/gemini-cli/policies` has files.",

		"general.preferredEditor":               "The editor \"Modify in $EDITOR\" opens (`vscode`, `zed`, `vim`, `neovim`, `emacs`, …); unknown names exit 52.",
		"general.openEditorInNewWindow":         "Open the preferred editor in a new window.",
		"general.vimMode":                       "Vim key bindings in the prompt.",
		"general.defaultApprovalMode":           "The approval mode a session starts in: `default`, `auto_edit` or `plan`; `yolo` is ignored with a warning, as in Gemini CLI (YOLO comes only from `--yolo`, `--approval-mode=yolo` or Ctrl+Y).",
		"general.devtools":                      "Start Node.js developer tools.",
		"general.enableAutoUpdate":              "Update the program in the background.",
		"general.enableAutoUpdateNotification":  "Announce a newer release at start-up (release builds; `disableUpdateNag: true` is read as `false` here); `castor update` installs it.",
		"general.updateFeedUrl":                 "The release feed `castor update` and the start-up notice read (GitHub's latest-release JSON; Castor's releases by default). See docs/install.md.",
		"general.enableNotifications":           "Desktop notifications when the session needs attention.",
		"general.notificationMethod":            "How notifications are sent.",
		"general.checkpointing.enabled":         "Take a checkpoint before every edit, for `/restore`. Snapshots (a shadow git repository under `~/.gemini/history`) leave out what `.gitignore` ignores and, whatever it says, `.env`, `.env.*`, `*.pem`, `*.key`, `id_rsa*`, `id_ed25519*`, `.netrc`, `*credentials*.json` and `service-account*.json`.",
		"general.plan.enabled":                  "Plan mode: the `enter_plan_mode` and `exit_plan_mode` tools, `/plan` and the `plan` approval mode's plan approval.",
		"general.plan.directory":                "Where plan mode writes its plans, relative to the project root and inside it; by default the session's folder under `~/.gemini/tmp/<project>/`.",
		"general.plan.modelRouting":             "With the `auto` model, plan with the pro model in plan mode and implement an approved plan with the flash model.",
		"general.retryFetchErrors":              "Retry model calls that fail with a network error.",
		"general.maxAttempts":                   "How many times a failed model call is tried in all.",
		"general.debugKeystrokeLogging":         "Log every keystroke for debugging.",
		"general.sessionRetention.enabled":      "Delete old recorded sessions at start-up (Castor only when your settings name it).",
		"general.sessionRetention.maxAge":       "Delete sessions not updated for this long (`h`, `d`, `w`, `m`).",
		"general.sessionRetention.maxCount":     "Keep only this many of the most recently updated sessions.",
		"general.sessionRetention.minRetention": "Never delete sessions updated within this long; a shorter `maxAge` disables the clean-up.",
		"general.topicUpdateNarration":          "Narrate topic changes.",
		"general.logRagSnippets":                "Log retrieval snippets.",

		"output.format": "The output format of a headless run without `-o`: `text` or `json`.",

		"ui.debugRainbow":                       "Colour the UI's regions for debugging.",
		"ui.theme":                              "The colour theme.",
		"ui.autoThemeSwitching":                 "Switch theme with the terminal's background.",
		"ui.terminalBackgroundPollingInterval":  "How often the terminal's background is polled, in seconds.",
		"ui.customThemes":                       "Themes of your own, by name.",
		"ui.hideWindowTitle":                    "Leave the terminal's title alone.",
		"ui.inlineThinkingMode":                 "Show the model's thoughts inline.",
		"ui.showStatusInTitle":                  "Show the session's status in the terminal's title.",
		"ui.dynamicWindowTitle":                 "Update the terminal's title as the session goes.",
		"ui.showHomeDirectoryWarning":           "Warn when started in the home folder.",
		"ui.showCompatibilityWarnings":          "Warn about terminal compatibility.",
		"ui.hideTips":                           "Hide the start-up tips.",
		"ui.escapePastedAtSymbols":              "Escape `@` in pasted text.",
		"ui.showShortcutsHint":                  "Show the keyboard shortcuts hint.",
		"ui.compactToolOutput":                  "Show tool output compactly.",
		"ui.hideBanner":                         "Hide the start-up banner.",
		"ui.hideContextSummary":                 "Hide the summary of loaded context files.",
		"ui.footer.items":                       "Which items the footer shows.",
		"ui.footer.showLabels":                  "Label the footer's items.",
		"ui.footer.hideCWD":                     "Hide the working folder in the footer.",
		"ui.footer.hideSandboxStatus":           "Hide the sandbox status in the footer.",
		"ui.footer.hideModelInfo":               "Hide the model in the footer.",
		"ui.footer.hideContextPercentage":       "Hide the context left in the footer.",
		"ui.hideFooter":                         "Hide the footer.",
		"ui.collapseDrawerDuringApproval":       "Collapse the drawer while a call waits for approval.",
		"ui.showMemoryUsage":                    "Show the process's memory use.",
		"ui.showLineNumbers":                    "Number the lines of code blocks.",
		"ui.showCitations":                      "Show citations of the model's sources.",
		"ui.showModelInfoInChat":                "Name the model in the chat.",
		"ui.showUserIdentity":                   "Show the signed-in account.",
		"ui.useAlternateBuffer":                 "Draw on the terminal's alternate screen.",
		"ui.renderProcess":                      "Render in a separate process.",
		"ui.terminalBuffer":                     "Keep a terminal buffer of its own.",
		"ui.useBackgroundColor":                 "Paint a background colour.",
		"ui.incrementalRendering":               "Redraw only what changed.",
		"ui.showSpinner":                        "Show the spinner while the model works.",
		"ui.loadingPhrases":                     "Phrases shown while the model works.",
		"ui.errorVerbosity":                     "How much of an error is shown.",
		"ui.customWittyPhrases":                 "Your own loading phrases.",
		"ui.accessibility.enableLoadingPhrases": "Show loading phrases.",
		"ui.accessibility.screenReader":         "Plain, linear output for screen readers.",

		"ide.enabled":      "IDE mode: connect to the IDE companion for open files, selection and diffs (as `--ide`; `/ide enable` writes it).",
		"ide.hasSeenNudge": "Whether Gemini CLI has suggested IDE mode.",

		"privacy.usageStatisticsEnabled": "Send usage statistics.",

		"telemetry.enabled":      "Send OpenTelemetry traces, metrics and logs (`--telemetry`, `GEMINI_TELEMETRY_ENABLED`; see docs/telemetry.md).",
		"telemetry.target":       "`local` or `gcp`; Castor has no direct Google Cloud exporter and sends OTLP to the endpoint either way (`--telemetry-target`).",
		"telemetry.otlpEndpoint": "The OTLP endpoint (default `http://localhost:4317`; `--telemetry-otlp-endpoint`, `OTEL_EXPORTER_OTLP_ENDPOINT`).",
		"telemetry.otlpProtocol": "The OTLP protocol: `grpc` (default) or `http` (`--telemetry-otlp-protocol`).",
		"telemetry.traces":       "Add the large span attributes: system instructions, tool definitions, and with `logPrompts` the messages.",
		"telemetry.logPrompts":   "Include prompts, answers and tool arguments in telemetry (default false, unlike Gemini CLI; `--telemetry-log-prompts`).",
		"telemetry.outfile":      "Write telemetry to this file as JSON lines instead of OTLP (`--telemetry-outfile`).",
		"telemetry.useCollector": "The endpoint is a collector that forwards to Google Cloud: silences `target: gcp`'s notice.",
		"telemetry.useCliAuth":   "Sign telemetry with the CLI's Google credentials (not supported: the endpoint's own authentication applies, `OTEL_EXPORTER_OTLP_HEADERS`).",

		"billing.overageStrategy":            "What to do when a plan's quota is used up.",
		"billing.vertexAi.requestType":       "The Vertex AI request type for billing.",
		"billing.vertexAi.sharedRequestType": "The Vertex AI shared request type for billing.",

		"model.name":                 "The model when neither `-m` nor `GEMINI_MODEL` names one (default `auto`; aliases `pro`, `flash`, `flash-lite`).",
		"model.maxSessionTurns":      "Stop after this many turns in a session (exit 53); -1: no limit.",
		"model.summarizeToolOutput":  "Summarize long tool output with the model.",
		"model.compressionThreshold": "Compress the conversation when it passes this share of the model's context.",
		"model.disableLoopDetection": "Turn loop detection off.",
		"model.skipNextSpeakerCheck": "Skip asking the model who speaks next.",
		"model.maxBudgetUsd":         "End a turn before a model call that would take the session's cost past this many US dollars (exit 56 in headless runs); `--max-budget-usd` wins; 0: no limit. Castor's own.",
		"model.dailyBudgetUsd":       "End a turn before a model call that would take today's cost across the project's sessions past this many US dollars (exit 56 in headless runs); 0: no limit. Castor's own (see docs/providers.md).",

		"modelConfigs.aliases":                 "Model aliases.",
		"modelConfigs.customAliases":           "Model configs of your own by name. Castor reads `loop-detection` and `loop-detection-double-check`, the models of the loop check (`modelConfig.model` and `modelConfig.generateContentConfig`, merged over the default), and warns about the others.",
		"modelConfigs.customOverrides":         "Per-model generation settings of your own.",
		"modelConfigs.overrides":               "Per-model generation settings.",
		"modelConfigs.modelDefinitions":        "The models the router knows.",
		"modelConfigs.modelIdResolutions":      "How model names resolve.",
		"modelConfigs.classifierIdResolutions": "How the router's classifier names resolve.",
		"modelConfigs.modelChains":             "Fallback chains of models.",

		"agents.overrides":                       "Per-subagent changes by name: `enabled`, `tools`, `modelConfig`, `runConfig` (see docs/subagents.md).",
		"agents.browser.sessionMode":             "The browser agent's session mode.",
		"agents.browser.headless":                "Run the browser agent headless.",
		"agents.browser.profilePath":             "The browser agent's profile folder.",
		"agents.browser.visualModel":             "The browser agent's vision model.",
		"agents.browser.allowedDomains":          "Domains the browser agent may visit.",
		"agents.browser.disableUserInput":        "Keep the user out of the agent's browser.",
		"agents.browser.maxActionsPerTask":       "The browser agent's action limit per task.",
		"agents.browser.confirmSensitiveActions": "Confirm the browser agent's sensitive actions.",
		"agents.browser.blockFileUploads":        "Forbid the browser agent file uploads.",

		"context.fileName":                                "The name (or names) of context files, instead of `GEMINI.md`.",
		"context.importFormat":                            "How `@file.md` imports of context files are put together.",
		"context.includeDirectoryTree":                    "Send the workspace's folder tree with the environment context.",
		"context.discoveryMaxDirs":                        "How many folders are scanned for context files.",
		"context.memoryBoundaryMarkers":                   "Files that mark the top of a project when context files are looked for upward.",
		"context.includeDirectories":                      "More workspace folders (as `--include-directories`).",
		"context.loadMemoryFromIncludeDirectories":        "Read context files from the included folders too.",
		"context.fileFiltering.respectGitIgnore":          "Leave out what `.gitignore` ignores (`@path`, searches, listings).",
		"context.fileFiltering.respectGeminiIgnore":       "Leave out what `.geminiignore` ignores.",
		"context.fileFiltering.enableFileWatcher":         "Watch the workspace for changes.",
		"context.fileFiltering.enableRecursiveFileSearch": "Search the workspace for an `@name` that is not a path.",
		"context.fileFiltering.enableFuzzySearch":         "Fuzzy matching in `@` completion.",
		"context.fileFiltering.customIgnoreFilePaths":     "More ignore files, read like `.geminiignore`.",

		"tools.sandbox":                            "Run tools in a sandbox (Docker, Podman, Seatbelt).",
		"tools.sandboxAllowedPaths":                "Paths the sandbox may reach.",
		"tools.sandboxNetworkAccess":               "Let the sandbox reach the network.",
		"tools.sandboxAllowGitWrites":              "Castor's own: let sandboxed commands write the workspace's `.git` (`git commit`); it is read-only otherwise.",
		"tools.shell.enableInteractiveShell":       "Run shell commands in a pseudo-terminal the user can type into.",
		"tools.shell.backgroundCompletionBehavior": "What happens when a background shell command ends.",
		"tools.shell.pager":                        "The pager shell commands see.",
		"tools.shell.showColor":                    "Keep colours in shell output.",
		"tools.shell.inactivityTimeout":            "Seconds a shell command may run without output before it is stopped; 0 or less: never.",
		"tools.shell.enableShellOutputEfficiency":  "Shorten shell output for the model.",
		"tools.core":                               "Only these built-in tools are offered.",
		"tools.allowed":                            "Tools (and shell commands, `run_shell_command(git status)`) that run without asking.",
		"tools.confirmationRequired":               "Tools that always ask.",
		"tools.exclude":                            "Tools never offered to the model (`mcp_<server>_<tool>`, `mcp_<server>_*` too).",
		"tools.discoveryCommand":                   "A command printing the project's own tool declarations (see docs/tools.md).",
		"tools.callCommand":                        "The command that runs a call of a discovered tool.",
		"tools.useRipgrep":                         "Search with ripgrep when it is installed.",
		"tools.truncateToolOutputThreshold":        "Shell output and one-text MCP results longer than this many characters are cut.",
		"tools.disableLLMCorrection":               "Do not ask the model to repair a failed edit.",
		"lsp.enabled":                              "Castor's own: false runs no language server (no diagnostics after edits, no lsp_ tools).",
		"lsp.servers":                              "Castor's own: language servers by name: `command`, `args`, `extensions`, `rootMarkers`, `initializationOptions`, `env`, `disabled`; a default's name (gopls, typescript, pyright, rust-analyzer, clangd) changes it (see docs/lsp.md).",
		"lsp.diagnosticsTimeout":                   "Castor's own: milliseconds an edit waits for the language server's diagnostics of the file it wrote.",
		"tools.grepMaxMatches":                     "Castor's own: the default cap on search matches (Gemini CLI fixes it at 100).",
		"tools.webFetch.allowPrivateAddresses":     "Castor's own: let `web_fetch` reach loopback and private addresses.",
		"a2a.store":                                "Castor's own: the task store of `castor a2a-server` when `--store` is not given: `postgres://…` for replicas sharing one database, `file:///dir`, `gs://bucket`, `s3://bucket` (see docs/a2a-replicas.md).",
		"a2a.postgres.maxConns":                    "Castor's own: the most connections one A2A server opens to its PostgreSQL store (default: the larger of 4 and the CPUs).",
		"a2a.postgres.leaseSeconds":                "Castor's own: how long a task's lease outlives the A2A replica running its turn; a replica that dies leaves its tasks running for that long before another continues them.",

		"mcp.serverCommand": "A command that starts an MCP server for every session.",
		"mcp.allowed":       "Start only these MCP servers.",
		"mcp.excluded":      "Never start these MCP servers.",
		"mcp.startTimeout":  "Castor only: how long (milliseconds) a session waits for an MCP server without its own timeout to connect; the interactive terminal holds prompts meanwhile (default 600000, 10 minutes, as Gemini CLI).",

		"useWriteTodos": "Offer the model `write_todos`.",

		"security.toolSandboxing":                       "Sandbox tools.",
		"security.disableYoloMode":                      "Forbid YOLO mode (`-y` exits 52).",
		"security.disableAlwaysAllow":                   "Offer no \"allow for the session\" or \"always allow\" choices.",
		"security.ignorePolicyErrors":                   "Castor's own: start even when a policy file has a mistake, with the rules that could be read and a warning (Gemini CLI's way); by default such a session does not start.",
		"security.enablePermanentToolApproval":          "Offer \"Allow always and save\", which writes `~/.gemini/policies/auto-saved.toml`.",
		"security.autoAddToPolicyByDefault":             "Save approvals as policy rules by default.",
		"security.blockGitExtensions":                   "Refuse extensions installed from git.",
		"security.allowedExtensions":                    "Regular expressions an extension's source must match to load.",
		"security.folderTrust.enabled":                  "Folder trust: workspace settings, hooks, commands and tools only in trusted folders (see docs/configuration/trust.md).",
		"security.environmentVariableRedaction.allowed": "Variables always passed to shell commands and hooks.",
		"security.environmentVariableRedaction.blocked": "More variables to withhold.",
		"security.environmentVariableRedaction.enabled": "Withhold secrets from the environment of shell commands and hooks.",
		"security.auth.selectedType":                    "The auth type: `gemini-api-key`, `vertex-ai`, `compute-default-credentials`, `cloud-shell`, `oauth-personal`.",
		"security.auth.enforcedType":                    "The only auth type allowed.",
		"security.auth.useExternal":                     "Authentication is handled outside the program.",
		"security.auth.oauthClient.clientId":            "Castor's own: the id of your OAuth client, for `castor auth login`.",
		"security.auth.oauthClient.clientSecret":        "Castor's own: the secret of your OAuth client.",
		"security.enableConseca":                        "Context-aware security checks of tool calls.",

		"advanced.autoConfigureMemory": "Size the Node.js heap to the machine.",
		"advanced.dnsResolutionOrder":  "Node.js's DNS resolution order.",
		"advanced.excludedEnvVars":     "Variables a `.env` file outside a `.gemini` folder may not set.",
		"advanced.ignoreLocalEnv":      "Read no `.env` file but `~/.env` and the `.gemini/.env` ones.",
		"advanced.bugCommand":          "Where `/bug` files a report.",

		"experimental.gemma":                                 "Gemma models.",
		"experimental.voiceMode":                             "Voice input.",
		"experimental.voice.activationMode":                  "How voice input starts.",
		"experimental.voice.backend":                         "The speech recognizer.",
		"experimental.voice.whisperModel":                    "The Whisper model file.",
		"experimental.voice.stopGracePeriodMs":               "How long voice input waits after speech stops.",
		"experimental.adk.agentSessionNoninteractiveEnabled": "ADK sessions for headless runs.",
		"experimental.adk.agentSessionInteractiveEnabled":    "ADK sessions for the terminal.",
		"experimental.adk.agentSessionSubagentEnabled":       "ADK sessions for subagents.",
		"experimental.enableAgents":                          "Subagents (`invoke_agent`).",
		"experimental.jitContext":                            "Load a subfolder's GEMINI.md when a tool first touches it; false scans subfolders at start.",
		"experimental.worktrees":                             "Git worktrees per session.",
		"experimental.extensionManagement":                   "Manage extensions from the terminal UI.",
		"experimental.extensionConfig":                       "Extension settings.",
		"experimental.extensionRegistry":                     "Browse the extension registry.",
		"experimental.extensionRegistryURI":                  "The extension registry's address.",
		"experimental.extensionReloading":                    "Reload extensions without restarting.",
		"experimental.useOSC52Paste":                         "Paste through OSC 52.",
		"experimental.useOSC52Copy":                          "Copy through OSC 52.",
		"experimental.taskTracker":                           "The task tracker.",
		"experimental.modelSteering":                         "Steer the model while it works.",
		"experimental.directWebFetch":                        "Fetch web pages without the model.",
		"experimental.dynamicModelConfiguration":             "Model settings fetched at run time.",
		"experimental.gemmaModelRouter.enabled":              "Route prompts with a local Gemma classifier.",
		"experimental.gemmaModelRouter.autoStartServer":      "Start the local classifier.",
		"experimental.gemmaModelRouter.binaryPath":           "The local classifier's program.",
		"experimental.gemmaModelRouter.classifier.host":      "The local classifier's address.",
		"experimental.gemmaModelRouter.classifier.model":     "The local classifier's model.",
		"experimental.stressTestProfile":                     "A stress-test profile.",
		"experimental.autoMemory":                            "Remember facts without being asked.",
		"experimental.generalistProfile":                     "The generalist profile.",
		"experimental.powerUserProfile":                      "The power-user profile.",
		"experimental.contextManagement":                     "The new context management.",
		"experimental.topicUpdateNarration":                  "Narrate topic changes.",

		"extensions.disabled":                     "Extensions to leave out (Gemini CLI's old place).",
		"extensions.workspacesWithMigrationNudge": "Workspaces Gemini CLI has nudged about a migration.",

		"skills.enabled":  "Agent skills (`activate_skill`).",
		"skills.disabled": "Skills to leave out, by name.",

		"hooksConfig.enabled":       "Run hooks.",
		"hooksConfig.disabled":      "Hooks to leave out, by name or command.",
		"hooksConfig.notifications": "Show hooks' notifications.",
		"hooks":                     "Hooks by event: `matcher`, `sequential`, `hooks` with `type`, `command`, `timeout` (see docs/hooks.md).",

		"contextManagement.historyWindow.maxTokens":                         "The conversation's token budget.",
		"contextManagement.historyWindow.retainedTokens":                    "Tokens kept when the budget is passed.",
		"contextManagement.messageLimits.normalMaxTokens":                   "A message's usual token limit.",
		"contextManagement.messageLimits.retainedMaxTokens":                 "A kept message's token limit.",
		"contextManagement.messageLimits.normalizationHeadRatio":            "The share of a cut message kept from its start.",
		"contextManagement.tools.distillation.maxOutputTokens":              "Tokens of a distilled tool output.",
		"contextManagement.tools.distillation.summarizationThresholdTokens": "Tool output longer than this is distilled.",
		"contextManagement.tools.outputMasking.protectionThresholdTokens":   "Recent tool output under this many tokens is never masked.",
		"contextManagement.tools.outputMasking.minPrunableThresholdTokens":  "Tool output is masked only past this many tokens.",
		"contextManagement.tools.outputMasking.protectLatestTurn":           "Never mask the latest turn's tool output.",

		"tools.autoAccept":                    "Run safe tools without asking (V1 settings).",
		"tools.enableHooks":                   "Run hooks (V1 settings).",
		"experimental.skills":                 "Agent skills (V1 settings).",
		"general.enablePromptCompletion":      "Complete prompts with the model.",
		"security.folderTrust.featureEnabled": "Folder trust (V1 settings).",

		"admin": "Settings an administrator sets for every user.",
	}
}}

// extensionDescriptions does for extensionTable what settingDescriptions
// does for settingsTable.
var extensionDescriptions = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"name":            "The extension's name; its folder under `~/.gemini/extensions/` has it.",
		"version":         "Its version; `castor extensions update` compares it.",
		"description":     "What it does, shown by `castor extensions list`.",
		"mcpServers":      "MCP servers it starts with the session (a server of the same name in settings wins).",
		"contextFileName": "Its context files (default `GEMINI.md`), joining the memory.",
		"excludeTools":    "Tools it takes away, joining `tools.exclude`.",
		"settings":        "Values it asks for at install, stored in its `.env` (sensitive ones apart).",
		"themes":          "Colour themes it brings.",
		"plan.directory":  "Where plan mode keeps its plans when the settings name no `general.plan.directory` (the first active extension's; inside the project root).",
		"migratedTo":      "Where the extension moved.",
	}
}}
