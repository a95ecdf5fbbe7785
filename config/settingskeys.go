package config

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
	// at all (auto-update, telemetry, Node.js tuning).
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
	noInk       = ""
	noTelemetry = "Castor sends no telemetry"
	noRouter    = "Castor's auto model router is its own"
)

// settingsTable is the table of settings.json keys.
var settingsTable = []settingKey{
	{"$schema", inert, "", "", "editor metadata"},
	{"mcpServers", honoured, "{}", "", ".MCPServers"},
	{"policyPaths", honoured, "[]", "", ""},
	{"adminPolicyPaths", honoured, "[]", "", ""},

	{"general.preferredEditor", honoured, "", "", ".General.PreferredEditor"},
	{"general.openEditorInNewWindow", unsupported, "false", "", ""},
	{"general.vimMode", cosmetic, "false", "", "Castor's prompt has no Vim keys"},
	{"general.defaultApprovalMode", honoured, `"default"`, "", ".General.DefaultApprovalMode"},
	{"general.devtools", notApplicable, "false", "", "a Node.js inspector"},
	{"general.enableAutoUpdate", notApplicable, "true", "false", "Castor does not update itself"},
	{"general.enableAutoUpdateNotification", notApplicable, "true", "false", "Castor does not update itself"},
	{"general.enableNotifications", unsupported, "false", "", ""},
	{"general.notificationMethod", unsupported, `"auto"`, "", ""},
	{"general.checkpointing.enabled", honoured, "false", "", ".General.Checkpointing"},
	{"general.plan.enabled", unsupported, "true", "", ""},
	{"general.plan.directory", unsupported, "", "", ""},
	{"general.plan.modelRouting", unsupported, "true", "false", ""},
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
	{"ui.theme", cosmetic, "", "", "Castor's TUI follows the terminal's background; /theme switches"},
	{"ui.autoThemeSwitching", cosmetic, "true", "", noInk},
	{"ui.terminalBackgroundPollingInterval", cosmetic, "60", "", noInk},
	{"ui.customThemes", cosmetic, "{}", "", noInk},
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

	{"telemetry.enabled", notApplicable, "", "false", noTelemetry},
	{"telemetry.target", notApplicable, "", "", noTelemetry},
	{"telemetry.otlpEndpoint", notApplicable, "", "", noTelemetry},
	{"telemetry.otlpProtocol", notApplicable, "", "", noTelemetry},
	{"telemetry.traces", notApplicable, "", "", noTelemetry},
	{"telemetry.logPrompts", notApplicable, "", "", noTelemetry},
	{"telemetry.outfile", notApplicable, "", "", noTelemetry},
	{"telemetry.useCollector", notApplicable, "", "", noTelemetry},
	{"telemetry.useCliAuth", notApplicable, "", "", noTelemetry},

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

	{"modelConfigs.aliases", unsupported, "", "", noRouter},
	{"modelConfigs.customAliases", unsupported, "{}", "", noRouter},
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

	{"tools.sandbox", unsupported, "", "false", "tools run without a sandbox"},
	{"tools.sandboxAllowedPaths", unsupported, "[]", "", "tools run without a sandbox"},
	{"tools.sandboxNetworkAccess", unsupported, "false", "", "tools run without a sandbox"},
	{"tools.shell.enableInteractiveShell", unsupported, "true", "", ""},
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

	{"mcp.serverCommand", honoured, "", "", ".MCP.ServerCommand"},
	{"mcp.allowed", honoured, "", "", ".MCP.Allowed"},
	{"mcp.excluded", honoured, "", "", ".MCP.Excluded"},

	{"useWriteTodos", honoured, "true", "", ""},

	{"security.toolSandboxing", unsupported, "false", "", "tools run without a sandbox"},
	{"security.disableYoloMode", honoured, "false", "", ""},
	{"security.disableAlwaysAllow", honoured, "false", "", ""},
	{"security.enablePermanentToolApproval", honoured, "false", "", ""},
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
	{"plan.directory", unsupported, "", "", ""},
	{"migratedTo", notApplicable, "", "", "castor extensions update does not follow it to the new source"},
}
