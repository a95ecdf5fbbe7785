package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// The admin's say over which installed extensions may load:
// security.allowedExtensions (regular expressions matched against where an
// extension was installed from) and security.blockGitExtensions (no
// extension installed from git). Gemini CLI applies both while it builds
// each extension, before the enablement rules, so a refused extension is
// not merely inactive: it is not there at all.

// extensionGate is the admin's rule for one load of the extensions.
type extensionGate struct {
	// allow holds the compiled security.allowedExtensions; when non-empty
	// only a source one of them matches may load, and blockGit is moot.
	allow    []*regexp.Regexp
	blockGit bool
}

// extensionGate compiles the rule from the merged settings. A pattern
// that does not compile is an error, as in Gemini CLI (which stops
// loading extensions at all).
func (s *Settings) extensionGate() (extensionGate, error) {
	var g extensionGate
	g.blockGit, _ = s.GetBool("security.blockGitExtensions")
	patterns, _ := s.GetStrings("security.allowedExtensions")
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			// Gemini CLI's wording, its unbalanced quote included.
			return g, fmt.Errorf("Invalid regex pattern in allowedExtensions setting: \"%s. Error: %v", p, err)
		}
		g.allow = append(g.allow, re)
	}
	return g, nil
}

// ExtensionSourceAllowed reports whether security.allowedExtensions lets
// an extension from source (a git URL or a local path, as its install
// metadata records it) be installed or loaded. An empty list allows every
// source. A local path is matched in its resolved form (absolute, links
// followed), so a link to an allowed folder is not itself allowed, and a
// URL is matched the way Gemini CLI matches it: as if it were a path
// relative to the current directory, so patterns should not be anchored
// at the start ("github\.com/my-org/", not "^https://github\.com/my-org/").
func (s *Settings) ExtensionSourceAllowed(source string) (bool, error) {
	g, err := s.extensionGate()
	if err != nil {
		return false, err
	}
	return g.allows(source), nil
}

// AllowedExtensionsInstallRefusal is Gemini CLI's error when
// security.allowedExtensions refuses an extension about to be installed.
func AllowedExtensionsInstallRefusal(source string) string {
	return fmt.Sprintf("Installing extension from source %q is not allowed by the \"allowedExtensions\" security setting.", source)
}

func (g extensionGate) allows(source string) bool {
	if len(g.allow) == 0 {
		return true
	}
	resolved := resolveSourcePath(source)
	for _, re := range g.allow {
		if re.MatchString(resolved) {
			return true
		}
	}
	return false
}

// refusal says why the extension installed in dir (with install metadata
// im, nil when it has none) may not load, or "" when it may. The wording
// is Gemini CLI's.
func (g extensionGate) refusal(dir string, im *ExtensionInstall) string {
	if len(g.allow) > 0 {
		if im == nil || im.Source == "" {
			// Without a recorded source nothing can vouch for it; Gemini
			// CLI stops loading extensions here, Castor skips this one.
			return fmt.Sprintf("Failed to load extension %s. The %s file is missing or misconfigured.", dir, ExtensionInstallMetadataName)
		}
		if !g.allows(im.Source) {
			return fmt.Sprintf("Failed to load extension %s. This extension is not allowed by the \"allowedExtensions\" security setting.", dir)
		}
		return ""
	}
	if g.blockGit && im != nil && (im.Type == "git" || im.Type == "github-release") {
		return fmt.Sprintf("Failed to load extension %s. Extensions from remote sources is disallowed by your current settings.", dir)
	}
	return ""
}

// resolveSourcePath is Node's fs.realpathSync falling back to
// path.resolve, which Gemini CLI applies to every source before matching,
// URLs included ("https://h/x" becomes "<cwd>/https:/h/x").
func resolveSourcePath(source string) string {
	abs, err := filepath.Abs(source)
	if err != nil {
		return source
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// readInstallMetadata reads dir's install metadata: nil without error when
// the file is absent.
func readInstallMetadata(dir string) (*ExtensionInstall, error) {
	p := filepath.Join(dir, ExtensionInstallMetadataName)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, nil
	}
	var im ExtensionInstall
	if err := json.Unmarshal(data, &im); err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %v", p, err)
	}
	return &im, nil
}
