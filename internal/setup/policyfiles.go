package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/policy"
)

// systemPoliciesDir, when set, replaces Gemini CLI's admin policy folder
// for this platform (tests point it elsewhere).
var systemPoliciesDir string

// adminPoliciesDir is Gemini CLI's admin policy folder for this platform,
// or systemPoliciesDir. A function, not a variable's initial value, so
// that the package runs no init code.
func adminPoliciesDir() string {
	if systemPoliciesDir != "" {
		return systemPoliciesDir
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/policies"
	case "windows":
		return `C:\ProgramData\gemini-cli\policies`
	}
	return "/etc/gemini-cli/policies"
}

// policyFiles reads the policy files of the session, in Gemini CLI's
// order (which decides ties): the admin folder, the supplemental admin
// paths (--admin-policy, else adminPolicyPaths), the user's paths
// (--policy, else policyPaths, else ~/.gemini/policies), then each active
// extension's policies/ folder. A mistake in a file (TOML syntax, an
// unknown key, a bad value) costs rules its author wrote, so it stops the
// session with a *ConfigError naming the file, line and key, unless
// --ignore-policy-errors or the security.ignorePolicyErrors setting asks
// for Gemini CLI's way: a warning, and the rules that could be read.
// What Castor leaves out by design (policy.IsWarning) is only a warning.
func policyFiles(o Options, st *config.Settings, home config.Home, wd string, exts []*config.Extension, warn func(string)) ([]policy.Rule, error) {
	ignore := o.IgnorePolicyErrors
	if on, _ := st.GetBool("security.ignorePolicyErrors"); on {
		ignore = true
	}
	var rules []policy.Rule
	var bad []error
	load := func(path string, tier policy.Tier) {
		r, errs := policy.LoadRules(path, tier)
		for _, err := range errs {
			if ignore || policy.IsWarning(err) {
				warn(err.Error())
			} else {
				bad = append(bad, err)
			}
		}
		rules = append(rules, r...)
	}
	resolve := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			p = expandHome(p, home.UserDir)
			if !filepath.IsAbs(p) {
				p = filepath.Join(wd, p)
			}
			out = append(out, filepath.Clean(p))
		}
		return out
	}
	// A path the user named (a flag, policyPaths, adminPolicyPaths) that
	// does not exist is said, as a typo there would drop every rule.
	loadNamed := func(path string, tier policy.Tier) {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("policy path %s does not exist: no rules are read from it", path))
			return
		}
		load(path, tier)
	}
	settingPaths := func(key string) []string {
		ps, _ := st.GetStrings(key)
		return ps
	}

	adminPaths := resolve(o.AdminPolicyPaths)
	if len(o.AdminPolicyPaths) == 0 {
		adminPaths = resolve(settingPaths("adminPolicyPaths"))
	}
	if !o.IgnoreSettings {
		// Policies in the system folder shut out supplemental ones, even
		// when the folder fails its security check.
		sys := adminPoliciesDir()
		if hasTOML(sys) && len(adminPaths) > 0 {
			warn("Security Warning: Ignoring --admin-policy because system policies are already defined in " + sys)
			adminPaths = nil
		}
		if secureSystemDir(sys, warn) {
			load(sys, policy.TierAdmin)
		}
	}
	for _, p := range adminPaths {
		loadNamed(p, policy.TierAdmin)
	}

	userPaths := resolve(o.PolicyPaths)
	if len(o.PolicyPaths) == 0 {
		userPaths = resolve(settingPaths("policyPaths"))
	}
	for _, p := range userPaths {
		loadNamed(p, policy.TierUser)
	}
	if len(userPaths) == 0 && !o.IgnoreSettings {
		load(filepath.Join(home.Dir, "policies"), policy.TierUser)
	}

	// Gemini CLI 0.61 does not read workspace policies (issue #18186);
	// a user who wrote some is told.
	if !o.IgnoreSettings {
		ws := filepath.Join(wd, config.GeminiDirName, "policies")
		if filepath.Clean(filepath.Join(wd, config.GeminiDirName)) != filepath.Clean(home.Dir) {
			if fi, err := os.Stat(ws); err == nil && fi.IsDir() {
				warn(fmt.Sprintf("workspace policies in %s are not loaded: Gemini CLI 0.61 disables the workspace tier (issue #18186); put them in %s or pass --policy", ws, filepath.Join(home.Dir, "policies")))
			}
		}
	}

	for _, e := range exts {
		load(e.Dir("policies"), policy.TierExtension)
	}
	if len(bad) > 0 {
		return nil, &ConfigError{Err: fmt.Errorf("%w\nThe session does not start without the rules of a policy file it cannot read whole: fix the file, or pass --ignore-policy-errors (setting security.ignorePolicyErrors) to start without the rules in error", errors.Join(bad...))}
	}
	return rules, nil
}

// hasTOML reports whether dir holds a .toml file.
func hasTOML(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
	return len(m) > 0
}
