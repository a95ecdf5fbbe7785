// Package config reads the files through which a Gemini CLI user configures
// the agent, so that castor can be dropped into an existing setup: the
// layered settings.json files, .env files, the trusted-folders list, the
// .gitignore/.geminiignore rules that file tools honour, the GEMINI.md
// context ("memory") files and the directory tree shown to the model in the
// first message.
//
// Everything here follows Gemini CLI's behaviour (packages/cli/src/config and
// packages/core/src/utils in google-gemini/gemini-cli) closely enough that the
// same files give the same result; where castor deliberately differs, the
// doc comment of the function says so.
//
// Nothing in this package reads the process environment or the real home
// directory behind the caller's back when the caller supplies them: every
// entry point takes the environment and home directory as options, which is
// what lets tests (and embedders running several sessions in one process)
// stay isolated.
//
// # Where things are
//
// settingskeys.go is the one table of Gemini CLI's settings keys and what
// Castor does with each (honoured, cosmetic, not applicable, not
// supported), with a line describing each: Settings.IgnoredSettings and
// IgnoredExtensionKeys list from it what a user set that Castor ignores,
// and internal/docgen renders it as docs/configuration/settings.md.
// validate.go checks value types per file; the loader turns a problem into
// the file's FileError (exit 52). Settings.FileOf names the file whose
// value of a key the merge kept, so that readers name it in warnings;
// Settings.DotEnv is the .env load the advanced.* settings ask for;
// security.go holds YoloDisabled and AlwaysAllowDisabled;
// extension_secrets.go keeps extensions' sensitive settings in
// ~/.gemini/castor_extension_secrets.json.
package config
