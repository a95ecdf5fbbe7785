// Package ide is the CLI side of Gemini CLI's IDE mode: it finds the IDE
// companion the CLI runs under, keeps the editor context the companion
// pushes, and shows proposed edits as diffs in the IDE.
//
// The contract is Gemini CLI's companion specification: a companion (the
// VS Code extension, a JetBrains plugin, or Castor's own, package
// ide/companion) serves MCP over streamable HTTP at
// http://127.0.0.1:<port>/mcp behind a bearer token, and announces itself
// with a discovery file gemini-ide-server-<pid>-<port>.json in
// <tmpdir>/gemini/ide. The companion sends ide/contextUpdate,
// ide/diffAccepted and ide/diffRejected notifications and offers the
// openDiff and closeDiff tools.
//
// Connect discovers and connects; the Client's PromptContext and Confirm
// plug into the agent (agent.Config.PromptContext and Confirm). Diagnose
// explains, step by step, why a connection fails.
//
// A stale discovery file falls through to the workspace's other files. An
// IDE that closes mid-diff with no one else to answer cancels the edit
// with a tool.Decision.Reason, which the engine tells the model instead of
// "User denied execution". Summary is the live state for /ide status;
// Install is /ide install. A session's connection may change while it
// runs: internal/setup/idelive.go routes the engine's Confirm and
// PromptContext to whichever client is connected.
package ide
