package config

import (
	"strings"
	"testing"
)

// FuzzParseExtensionManifest feeds arbitrary gemini-extension.json files
// (outside input: anyone can publish an extension) to the parser: it must
// not panic, an error must name the file, and a manifest it accepts has a
// valid name and a version.
func FuzzParseExtensionManifest(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","version":"1.0.0"}`,
		`{"name":"a-b","version":"1","contextFileName":["A.md","B.md"],"excludeTools":["x"],"mcpServers":{"s":{"command":"${extensionPath}${/}x","args":["$HOME"],"timeout":1}},"settings":[{"name":"n","envVar":"V","sensitive":true}]}`,
		`{"name":"a","version":"1","contextFileName":3}`,
		`{"name":"a","version":"1"} trailing`,
		`{"name":`,
		`[]`,
		`null`,
		`{"name":"${extensionPath}","version":"${NOPE:-1}"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseExtensionManifest("/ext/gemini-extension.json", data, ExtensionVars("/ext", "/ws"), map[string]string{"V": "v"}, func(string) (string, bool) { return "", false })
		if err != nil {
			if !strings.Contains(err.Error(), "/ext/gemini-extension.json") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if !ValidExtensionName(m.Name) || m.Version == "" {
			t.Errorf("accepted name %q version %q", m.Name, m.Version)
		}
	})
}

// FuzzEnablement feeds arbitrary extension-enablement.json rules: asking
// about any folder never panics.
func FuzzEnablement(f *testing.F) {
	f.Add(`!/home/me/*`, "/home/me/p")
	f.Add(`/a/b/`, "/a/b")
	f.Add(`*`, "")
	f.Add(`[(.+?`, `\x`)
	f.Fuzz(func(t *testing.T, rule, folder string) {
		o := parseOverride(rule)
		_ = o.matches(slashed(folder))
	})
}
