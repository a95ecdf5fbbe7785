package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// settingsFixture lays out a home, a workspace and system files under one
// temporary root and returns the options that load them.
type settingsFixture struct {
	systemDefaults, user, workspace, system, trusted string // file contents; "" = no file
	env                                              map[string]string
}

func (f settingsFixture) setup(t *testing.T) (LoadOptions, string) {
	t.Helper()
	root := realTempDir(t)
	files := map[string]string{"home/": "", "ws/": ""}
	if f.systemDefaults != "" {
		files["etc/system-defaults.json"] = f.systemDefaults
	}
	if f.system != "" {
		files["etc/settings.json"] = f.system
	}
	if f.user != "" {
		files["home/.gemini/settings.json"] = f.user
	}
	if f.workspace != "" {
		files["ws/.gemini/settings.json"] = f.workspace
	}
	if f.trusted != "" {
		files["home/.gemini/trustedFolders.json"] = strings.ReplaceAll(f.trusted, "$ROOT", root)
	}
	writeTree(t, root, files)
	env := map[string]string{}
	for k, v := range f.env {
		env[k] = v
	}
	return LoadOptions{
		Workspace:          filepath.Join(root, "ws"),
		HomeDir:            filepath.Join(root, "home"),
		SystemSettingsPath: filepath.Join(root, "etc", "settings.json"),
		SystemDefaultsPath: filepath.Join(root, "etc", "system-defaults.json"),
		Env:                EnvMap(env),
	}, root
}

// trustAll makes every test folder trusted unless a test says otherwise.
var trustAll = map[string]string{EnvTrustWorkspace: "true"}

