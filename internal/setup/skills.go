package setup

import (
	"strings"

	"github.com/castor-dev/castor/internal/skills"
)

// addSkills is the skills step: it discovers the skills of the user, of a
// trusted workspace and of the given extension roots (skills.enabled,
// skills.disabled), adds the program's own (Options.Skills, over the
// discovered ones), registers activate_skill when a skill is enabled, and
// keeps the system instruction's "Available Agent Skills" section.
// Problems with skill files are reported and the skill skipped; only a
// program's own skills that cannot be loaded fail the session.
func (a *Agent) addSkills(o Options, ts *toolSet, extensionDirs []string) error {
	st := a.Settings
	if on, ok := st.GetBool("skills.enabled"); ok && !on && !o.IgnoreSettings {
		return nil
	}
	set := &skills.Set{}
	if !o.IgnoreSettings {
		var warnings []string
		set, warnings = skills.Discover(skills.Sources{
			Home:       a.Home.UserDir,
			Workspace:  a.Workspace.Dirs()[0],
			Trusted:    a.Trusted,
			Extensions: extensionDirs,
		})
		for _, w := range warnings {
			o.Warn(w)
		}
	}
	for _, load := range o.Skills {
		found, err := load()
		if err != nil {
			return &ConfigError{Err: err}
		}
		for _, w := range set.Add(found...) {
			o.Warn(w)
		}
	}
	if disabled, ok := st.GetStrings("skills.disabled"); ok {
		set.Disable(disabled)
	}
	a.skills = set
	enabled := set.Enabled()
	if len(enabled) == 0 {
		return nil
	}
	t := skills.NewTool(set, a.Workspace)
	if !keepTool(t, st.Tools.Core, st.Tools.Exclude) {
		return nil
	}
	ts.registry.Register(t)
	a.skillsSection = skills.Section(enabled)
	return nil
}

// withSections puts the subagents' and skills' sections of the system
// instruction where Gemini CLI puts them: after the core mandates, before
// the workflows. A prompt of the user's own (GEMINI_SYSTEM_MD) gets them
// only where it says ${SubAgents} and ${AgentSkills}.
func withSections(prompt string, custom bool, agents, skills string) string {
	if strings.Contains(prompt, "${SubAgents}") || strings.Contains(prompt, "${AgentSkills}") {
		return strings.NewReplacer("${SubAgents}", agents, "${AgentSkills}", skills).Replace(prompt)
	}
	var parts []string
	for _, s := range []string{agents, skills} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	const anchor = "\n# Primary Workflow"
	i := strings.Index(prompt, anchor)
	if len(parts) == 0 || i < 0 || custom {
		return prompt
	}
	return prompt[:i] + "\n" + strings.Join(parts, "\n\n") + "\n" + prompt[i:]
}

// customPrompt reports whether GEMINI_SYSTEM_MD replaces the system
// prompt (any value but unset, "0" and "false").
func customPrompt(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv("GEMINI_SYSTEM_MD"))) {
	case "", "0", "false":
		return false
	}
	return true
}
