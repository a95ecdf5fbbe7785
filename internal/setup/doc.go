// Package setup is Castor's assembly: it turns options, settings files and
// the environment into a ready engine session (agent.Session) with its
// model client, tools, policy, memory, MCP servers, IDE connection,
// recording and checkpoints. Every face (the CLI, the A2A server, the SDK
// facade, and the faces to come) asks this package for its sessions, so
// each of them stays a thin mapping of the same engine.
//
// New runs small steps, each in its own file with its own tests; every
// step that may wait (the IDE handshake, MCP servers, sign-in) takes the
// caller's context, so start-up can be cancelled.
//
// # The steps of New
//
// work dir → environment (process env and .env, per agent, never
// os.Setenv) → settings and trust (a connected IDE may decide trust) →
// workspace dirs → model client (fake, Code Assist, Gemini API/Vertex,
// retries, recording of responses; models.go puts internal/routing's Router
// in front of network backends, one without a classifier for fake
// responses and an SDK caller's own transport) → tools (built-ins filtered
// by tools.core/tools.exclude, custom tools, the project's discovered tools
// (discovered.go), MCP servers) → policy (policyfiles.go finds the policy
// files, rulecheck.go reports malformed allow and exclude rules) → skills
// (activate_skill) → subagents (invoke_agent, a nested engine session with
// a subset of the same tools and policy) → memory and system prompt →
// session recording or resume → hooks (hooks.go) → agent.New → checkpoints
// → SessionStart hooks.
//
// Right after settings, the active extensions are loaded
// (config.LoadExtensions) and applied (their MCP servers, excluded tools
// and context files); Agent.Extensions lists them for the loaders of their
// hooks/, skills/, agents/ and policies/, and after agent.New their custom
// commands join Agent.Commands. An extension's hooks and MCP servers get
// the values of its declared settings as environment variables
// (withExtensionSettingsEnv in extensions.go). ignored.go says through Warn,
// once per process, which settings keys Castor does not honour.
//
// With Options.MCPInBackground (the interactive terminal) the MCP step only
// starts the servers: New returns while they connect, and their tools, then
// their prompts as commands, join the session when every server is in or
// has failed, which closes Agent.MCPReady (mcpbackground.go); a prompt
// whose name a command already has stays out.
//
// # Live sessions
//
// mcpsync.go feeds tools/list_changed into the registry; mcpcommands.go
// (through mcp.Options.OnPromptsChanged) makes the prompt commands again
// after prompts/list_changed, taking back only its own commands, and calls
// the Agent.OnCommandsChanged listeners when the set changed (ACP sends its
// sessions a new available_commands_update). mcpresources.go reads
// @server:uri references beside @path files. jit.go wraps the path tools
// so that their output carries config.Memory.ForPath's newly found
// GEMINI.md files. live.go holds what changes a running session for every
// face: ReloadMemory, ResumeChat, /compress and the reloading /memory. The
// IDE connection goes through idelive.go, which Agent.ConnectIDE and
// DisconnectIDE (/ide enable, /ide disable) switch and Agent.IDEClient
// reads. extupdates.go is the terminal's background extension update check
// (Options.ExtensionUpdates). Without Options.Elicit, elicit.go declines
// MCP servers' questions through Warn.
//
// Faces with no session behind a command listing (the A2A server before
// any task) use WithSessionCommands, the same registration code.
package setup
