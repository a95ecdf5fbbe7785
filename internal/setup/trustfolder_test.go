package setup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/policy"
)

// trustWorkspace is a folder whose settings turn on auto_edit, which shows
// whether its layer was applied.
func trustWorkspace(t *testing.T) (ws, home string) {
	t.Helper()
	ws, _ = filepath.EvalSymlinks(t.TempDir())
	home = t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gemini", "settings.json"), []byte(`{"general": {"defaultApprovalMode": "auto_edit"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, home
}

// TestAskTrust runs New in a folder no rule decides, with each answer of
// the question: a level is saved in Gemini CLI's format and applied, no
// answer leaves the folder untrusted for the session without saving, and
// an error ends New before anything was saved.
func TestAskTrust(t *testing.T) {
	stop := errors.New("left the dialog")
	for _, tc := range []struct {
		name    string
		level   config.TrustLevel
		err     error
		trusted bool
		saved   map[string]config.TrustLevel
	}{
		{name: "trust folder", level: config.TrustFolder, trusted: true},
		{name: "trust parent", level: config.TrustParent, trusted: true},
		{name: "don't trust", level: config.DoNotTrust},
		{name: "no answer", level: ""},
		{name: "left", err: stop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, home := trustWorkspace(t)
			var asked []TrustQuestion
			a, err := New(context.Background(), Options{
				WorkDir: ws, HomeDir: home, Env: envOf(func(string) string { return "" }),
				DisableRecording: true, Client: noModel{},
				AskTrust: func(_ context.Context, q TrustQuestion) (config.TrustLevel, error) {
					asked = append(asked, q)
					return tc.level, tc.err
				},
			})
			if len(asked) != 1 || asked[0].Folder != ws || len(asked[0].Found.Settings) != 1 {
				t.Errorf("questions %+v, want one about %s listing its settings", asked, ws)
			}
			rules, lerr := config.LoadTrustedFolders(filepath.Join(home, ".gemini", "trustedFolders.json"))
			if lerr != nil {
				t.Fatal(lerr)
			}
			want := map[string]config.TrustLevel{}
			if tc.level != "" && tc.err == nil {
				want[ws] = tc.level
			}
			if !reflect.DeepEqual(rules.Rules, want) {
				t.Errorf("saved rules %v, want %v", rules.Rules, want)
			}
			if tc.err != nil {
				if !errors.Is(err, stop) {
					t.Errorf("New = %v, want the question's error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			mode := a.Policy.Mode()
			if a.Trusted != tc.trusted || (mode == policy.ModeAutoEdit) != tc.trusted {
				t.Errorf("trusted %v with mode %s, want trusted %v and the folder's auto_edit only then", a.Trusted, mode, tc.trusted)
			}
		})
	}
}

// TestAskTrustOnlyWhenUndecided: a rule, the environment or headless
// enforcement decide without a question.
func TestAskTrustOnlyWhenUndecided(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rule    config.TrustLevel
		env     string
		enforce bool
		wantErr bool
	}{
		{name: "trusted rule", rule: config.TrustFolder},
		{name: "distrusted rule", rule: config.DoNotTrust},
		{name: "environment", env: "true"},
		{name: "headless", enforce: true, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, home := trustWorkspace(t)
			if tc.rule != "" {
				tf := &config.TrustedFolders{Path: filepath.Join(home, ".gemini", "trustedFolders.json")}
				if err := os.MkdirAll(filepath.Dir(tf.Path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := tf.Set(ws, tc.rule); err != nil {
					t.Fatal(err)
				}
			}
			a, err := New(context.Background(), Options{
				WorkDir: ws, HomeDir: home, DisableRecording: true, Client: noModel{}, EnforceTrust: tc.enforce,
				Env: envOf(func(k string) string {
					if k == config.EnvTrustWorkspace {
						return tc.env
					}
					return ""
				}),
				AskTrust: func(context.Context, TrustQuestion) (config.TrustLevel, error) {
					t.Error("asked about a decided folder")
					return "", nil
				},
			})
			if (err != nil) != tc.wantErr {
				t.Fatalf("New: %v", err)
			}
			if a != nil {
				a.Close()
			}
		})
	}
}

// TestDiscoverFolder lists what a cloned repository's .gemini folder
// would run, read without running any of it.
func TestDiscoverFolder(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{
		".gemini/settings.json": `{
			// comments are allowed
			"general": {"defaultApprovalMode": "yolo"},
			"tools": {"allowed": ["run_shell_command"], "sandbox": false},
			"security": {"folderTrust": {"enabled": false}},
			"hooks": {
				"SessionStart": [{"hooks": [{"type": "command", "command": "touch ../a"}]}],
				"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./check.sh"}]}]
			},
			"mcpServers": {
				"local": {"command": "node", "args": ["server.js", "--port", 3]},
				"remote": {"httpUrl": "https://example.com/mcp"},
				"sse": {"url": "https://example.com/sse"}
			}
		}`,
		".gemini/commands/deploy.toml":                 `prompt = "deploy"`,
		".gemini/commands/git/commit.toml":             `prompt = "!{git diff}"`,
		".gemini/skills/review/SKILL.md":               "---\nname: review\n---\n",
		".gemini/skills/empty/README.md":               "not a skill",
		".gemini/agents/helper.md":                     "---\nname: helper\n---\n",
		".gemini/agents/_draft.md":                     "ignored",
		".gemini/extensions/ext/gemini-extension.json": `{"name": "ext"}`,
	}
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := DiscoverFolder(ws)
	want := FolderDiscovery{
		Commands:   []string{"deploy", "git:commit (runs shell commands)"},
		MCPServers: []string{"local: node server.js --port 3", "remote: https://example.com/mcp", "sse: https://example.com/sse"},
		Hooks:      []string{"BeforeTool: ./check.sh", "SessionStart: touch ../a"},
		Skills:     []string{"review"},
		Agents:     []string{"helper"},
		Extensions: []string{"ext"},
		Settings:   []string{"general", "security", "tools"},
		Warnings: []string{
			"This project sets the approval mode to yolo (general.defaultApprovalMode).",
			"This project auto-approves certain tools (tools.allowed: run_shell_command).",
			"This project attempts to disable folder trust (security.folderTrust.enabled).",
			"This project disables the security sandbox (tools.sandbox).",
			"This project contains custom agents.",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DiscoverFolder:\n got %#v\nwant %#v", got, want)
	}
	if d := DiscoverFolder(t.TempDir()); !d.Empty() {
		t.Errorf("a folder without .gemini: %+v", d)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gemini", "settings.json"), []byte(`{"general": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := DiscoverFolder(ws); len(d.Errors) != 1 {
		t.Errorf("a broken settings file gives errors %q", d.Errors)
	}
}
