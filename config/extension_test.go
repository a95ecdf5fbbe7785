package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestParseExtensionManifestErrors(t *testing.T) {
	const file = "/x/gemini-extension.json"
	tests := []struct {
		name, json, want string
	}{
		{"syntax", "{\n  \"name\": \"a\",\n  \"version\" \"1\"\n}", "/x/gemini-extension.json: line 3: invalid JSON"},
		{"not an object", `[1]`, "must be a JSON object"},
		{"null", `null`, "must be a JSON object"},
		{"missing name", `{"version":"1"}`, `Invalid configuration in /x/gemini-extension.json: missing "name"`},
		{"missing version", `{"name":"a"}`, `missing "version"`},
		{"name type", `{"name":1,"version":"1"}`, `key "name" must be a string`},
		{"bad name", `{"name":"a b","version":"1"}`, `key "name": invalid extension name "a b"`},
		{"context type", `{"name":"a","version":"1","contextFileName":3}`, `key "contextFileName" must be a string or a list of strings`},
		{"context item", `{"name":"a","version":"1","contextFileName":["A.md",2]}`, `key "contextFileName[1]" must be a string`},
		{"exclude type", `{"name":"a","version":"1","excludeTools":"x"}`, `key "excludeTools" must be a list of strings`},
		{"plan type", `{"name":"a","version":"1","plan":".gemini/plans"}`, `key "plan" must be an object`},
		{"plan directory type", `{"name":"a","version":"1","plan":{"directory":1}}`, `key "plan.directory" must be a string`},
		{"servers type", `{"name":"a","version":"1","mcpServers":[]}`, `key "mcpServers" must be an object`},
		{"server type", `{"name":"a","version":"1","mcpServers":{"s":"x"}}`, `key "mcpServers.s" must be an object`},
		{"settings type", `{"name":"a","version":"1","settings":{}}`, `key "settings" must be a list`},
		{"setting field", `{"name":"a","version":"1","settings":[{"name":"n","envVar":3}]}`, `key "settings[0].envVar" must be a string`},
		{"setting incomplete", `{"name":"a","version":"1","settings":[{"name":"n"}]}`, `key "settings[0]" needs a "name" and an "envVar"`},
		{"sensitive type", `{"name":"a","version":"1","settings":[{"name":"n","envVar":"V","sensitive":"yes"}]}`, `key "settings[0].sensitive" must be true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseExtensionManifest(file, []byte(tt.json), nil, nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseExtensionManifestVariables(t *testing.T) {
	data := `{
  "name": "demo", "version": "1.0.0",
  "contextFileName": "CTX.md",
  "excludeTools": ["run_shell_command(rm -rf)"],
  "plan": {"directory": "${workspacePath}${/}plans"},
  "mcpServers": {"s": {"command": "${extensionPath}${/}bin${pathSeparator}srv", "cwd": "${workspacePath}",
    "env": {"KEY": "$API_KEY", "HOME_DIR": "${HOME}", "UNSET": "${NOPE:-fallback}"}, "timeout": 5000, "trust": true}},
  "settings": [{"name": "API key", "envVar": "API_KEY", "sensitive": true}]
}`
	vars := ExtensionVars("/ext", "/ws")
	lookup := func(k string) (string, bool) {
		if k == "HOME" {
			return "/home/me", true
		}
		return "", false
	}
	m, err := ParseExtensionManifest("f", []byte(data), vars, map[string]string{"API_KEY": "secret"}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	s := m.MCPServers["s"].(map[string]any)
	sep := string(filepath.Separator)
	env := s["env"].(map[string]any)
	switch {
	case s["command"] != "/ext"+sep+"bin"+sep+"srv", s["cwd"] != "/ws":
		t.Errorf("paths = %v %v", s["command"], s["cwd"])
	case env["KEY"] != "secret", env["HOME_DIR"] != "/home/me", env["UNSET"] != "fallback":
		t.Errorf("env = %v", env)
	case s["trust"] != nil:
		t.Error("an extension's server kept trust: true")
	case s["timeout"] != float64(5000):
		t.Errorf("timeout = %#v", s["timeout"])
	case len(m.ContextFileNames) != 1 || m.ContextFileNames[0] != "CTX.md":
		t.Errorf("context = %v", m.ContextFileNames)
	case len(m.Settings) != 1 || !m.Settings[0].Sensitive:
		t.Errorf("settings = %+v", m.Settings)
	case m.PlanDirectory != "/ws"+sep+"plans":
		t.Errorf("plan.directory = %q", m.PlanDirectory)
	}
}

// extensionFixture installs extensions under root/home/.gemini/extensions.
func extensionFixture(t *testing.T) (root string) {
	root = t.TempDir()
	ext := "home/.gemini/extensions/"
	writeTree(t, root, map[string]string{
		ext + "alpha/gemini-extension.json":           `{"name":"alpha","version":"1.0.0","description":"first","excludeTools":["write_file"],"mcpServers":{"a":{"command":"${extensionPath}/srv","env":{"TOKEN":"$TOKEN"}}},"settings":[{"name":"Token","envVar":"TOKEN"}]}`,
		ext + "alpha/GEMINI.md":                       "alpha context",
		ext + "alpha/.env":                            "TOKEN=from-env-file\nUNDECLARED=x\n",
		ext + "alpha/commands/hello.toml":             `prompt = "hi"`,
		ext + "beta/gemini-extension.json":            `{"name":"beta","version":"2.0.0","contextFileName":["B.md","missing.md"]}`,
		ext + "beta/B.md":                             "beta context",
		ext + "broken/gemini-extension.json":          `{"name":"broken",`,
		ext + "dup/gemini-extension.json":             `{"name":"alpha","version":"9"}`,
		ext + "escape/gemini-extension.json":          `{"name":"escape","version":"1","contextFileName":"../alpha/GEMINI.md"}`,
		ext + "linked/.gemini-extension-install.json": `{"source":"` + filepath.ToSlash(filepath.Join(root, "src", "gamma")) + `","type":"link"}`,
		"src/gamma/gemini-extension.json":             `{"name":"gamma","version":"0.1.0"}`,
		"src/gamma/GEMINI.md":                         "gamma context",
		ext + "notadir":                               "x",
		ext + "extension-enablement.json":             `{"beta":{"overrides":["!` + filepath.ToSlash(filepath.Join(root, "ws")) + `/*"]}}`,
		"ws/":                                         "",
	})
	return root
}

// describeExtensions prints extensions and warnings for golden files.
func describeExtensions(exts []*Extension, warnings []string) string {
	var b strings.Builder
	for _, e := range exts {
		servers, _ := json.Marshal(e.MCPServers)
		fmt.Fprintf(&b, "%s %s active=%t path=%s\n  context=%v\n  exclude=%v servers=%s env=%v\n", e.Name, e.Version, e.Active, filepath.ToSlash(e.Path),
			e.ContextFiles, e.ExcludeTools, servers, e.Env)
	}
	sort.Strings(warnings)
	for _, w := range warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

func TestLoadExtensionsGolden(t *testing.T) {
	root := extensionFixture(t)
	tests := []struct {
		name    string
		enabled []string
	}{
		{"default", nil},
		{"only-beta", []string{"BETA", "nosuch"}},
		{"none", []string{"none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exts, warnings := LoadExtensions(ExtensionsOptions{
				GeminiDir: filepath.Join(root, "home", ".gemini"),
				Workspace: filepath.Join(root, "ws"),
				Enabled:   tt.enabled,
				Lookup:    func(string) (string, bool) { return "", false },
			})
			checkGolden(t, "extensions/"+tt.name+".golden", describeExtensions(exts, warnings), root)
		})
	}
}

func TestEnablementRules(t *testing.T) {
	dir := t.TempDir()
	en := &Enablement{Path: filepath.Join(dir, "extension-enablement.json")}
	check := func(folder string, want bool) {
		t.Helper()
		if got := en.Enabled("x", folder); got != want {
			t.Errorf("Enabled(x, %s) = %t, want %t", folder, got, want)
		}
	}
	check("/home/me/p", true)
	if err := en.SetEnabled("x", "/home/me", false); err != nil {
		t.Fatal(err)
	}
	check("/home/me", false)
	check("/home/me/p/q", false)
	check("/home/other", true)
	check("/home/meme", true)
	if err := en.SetEnabled("x", "/home/me/p", true); err != nil {
		t.Fatal(err)
	}
	check("/home/me/p/q", true)
	check("/home/me/r", false)
	// Disabling the parent again replaces the child rule it covers.
	if err := en.SetEnabled("x", "/home/me", false); err != nil {
		t.Fatal(err)
	}
	check("/home/me/p", false)
	data, _ := os.ReadFile(en.Path)
	if want := `{
  "x": {
    "overrides": [
      "!/home/me/*"
    ]
  }
}`; string(data) != want {
		t.Errorf("file = %s", data)
	}
	if err := en.Remove("x"); err != nil {
		t.Fatal(err)
	}
	check("/home/me", true)
	// -e wins over the file.
	en.Only = []string{"X"}
	check("/anything", true)
	en.Only = []string{"none"}
	check("/anything", false)
	// A broken file is an error naming it, and counts as no rules.
	en.Only = nil
	os.WriteFile(en.Path, []byte(`{"x":`), 0o644)
	if _, err := en.Read(); err == nil || !strings.Contains(err.Error(), en.Path) {
		t.Errorf("broken file: %v", err)
	}
	check("/home/me", true)
}
