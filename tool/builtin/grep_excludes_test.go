package builtin

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

// geminiCLIExcludeGlobs are the exclusion globs Gemini CLI 0.61 passes to
// ripgrep, which rgExcludeGlobs replace by a cheaper form.
var geminiCLIExcludeGlobs = []string{
	"**/node_modules/**", "**/.git/**", "**/bower_components/**", "**/.svn/**", "**/.hg/**",
	"**/.vscode/**", "**/.idea/**", "**/dist/**", "**/build/**", "**/coverage/**", "**/__pycache__/**",
	"*.log", "*.tmp",
}

// TestRgExcludeGlobsAsGeminiCLI checks that ripgrep searches the same
// files under rgExcludeGlobs as under Gemini CLI's globs: excluded
// directories at any depth, files that bear such a name, a .gitignore
// that whitelists one, an include glob beside them, and the other
// backends' grepExcluded agreeing on every file.
func TestRgExcludeGlobsAsGeminiCLI(t *testing.T) {
	rg := npmtest.LookPath(t, "rg")
	dir := t.TempDir()
	for _, f := range []string{
		"keep.js", "src/app.js", "src/build.js", "build.txt", "distx/a.js",
		"node_modules/x.js", "a/node_modules/b/c.js", "a/b/node_modules",
		"dist/d.js", "src/dist", "src/build/x/y.js", "deep/er/coverage/c.js",
		".git/config", "sub/.git", "sub/.hg/store/x", ".svn/x", ".idea/w.xml",
		".vscode/settings.json", "p/__pycache__/m.pyc", "bower_components/b.js",
		"x.log", "y.tmp", "dir.log/inner.js", "logs/a.log.txt",
		"white/dist/w.js", "white/.gitignore",
	} {
		content := "needle\n"
		if strings.HasSuffix(f, ".gitignore") {
			content = "!dist/\n!node_modules/\n"
		}
		fsWrite(t, dir, f, content)
	}
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	files := func(globs []string, include string) []string {
		args := []string{"--no-config", "--files", "--hidden"}
		if include != "" {
			args = append(args, "--glob", include)
		}
		for _, g := range globs {
			args = append(args, "--glob", "!"+g)
		}
		cmd := exec.Command(rg, append(args, "--", ".")...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("rg %q: %v", args, err)
		}
		var fs []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fs = append(fs, strings.TrimPrefix(l, "./"))
		}
		slices.Sort(fs)
		return fs
	}
	for _, include := range []string{"", "*.js"} {
		want, got := files(geminiCLIExcludeGlobs, include), files(rgExcludeGlobs, include)
		if !slices.Equal(got, want) {
			t.Errorf("include %q: rgExcludeGlobs search\n%q\nGemini CLI's globs search\n%q", include, got, want)
		}
		if include != "" {
			continue
		}
		for _, f := range want {
			if grepExcluded(f) {
				t.Errorf("grepExcluded(%q) = true; ripgrep searches it", f)
			}
		}
		for _, f := range []string{"node_modules/x.js", "a/node_modules/b/c.js", "src/build/x/y.js", "x.log", "dir.log/inner.js"} {
			if slices.Contains(want, f) {
				t.Errorf("Gemini CLI's globs search %s; the test expects it excluded", f)
			}
		}
	}
}
