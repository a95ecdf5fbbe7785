package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// securitySettings is merged settings holding only a security object.
func securitySettings(security map[string]any) *Settings {
	return &Settings{merged: map[string]any{"security": security}}
}

func TestExtensionSourceAllowed(t *testing.T) {
	dir := realTempDir(t)
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	// Gemini CLI's own test pattern (extension.test.ts).
	const allowedCom = `\b(https?:\/\/)?(www\.)?allowed\.com\S*`
	tests := []struct {
		name     string
		patterns []any
		source   string
		want     bool
		wantErr  string
	}{
		{"no list allows all", nil, "https://anything.example/x", true, ""},
		{"empty list allows all", []any{}, "https://anything.example/x", true, ""},
		{"matching URL", []any{allowedCom}, "http://allowed.com/foo/bar", true, ""},
		{"other URL", []any{allowedCom}, "http://notallowed.com/foo/bar", false, ""},
		{"second pattern matches", []any{"nomatch", `github\.com/org/`}, "https://github.com/org/ext", true, ""},
		// A URL is resolved like a path first, so an anchored scheme never matches.
		{"anchored URL pattern", []any{`^https://github\.com/org/`}, "https://github.com/org/ext", false, ""},
		{"real path allowed", []any{regexQuote(real)}, real, true, ""},
		{"link resolved to real path", []any{regexQuote(real)}, link, true, ""},
		{"only the link allowed", []any{regexQuote(link) + "$"}, link, false, ""},
		{"invalid pattern", []any{"("}, "x", false, `Invalid regex pattern in allowedExtensions setting: "(. Error: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := map[string]any{}
			if tt.patterns != nil {
				sec["allowedExtensions"] = tt.patterns
			}
			got, err := securitySettings(sec).ExtensionSourceAllowed(tt.source)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("allowed = %t, %v; want %t", got, err, tt.want)
			}
		})
	}
}

func regexQuote(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

func TestLoadExtensionsAdminRules(t *testing.T) {
	root := realTempDir(t)
	ext := "home/.gemini/extensions/"
	manifest := func(name string) string { return `{"name":"` + name + `","version":"1.0.0"}` }
	writeTree(t, root, map[string]string{
		ext + "fromgit/gemini-extension.json":           manifest("fromgit"),
		ext + "fromgit/.gemini-extension-install.json":  `{"source":"https://github.com/allowed-org/fromgit","type":"git"}`,
		ext + "otherorg/gemini-extension.json":          manifest("otherorg"),
		ext + "otherorg/.gemini-extension-install.json": `{"source":"https://github.com/evil/otherorg","type":"github-release"}`,
		ext + "local/gemini-extension.json":             manifest("local"),
		ext + "local/.gemini-extension-install.json":    `{"source":"` + filepath.ToSlash(filepath.Join(root, "src", "local")) + `","type":"local"}`,
		ext + "nometa/gemini-extension.json":            manifest("nometa"),
		ext + "badmeta/gemini-extension.json":           manifest("badmeta"),
		ext + "badmeta/.gemini-extension-install.json":  `{"source":`,
	})
	extDir := filepath.Join(root, "home", ".gemini", "extensions")
	tests := []struct {
		name         string
		security     map[string]any
		want         []string
		wantWarnings []string
	}{
		{"no rules", nil, []string{"fromgit", "local", "nometa", "otherorg"},
			[]string{"Skipping extension in " + filepath.Join(extDir, "badmeta") + ": "}},
		{"block git", map[string]any{"blockGitExtensions": true}, []string{"local", "nometa"}, []string{
			"Failed to load extension " + filepath.Join(extDir, "fromgit") + ". Extensions from remote sources is disallowed by your current settings.",
			"Failed to load extension " + filepath.Join(extDir, "otherorg") + ". Extensions from remote sources is disallowed by your current settings.",
		}},
		{"allow-list", map[string]any{"allowedExtensions": []any{`github\.com/allowed-org/`, regexQuote(filepath.Join(root, "src"))}},
			[]string{"fromgit", "local"}, []string{
				"Failed to load extension " + filepath.Join(extDir, "nometa") + ". The .gemini-extension-install.json file is missing or misconfigured.",
				"Failed to load extension " + filepath.Join(extDir, "otherorg") + `. This extension is not allowed by the "allowedExtensions" security setting.`,
				"Skipping extension in " + filepath.Join(extDir, "badmeta") + ": ",
			}},
		{"allow-list overrides block git", map[string]any{"allowedExtensions": []any{`allowed-org`}, "blockGitExtensions": true},
			[]string{"fromgit"}, nil},
		{"invalid pattern loads none", map[string]any{"allowedExtensions": []any{`[`}}, nil,
			[]string{`Invalid regex pattern in allowedExtensions setting: "[. Error: `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exts, warnings := LoadExtensions(ExtensionsOptions{
				GeminiDir: filepath.Join(root, "home", ".gemini"),
				Workspace: filepath.Join(root, "ws"),
				Lookup:    func(string) (string, bool) { return "", false },
				Settings:  securitySettings(tt.security),
			})
			var names []string
			for _, e := range exts {
				names = append(names, e.Name)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("loaded %v, want %v", names, tt.want)
			}
			for _, w := range tt.wantWarnings {
				if !slices.ContainsFunc(warnings, func(got string) bool { return strings.HasPrefix(got, w) }) {
					t.Errorf("no warning %q in %q", w, warnings)
				}
			}
		})
	}
}
