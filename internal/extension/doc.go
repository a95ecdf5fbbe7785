// Package extension installs and updates Gemini CLI extensions in
// ~/.gemini/extensions: it fetches a source (a git URL, cloned, or a local
// folder), copies it in through package swap so a crash never leaves a
// half-copied or missing extension, and checks installed extensions for
// newer versions (Check, AutoUpdate) the way Gemini CLI does at start-up.
//
// # Where things are
//
// Fetch clones a git source or copies a local folder; Install, Update,
// FetchUpstream and Apply are the castor extensions commands. CheckAll is
// the interactive terminal's background update check: extensions installed
// with --auto-update are updated, the others announced through
// setup.Options.Info, failures through Warn. Newer (commit.go) compares a
// git install by its recorded commit against git ls-remote of the ref,
// others by version. Package swap replaces an extension's folder through
// whole copies under a lock, and swap.RecoverAll (run by
// config.LoadExtensions) finishes or rolls back one a crash interrupted.
package extension
