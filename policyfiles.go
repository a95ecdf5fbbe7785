package castor

// WithPolicyFiles reads Gemini CLI policy files (TOML [[rule]] tables) at
// the user tier: each path is a .toml file or a folder of them, as the
// castor command's --policy takes them. Like --policy, the paths replace
// the policyPaths setting and ~/.gemini/policies; they are read even with
// WithoutSettings. A mistake in a file (TOML syntax, an unknown key, a bad
// value) makes New fail with a *ConfigError naming the file, line and key,
// since the agent would run with fewer rules than were written; what
// Castor leaves out by design (safety checkers) is reported through
// WithWarnings.
func WithPolicyFiles(paths ...string) Option {
	return func(o *options) { o.PolicyPaths = append(o.PolicyPaths, paths...) }
}

// WithIgnorePolicyErrors lets New succeed when a policy file has a
// mistake, with the rules that could be read, as Gemini CLI does; each
// problem is reported through WithWarnings instead.
func WithIgnorePolicyErrors() Option {
	return func(o *options) { o.IgnorePolicyErrors = true }
}
