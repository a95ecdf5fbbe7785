// Package policy decides whether a tool call may run, must be confirmed by
// a user, or is refused: approval modes, allow and exclude rules from
// settings and flags, the "always allow" answers given during a session,
// and the rules of Gemini CLI's TOML policy files (LoadRules), which slot
// in among the others by priority as in Gemini CLI.
//
// # Where things are
//
// Rules of the form tool(args) are parsed in one place: CheckRule says what
// is wrong with a malformed one, and IgnoredArgs what an allow or exclude
// rule giving arguments to a tool other than the shell does instead (all of
// the tool, or nothing, as in Gemini CLI), which faces report
// (--allowed-tools is refused in internal/cli/usage.go, settings lists are
// warned about in internal/setup/rulecheck.go). Options.Lookup lets rules
// see an MCP tool's other names (mcp_<server>_<tool>) and server
// (mcp_<server>_*).
//
// shell.go reads a shell line as it will run (mvdan.cc/sh): every command,
// its words resolved, wrappers and code given to shells looked through;
// a command that cannot be known before it runs matches every deny rule
// and no allow rule. Every shell rule is decided on those commands
// (rules.go's decideFilesLocked).
//
// always.go holds "always allow" answers: a shell answer remembers the
// commands the line runs (with the subcommand of git, npm, …) and whether
// the line redirected. save.go holds "allow always and
// save" answers: the user-tier rule is applied at once and written to
// ~/.gemini/policies/auto-saved.toml when
// security.enablePermanentToolApproval is on (Options.AutoSave).
// Options.DisableAlwaysAllow (security.disableAlwaysAllow) makes always
// answers count as once and drops x.950 rules; faces ask
// Engine.OffersAlways (or read the engine's Confirmation.OnceOnly, as A2A
// does) before offering them.
//
// LoadRules reads Gemini CLI's TOML policy files: tiers, tier +
// priority/1000, shell lines split with mvdan.cc/sh. Built-in decisions
// carry Gemini CLI's priorities so that file rules slot in among them.
// safe.go holds Gemini CLI's shell heuristics: a lone known-safe command
// runs unasked when the files it names are in the workspace
// (Options.Workspace), dangerous lines, writes into .git/ and .gemini/ and
// git in untrusted folders are asked about.
package policy
