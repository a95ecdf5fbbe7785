package config

import "slices"

// DotEnv returns the options of a .env load for workspace as these
// settings ask, the way Gemini CLI's loadEnvironment reads them:
// advanced.ignoreLocalEnv skips every plain .env file but the home
// directory's, and advanced.excludedEnvVars lists the variables a project
// .env file may not set. That list merges as a union across the layers,
// over Gemini CLI's default ["DEBUG", "DEBUG_MODE"], so a user can add
// names but never drop the defaults; Castor's DefaultExcludedEnvVars (the
// IDE client's command variables too) always stay in. A nil s (settings
// ignored) gives the defaults.
func (s *Settings) DotEnv(workspace, home string, trusted bool) DotEnvOptions {
	o := DotEnvOptions{Workspace: workspace, Home: home, Trusted: trusted}
	if s == nil {
		return o
	}
	o.IgnoreLocal, _ = s.GetBool("advanced.ignoreLocalEnv")
	if extra, ok := s.GetStrings("advanced.excludedEnvVars"); ok {
		o.Excluded = slices.Clone(DefaultExcludedEnvVars)
		for _, k := range extra {
			if !slices.Contains(o.Excluded, k) {
				o.Excluded = append(o.Excluded, k)
			}
		}
	}
	return o
}
