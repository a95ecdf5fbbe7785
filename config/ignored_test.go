package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestIgnoredSettings: which keys of a user settings file are reported,
// and how.
func TestIgnoredSettings(t *testing.T) {
	tests := []struct {
		name, user string
		want       []string // "key status"
	}{
		{"unknown top-level key", `{"generl": {"x": 1}}`, []string{"generl unknown"}},
		{"unknown nested key", `{"ui": {"themee": "x"}}`, []string{"ui.themee unknown"}},
		{"unsupported key", `{"security": {"autoAddToPolicyByDefault": true}}`,
			[]string{"security.autoAddToPolicyByDefault not supported"}},
		{"cosmetic key", `{"ui": {"theme": "GitHub", "footer": {"hideCWD": true}}}`,
			[]string{"ui.footer.hideCWD cosmetic"}},
		{"not applicable key", `{"general": {"devtools": true, "debugKeystrokeLogging": true}}`,
			[]string{"general.debugKeystrokeLogging not applicable", "general.devtools not applicable"}},
		{"honoured keys are silent", `{"model": {"name": "gemini-2.5-flash", "maxSessionTurns": 3},
			"tools": {"exclude": ["x"], "grepMaxMatches": 500}, "context": {"fileName": ["A.md"]},
			"security": {"folderTrust": {"enabled": true}, "auth": {"selectedType": "gemini-api-key"}},
			"ui": {"accessibility": {"screenReader": true}}, "experimental": {"jitContext": false}}`, nil},
		{"defaults are silent", `{"security": {"autoAddToPolicyByDefault": false, "enableConseca": false},
			"ui": {"hideBanner": false, "loadingPhrases": "off"}, "general": {"sessionRetention": {"maxAge": "30d"}},
			"advanced": {"excludedEnvVars": ["DEBUG", "DEBUG_MODE"]}}`, nil},
		{"what Castor does anyway is silent", `{"privacy": {"usageStatisticsEnabled": false},
			"general": {"enableAutoUpdate": false}, "telemetry": {"enabled": false}}`, nil},
		{"null is not set", `{"ui": {"theme": null}, "tools": {"sandbox": null}}`, nil},
		{"named members of maps are not keys", `{
			"mcpServers": {"github": {"command": "gh", "someFutureField": 1}},
			"hooks": {"BeforeTool": [], "NotAnEvent": [], "disabled": []},
			"agents": {"overrides": {"reviewer": {"enabled": false}}},
			"ui": {"customThemes": {}}}`, nil},
		{"a named member of an honoured map is silent", `{"ui": {"customThemes": {"mine": {"type": "custom"}}}}`, nil},
		{"a group that is not an object", `{"ui": {"footer": 3}}`, []string{"ui.footer unknown"}},
		{"editor metadata", `{"$schema": "https://example.com/settings.schema.json"}`, nil},
		{"flat V1 keys are named as nested", `{"vimMode": true, "shellPager": "less", "model": "gemini-2.5-pro"}`,
			[]string{"tools.shell.pager not supported"}},
		{"a dropped V1 key", `{"autoAccept": true}`, []string{"tools.autoAccept not applicable"}},
		{"admin settings", `{"admin": {"secureModeEnabled": true}}`, []string{"admin not applicable"}},
		// Gemini CLI stopped reading extensions.disabled when it dropped
		// its migration to extension-enablement.json.
		{"extensions.disabled is no longer read", `{"extensions": {"disabled": ["kit"]}}`,
			[]string{"extensions.disabled not applicable"}},
		{"extension security keys are honoured", `{"security": {"allowedExtensions": ["github\\.com/acme/"], "blockGitExtensions": true}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _ := settingsFixture{user: tt.user, env: trustAll}.setup(t)
			s, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(opts.HomeDir, ".gemini", "settings.json")
			var got []string
			for _, ig := range s.IgnoredSettings() {
				if ig.File != file {
					t.Errorf("%s reported in %s, want %s", ig.Key, ig.File, file)
				}
				got = append(got, ig.Key+" "+ig.Status.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestIgnoredSettingsLayers: every layer in use is looked at and named;
// the workspace file of an untrusted folder, which is not read, is not.
func TestIgnoredSettingsLayers(t *testing.T) {
	fix := settingsFixture{
		systemDefaults: `{"ui": {"hideBanner": true}}`,
		user:           `{"ui": {"footer": {"hideCWD": true}}}`,
		workspace:      `{"security": {"autoAddToPolicyByDefault": true}}`,
		system:         `{"billing": {"overageStrategy": "never"}}`,
	}
	for _, trusted := range []bool{true, false} {
		f := fix
		if trusted {
			f.env = trustAll
		} else {
			f.trusted = `{"$ROOT/ws": "DO_NOT_TRUST"}`
		}
		opts, root := f.setup(t)
		s, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ig := range s.IgnoredSettings() {
			rel, _ := filepath.Rel(root, ig.File)
			got = append(got, filepath.ToSlash(rel)+" "+ig.Key)
		}
		want := []string{"etc/system-defaults.json ui.hideBanner", "home/.gemini/settings.json ui.footer.hideCWD"}
		if trusted {
			want = append(want, "ws/.gemini/settings.json security.autoAddToPolicyByDefault")
		}
		want = append(want, "etc/settings.json billing.overageStrategy")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("trusted=%v: got %q\nwant %q", trusted, got, want)
		}
	}
}

// TestIgnoredSettingString: the warning names the file, the key and what
// happens.
func TestIgnoredSettingString(t *testing.T) {
	tests := []struct {
		in   IgnoredSetting
		want string
	}{
		{IgnoredSetting{"/h/settings.json", "security.autoAddToPolicyByDefault", SettingUnsupported, ""},
			"/h/settings.json: security.autoAddToPolicyByDefault is not supported by Castor yet; ignored"},
		{IgnoredSetting{"/h/settings.json", "tools.sandbox", SettingUnsupported, "tools run without a sandbox"},
			"/h/settings.json: tools.sandbox is not supported by Castor yet (tools run without a sandbox); ignored"},
		{IgnoredSetting{"/h/settings.json", "ui.hideTips", SettingCosmetic, ""},
			"/h/settings.json: ui.hideTips is a display option of Gemini CLI's UI that Castor's terminal UI does not have; ignored"},
		{IgnoredSetting{"/h/settings.json", "telemetry.enabled", SettingNotApplicable, "Castor sends no telemetry"},
			"/h/settings.json: telemetry.enabled does not apply to Castor (Castor sends no telemetry); ignored"},
		{IgnoredSetting{"/h/settings.json", "generl", SettingUnknown, ""},
			"/h/settings.json: generl is not a setting Castor knows (a typo, or a newer Gemini CLI setting?); ignored"},
		{IgnoredSetting{"/h/settings.json", "", SettingUnknown, ""},
			`/h/settings.json: "" is not a setting Castor knows (a typo, or a newer Gemini CLI setting?); ignored`},
		{IgnoredSetting{"/h/settings.json", "ui.footer", SettingUnknown, "should be an object"},
			"/h/settings.json: ui.footer should be an object; ignored"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

// TestIgnoredExtensionKeys: an extension's manifest keys Castor does not
// use are reported with the manifest's path.
func TestIgnoredExtensionKeys(t *testing.T) {
	root := realTempDir(t)
	writeTree(t, root, map[string]string{"ext/gemini-extension.json": `{
		"name": "demo", "version": "1.0.0", "description": "d",
		"mcpServers": {"s": {"command": "x", "anything": 1}}, "contextFileName": "DEMO.md",
		"excludeTools": ["x"], "settings": [{"name": "N", "envVar": "E"}],
		"themes": [{"name": "t"}], "plan": {"directory": "plans"}, "homepage": "https://example.com"}`})
	ext := &Extension{Name: "demo", Path: filepath.Join(root, "ext")}
	var got []string
	for _, ig := range IgnoredExtensionKeys(ext) {
		if !strings.HasSuffix(ig.File, filepath.Join("ext", "gemini-extension.json")) {
			t.Errorf("%s reported in %s", ig.Key, ig.File)
		}
		got = append(got, ig.Key+" "+ig.Status.String())
	}
	want := []string{"homepage unknown", "themes cosmetic"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := IgnoredExtensionKeys(&Extension{Path: filepath.Join(root, "missing")}); got != nil {
		t.Errorf("missing manifest: got %v", got)
	}
}

// FuzzIgnoredSettings: any settings file parses and walks without a
// panic, and every report is one line naming a key.
func FuzzIgnoredSettings(f *testing.F) {
	for _, s := range []string{
		`{"ui": {"theme": "x", "footer": 3}, "generl": 1}`,
		`{"mcpServers": {"a": {}}, "hooks": {"X": []}, "vimMode": true}`,
		`{"a": {"b": {"c": [1, {"d": null}]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := parseSettings(data)
		if err != nil {
			return
		}
		for _, ig := range ignoredIn("f", obj, settingsIndex.Get()) {
			line := ig.String()
			if ig.Status == SettingHonoured || strings.ContainsAny(line, "\n\r") || strings.HasPrefix(line, "f:  ") {
				t.Errorf("bad report %q", line)
			}
		}
	})
}
