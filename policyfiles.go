package castor

// WithPolicyFiles reads Gemini CLI policy files (TOML [[rule]] tables) at
// the user tier: each path is a .toml file or a folder of them, as the
// castor command's --policy takes them. Like --policy, the paths replace
// the policyPaths setting and ~/.gemini/policies; they are read even with
// WithoutSettings. Problems in a file are reported through WithWarnings.
func WithPolicyFiles(paths ...string) Option {
	return func(o *options) { o.PolicyPaths = append(o.PolicyPaths, paths...) }
}
