package setup

import (
	"fmt"
	"strings"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/policy"
)

// ruleKeys are the settings lists of tool(args) rules, with what a
// malformed entry then does: it names no tool, as in Gemini CLI; or, with
// empty parentheses, the whole tool (whole, given the tool's name).
var ruleKeys = []struct{ key, effect, whole string }{
	{"tools.allowed", "it allows nothing", "it allows every call of %s"},
	{"tools.exclude", "it excludes nothing", "it excludes %s entirely"},
	{"tools.core", "it enables no tool", "it enables %s"},
}

// warnMalformedRules says, through o.Warn and once per process, which
// entries of tools.allowed, tools.exclude and tools.core in which settings
// file are malformed ("run_shell_command(" and the like: see
// policy.CheckRule), and which of the options' AllowedTools are (the CLI
// refuses a malformed --allowed-tools before it gets here; an SDK
// program's rules are only reported). Gemini CLI says nothing about them.
// Well-formed entries that give arguments to a tool other than the shell
// are reported too, with what they do instead (policy.IgnoredArgs).
func warnMalformedRules(o Options, st *config.Settings) {
	say := func(line string) {
		if _, said := warnedSettings.LoadOrStore(line, true); !said {
			o.Warn(line)
		}
	}
	if !o.IgnoreSettings && st != nil {
		for _, lf := range st.Files {
			if !lf.Exists || lf.Skipped != "" {
				continue
			}
			tools, _ := lf.Raw["tools"].(map[string]any)
			for _, k := range ruleKeys {
				list, _ := tools[k.key[len("tools."):]].([]any)
				for _, e := range list {
					s, ok := e.(string)
					if !ok {
						continue // the settings loader reports wrong types
					}
					if err := policy.CheckRule(s); err != nil {
						effect := k.effect
						if name, _, ok := policy.ParseRule(s); ok && !strings.ContainsAny(name, "()") {
							effect = fmt.Sprintf(k.whole, name)
						}
						say(fmt.Sprintf("%s: %s entry %q %v; %s", lf.Path, k.key, s, err, effect))
					} else if note := policy.IgnoredArgs(s, k.key == "tools.exclude"); note != "" && k.key != "tools.core" {
						say(fmt.Sprintf("%s: %s entry %q: %s", lf.Path, k.key, s, note))
					}
				}
			}
		}
	}
	for _, s := range o.AllowedTools {
		if err := policy.CheckRule(s); err != nil {
			effect := "it allows nothing"
			if name, _, ok := policy.ParseRule(s); ok && !strings.ContainsAny(name, "()") {
				effect = "it allows every call of " + name
			}
			say(fmt.Sprintf("allowed tools rule %q %v; %s", s, err, effect))
		} else if note := policy.IgnoredArgs(s, false); note != "" {
			say(fmt.Sprintf("allowed tools rule %q: %s", s, note))
		}
	}
}