func TestLoadLayers(t *testing.T) {
	tests := []struct {
		name  string
		fix   settingsFixture
		check func(t *testing.T, s *Settings)
	}{
		{
			name: "defaults",
			fix:  settingsFixture{env: trustAll},
			check: func(t *testing.T, s *Settings) {
				want := ModelSettings{MaxSessionTurns: -1, CompressionThreshold: 0.5, SkipNextSpeakerCheck: true}
				if s.Model != want {
					t.Errorf("Model = %+v, want %+v", s.Model, want)
				}
				if s.General.MaxAttempts != 10 || s.General.DefaultApprovalMode != "default" {
					t.Errorf("General = %+v", s.General)
				}
				c := s.Context
				if !reflect.DeepEqual(c.FileNames, []string{"GEMINI.md"}) || !c.IncludeDirectoryTree || c.DiscoveryMaxDirs != 200 ||
					!c.FileFiltering.RespectGitIgnore || !c.FileFiltering.RespectGeminiIgnore || c.ImportFormat != "tree" ||
					!reflect.DeepEqual(c.MemoryBoundaryMarkers, []string{".git"}) {
					t.Errorf("Context = %+v", c)
				}
				if !s.Tools.UseRipgrep || s.Tools.TruncateToolOutputThreshold != 40000 || s.Tools.Core != nil || s.Tools.Exclude != nil {
					t.Errorf("Tools = %+v", s.Tools)
				}
				if !s.Security.FolderTrust || s.IDE.Enabled || s.MCP.Allowed != nil {
					t.Errorf("Security = %+v IDE = %+v MCP = %+v", s.Security, s.IDE, s.MCP)
				}
				if v, ok := s.Get("model.maxSessionTurns"); !ok || v != -1.0 {
					t.Errorf("Get(model.maxSessionTurns) = %v, %v", v, ok)
				}
			},
		},
		{
			name: "precedence",
			fix: settingsFixture{
				systemDefaults: `{"model": {"name": "from-defaults", "maxSessionTurns": 5}, "ui": {"theme": "d"}}`,
				user:           `{"model": {"name": "from-user"}, "ui": {"hideBanner": true}}`,
				workspace:      `{"model": {"name": "from-workspace"}, "general": {"maxAttempts": 3}}`,
				system:         `{"general": {"maxAttempts": 7}}`,
				env:            trustAll,
			},
			check: func(t *testing.T, s *Settings) {
				if s.Model.Name != "from-workspace" || s.Model.MaxSessionTurns != 5 || s.General.MaxAttempts != 7 {
					t.Errorf("Model = %+v General = %+v", s.Model, s.General)
				}
				if v, _ := s.GetString("ui.theme"); v != "d" {
					t.Errorf("ui.theme = %q", v)
				}
				if v, _ := s.GetBool("ui.hideBanner"); !v {
					t.Errorf("ui.hideBanner lost in deep merge")
				}
			},
		},
		{
			name: "merge strategies",
			fix: settingsFixture{
				user: `{
					"context": {"includeDirectories": ["a", "b"]},
					"tools": {"exclude": ["x", "y"], "core": ["read_file"]},
					"mcpServers": {"one": {"command": "u1", "args": ["-v"]}, "two": {"command": "u2"}}
				}`,
				workspace: `{
					"context": {"includeDirectories": ["b", "c"]},
					"tools": {"exclude": ["y", "z"], "core": ["glob"]},
					"mcpServers": {"one": {"url": "http://w1"}}
				}`,
				env: trustAll,
			},
			check: func(t *testing.T, s *Settings) {
				if got := s.Context.IncludeDirectories; !reflect.DeepEqual(got, []string{"a", "b", "b", "c"}) {
					t.Errorf("includeDirectories (concat) = %v", got)
				}
				if got := s.Tools.Exclude; !reflect.DeepEqual(got, []string{"x", "y", "z"}) {
					t.Errorf("tools.exclude (union) = %v", got)
				}
				if got := s.Tools.Core; !reflect.DeepEqual(got, []string{"glob"}) {
					t.Errorf("tools.core (replace) = %v", got)
				}
				one := s.MCPServers["one"].(map[string]any)
				if _, hasCmd := one["command"]; hasCmd || one["url"] != "http://w1" {
					t.Errorf("mcpServers.one should be replaced whole: %v", one)
				}
				if _, ok := s.MCPServers["two"]; !ok {
					t.Errorf("mcpServers.two lost: %v", s.MCPServers)
				}
			},
		},
		{
			name: "v1 flat keys",
			fix: settingsFixture{
				user: `{
					"theme": "GitHub",
					"model": "gemini-2.5-flash",
					"coreTools": ["read_file"],
					"excludeTools": ["run_shell_command"],
					"allowedTools": ["ls"],
					"maxSessionTurns": 12,
					"contextFileName": ["AGENTS.md", "GEMINI.md"],
					"autoAccept": true,
					"selectedAuthType": "gemini-api-key",
					"preferredEditor": "vim",
					"checkpointing": {"enabled": true},
					"fileFiltering": {"respectGitIgnore": false},
					"chatCompression": {"contextPercentageThreshold": 0.7},
					"folderTrust": false,
					"ideMode": true,
					"allowMCPServers": ["a"],
					"mcpServers": {"s": {"command": "x"}},
					"disableAutoUpdate": true,
					"tools": {"sandbox": true}
				}`,
			},
			check: func(t *testing.T, s *Settings) {
				if s.Model.Name != "gemini-2.5-flash" || s.Model.MaxSessionTurns != 12 || s.Model.CompressionThreshold != 0.7 {
					t.Errorf("Model = %+v", s.Model)
				}
				if !reflect.DeepEqual(s.Tools.Core, []string{"read_file"}) || !reflect.DeepEqual(s.Tools.Exclude, []string{"run_shell_command"}) ||
					!reflect.DeepEqual(s.Tools.Allowed, []string{"ls"}) || s.Tools.Sandbox != true {
					t.Errorf("Tools = %+v", s.Tools)
				}
				if !reflect.DeepEqual(s.Context.FileNames, []string{"AGENTS.md", "GEMINI.md"}) || s.Context.FileFiltering.RespectGitIgnore {
					t.Errorf("Context = %+v", s.Context)
				}
				if s.Security.Auth.SelectedType != "gemini-api-key" || s.Security.FolderTrust || !s.IDE.Enabled {
					t.Errorf("Security = %+v IDE = %+v", s.Security, s.IDE)
				}
				if s.General.PreferredEditor != "vim" || !s.General.Checkpointing {
					t.Errorf("General = %+v", s.General)
				}
				if v, _ := s.GetString("ui.theme"); v != "GitHub" {
					t.Errorf("ui.theme = %q", v)
				}
				if v, _ := s.GetBool("tools.autoAccept"); !v {
					t.Errorf("tools.autoAccept not migrated")
				}
				if v, _ := s.GetBool("general.enableAutoUpdate"); v {
					t.Errorf("disableAutoUpdate should become enableAutoUpdate=false")
				}
				if !reflect.DeepEqual(s.MCP.Allowed, []string{"a"}) || s.MCPServers["s"] == nil {
					t.Errorf("MCP = %+v servers = %v", s.MCP, s.MCPServers)
				}
				// Folder trust was switched off by the V1 key, so the folder
				// is trusted without any rule.
				if s.Trust.State != Trusted || s.Trust.Source != TrustSourceDisabled {
					t.Errorf("Trust = %+v", s.Trust)
				}
			},
		},
		{
			name: "deprecated v2 keys",
			fix: settingsFixture{
				user: `{"tools": {"approvalMode": "auto_edit"}, "experimental": {"plan": true}}`,
				env:  trustAll,
			},
			check: func(t *testing.T, s *Settings) {
				if s.General.DefaultApprovalMode != "auto_edit" {
					t.Errorf("defaultApprovalMode = %q", s.General.DefaultApprovalMode)
				}
				if v, _ := s.GetBool("general.plan.enabled"); !v {
					t.Errorf("general.plan.enabled not set")
				}
				if _, ok := s.Get("tools.approvalMode"); ok {
					t.Errorf("tools.approvalMode should be gone")
				}
			},
		},
		{
			name: "env expansion",
			fix: settingsFixture{
				user: `{
					// comments and trailing commas are fine
					"model": {"name": "${MODEL:-gemini-pro}",},
					"mcpServers": {"gh": {"env": {"TOKEN": "$GH_TOKEN", "HOME": "${NOPE}"}}},
				}`,
				env: map[string]string{"GH_TOKEN": "t0k", EnvTrustWorkspace: "true"},
			},
			check: func(t *testing.T, s *Settings) {
				if s.Model.Name != "gemini-pro" {
					t.Errorf("model.name = %q", s.Model.Name)
				}
				env := s.MCPServers["gh"].(map[string]any)["env"].(map[string]any)
				if env["TOKEN"] != "t0k" || env["HOME"] != "${NOPE}" {
					t.Errorf("env = %v", env)
				}
			},
		},
		{
			name: "untrusted workspace is skipped",
			fix: settingsFixture{
				user:      `{"model": {"name": "user"}}`,
				workspace: `{"model": {"name": "workspace"}}`,
			},
			check: func(t *testing.T, s *Settings) {
				if s.Model.Name != "user" {
					t.Errorf("model.name = %q; untrusted workspace settings must not apply", s.Model.Name)
				}
				if s.Trust.State != TrustUnknown || s.Trust.HeadlessTrustError() == nil {
					t.Errorf("Trust = %+v", s.Trust)
				}
				if ws := s.Files[2]; ws.Scope != ScopeWorkspace || !ws.Exists || ws.Skipped == "" {
					t.Errorf("workspace layer = %+v", ws)
				}
			},
		},
		{
			name: "trusted by rules file",
			fix: settingsFixture{
				workspace: `{"model": {"name": "workspace"}}`,
				trusted:   `{"$ROOT": "TRUST_FOLDER"}`,
			},
			check: func(t *testing.T, s *Settings) {
				if s.Model.Name != "workspace" || s.Trust.Source != TrustSourceFile {
					t.Errorf("model.name = %q trust = %+v", s.Model.Name, s.Trust)
				}
			},
		},
		{
			name: "workspace cannot disable folder trust for itself",
			fix: settingsFixture{
				workspace: `{"security": {"folderTrust": {"enabled": false}}, "model": {"name": "sneaky"}}`,
			},
			check: func(t *testing.T, s *Settings) {
				if s.Model.Name != "" || s.Trust.IsTrusted() {
					t.Errorf("model.name = %q trust = %+v", s.Model.Name, s.Trust)
				}
			},
		},
		{
			name: "broken workspace file in untrusted folder only warns",
			fix:  settingsFixture{workspace: `{"model": `},
			check: func(t *testing.T, s *Settings) {
				if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "not trusted") {
					t.Errorf("Warnings = %q", s.Warnings)
				}
			},
		},
		{
			name: "a fractional integer falls back with a warning",
			fix: settingsFixture{
				user: `{"model": {"compressionThreshold": 0.3}, "general": {"maxAttempts": 2.5}}`,
				env:  trustAll,
			},
			check: func(t *testing.T, s *Settings) {
				if s.Model.CompressionThreshold != 0.3 || s.General.MaxAttempts != 10 {
					t.Errorf("Model = %+v General = %+v", s.Model, s.General)
				}
				if len(s.Warnings) != 1 {
					t.Errorf("Warnings = %q", s.Warnings)
				}
			},
		},
		{
			name: "a mistyped workspace file in an untrusted folder is ignored",
			fix:  settingsFixture{workspace: `{"model": "x"}`},
			check: func(t *testing.T, s *Settings) {
				if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "model: expected an object") {
					t.Errorf("Warnings = %q", s.Warnings)
				}
			},
		},
		{
			name: "mcp allow lists intersect, exclude lists add up",
			fix: settingsFixture{
				systemDefaults: `{"mcp": {"allowed": ["A", "b", "c"], "excluded": ["x"]}}`,
				user:           `{"mcp": {"allowed": ["a", " C "], "excluded": ["y"]}}`,
				env:            trustAll,
			},
			check: func(t *testing.T, s *Settings) {
				if !reflect.DeepEqual(s.MCP.Allowed, []string{"A", "c"}) {
					t.Errorf("Allowed = %q", s.MCP.Allowed)
				}
				if !reflect.DeepEqual(s.MCP.Excluded, []string{"x", "y"}) {
					t.Errorf("Excluded = %q", s.MCP.Excluded)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _ := tt.fix.setup(t)
			s, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		fix  settingsFixture
		want []string // substrings of the error
	}{
		{
			name: "malformed user file",
			fix:  settingsFixture{user: "{\n  \"model\": {\n    \"name\": \"x\"\n  }\n  \"ui\": {}\n}"},
			want: []string{"home/.gemini/settings.json", "line 5, column 3", "Please fix the configuration file(s)"},
		},
		{
			name: "not an object",
			fix:  settingsFixture{system: `["a"]`},
			want: []string{"etc/settings.json", "Settings file is not a valid JSON object."},
		},
		{
			name: "every bad file is named",
			fix:  settingsFixture{user: `{`, systemDefaults: `nope`, env: trustAll},
			want: []string{"system-defaults.json", "home/.gemini/settings.json"},
		},
		{
			name: "broken workspace file in trusted folder",
			fix:  settingsFixture{workspace: `{"a": 1,, }`, env: trustAll},
			want: []string{"ws/.gemini/settings.json", "line 1, column 9"},
		},
		{
			// Gemini CLI 0.61 stopped reading V1 files: a V2 group name with
			// a scalar is a wrong type, not a V1 key.
			name: "wrong type",
			fix:  settingsFixture{user: `{"model": "x"}`},
			want: []string{"home/.gemini/settings.json", "Invalid configuration: model: expected an object, got string \"x\""},
		},
		{
			name: "wrong types are all listed",
			fix: settingsFixture{
				user: `{"model": {"maxSessionTurns": "ten"}, "tools": {"core": "read_file"}, "security": {"folderTrust": {"enabled": "false"}}}`,
				env:  trustAll,
			},
			want: []string{"model.maxSessionTurns: expected a number, got string \"ten\"", "tools.core: expected an array of strings", "security.folderTrust.enabled: expected a boolean"},
		},
		{
			name: "unknown approval mode",
			fix:  settingsFixture{workspace: `{"general": {"defaultApprovalMode": "always"}}`, env: trustAll},
			want: []string{"ws/.gemini/settings.json", "general.defaultApprovalMode: expected one of default, auto_edit, autoEdit, yolo, plan, got string \"always\""},
		},
		{
			name: "bad trusted folders file",
			fix:  settingsFixture{trusted: `{"/x": "TRUST_EVERYTHING"}`},
			want: []string{"trustedFolders.json", `Invalid trust level "TRUST_EVERYTHING" for path "/x"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _ := tt.fix.setup(t)
			_, err := Load(opts)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ConfigError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	opts, root := settingsFixture{user: `{}`}.setup(t)
	p := filepath.Join(root, "home", ".gemini", "settings.json")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	_, err := Load(opts)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadWorkspaceIsHome(t *testing.T) {
	opts, root := settingsFixture{user: `{"model": {"name": "user"}}`, env: trustAll}.setup(t)
	opts.Workspace = filepath.Join(root, "home")
	s, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Name != "user" || s.Files[2].Skipped == "" {
		t.Errorf("model = %q workspace layer = %+v", s.Model.Name, s.Files[2])
	}
}

func TestLoadSystemPathsFromEnv(t *testing.T) {
	root := realTempDir(t)
	writeTree(t, root, map[string]string{
		"sys/settings.json":        `{"model": {"name": "system"}}`,
		"sys/system-defaults.json": `{"ide": {"enabled": true}}`,
		"home/":                    "",
	})
	s, err := Load(LoadOptions{
		Workspace: root,
		HomeDir:   filepath.Join(root, "home"),
		Env: EnvMap(map[string]string{
			EnvSystemSettings: filepath.Join(root, "sys", "settings.json"),
			EnvTrustWorkspace: "true",
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	// The defaults file follows the settings file's directory.
	if s.Model.Name != "system" || !s.IDE.Enabled {
		t.Errorf("model = %q ide = %v", s.Model.Name, s.IDE.Enabled)
	}
}

func TestLoadMergedGolden(t *testing.T) {
	opts, _ := settingsFixture{
		systemDefaults: `{"general": {"vimMode": true}, "hooks": {"BeforeTool": [{"command": "a"}]}}`,
		user: `{
			"theme": "Dracula",
			"excludeTools": ["web_fetch"],
			"mcpServers": {"files": {"command": "npx", "args": ["server-filesystem", "$HOME_DIR"]}},
			"hooks": {"BeforeTool": [{"command": "b"}], "Custom": ["x"]},
			"advanced": {"excludedEnvVars": ["DEBUG", "MY_VAR"]}
		}`,
		workspace: `{"tools": {"exclude": ["glob"]}, "hooks": {"Custom": ["y"]}, "context": {"fileName": "AGENTS.md"}}`,
		system:    `{"admin": {"secureModeEnabled": true}, "security": {"auth": {"enforcedType": "oauth-personal"}}}`,
		env:       map[string]string{"HOME_DIR": "/home/me", EnvTrustWorkspace: "true"},
	}.setup(t)
	s, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(s.Raw(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "settings/merged.golden.json", string(b)+"\n", "")
}
