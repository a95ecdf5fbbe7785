package setup

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// place is a workspace and a home for one test.
type place struct {
	ws, home string
}

func newPlace(t *testing.T, files map[string]string) place {
	t.Helper()
	root := t.TempDir()
	p := place{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home")}
	os.MkdirAll(p.ws, 0o755)
	os.MkdirAll(p.home, 0o755)
	for name, content := range files {
		path := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p place) agent(t *testing.T, o Options) *Agent {
	t.Helper()
	o.WorkDir, o.HomeDir = p.ws, p.home
	o.Client = fake.Script()
	o.DisableRecording = true
	if o.Env == nil {
		o.Env = config.EnvMap(map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"})
	}
	var warnings []string
	o.Warn = func(s string) { warnings = append(warnings, s) }
	a, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// partsString shows parts for golden files: text as is between markers,
// inline data by type and size.
func partsString(parts []*genai.Part, root string) string {
	var b strings.Builder
	for _, p := range parts {
		switch {
		case p.InlineData != nil:
			b.WriteString("<<inline " + p.InlineData.MIMEType + ">>\n")
		default:
			b.WriteString("<<text>>" + strings.ReplaceAll(p.Text, root, "$ROOT") + "\n")
		}
	}
	return b.String()
}

// A 1x1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func TestExpandPromptAtPaths(t *testing.T) {
	p := newPlace(t, map[string]string{
		"ws/README.md":                "# Readme\nbody\n",
		"ws/src/a.go":                 "package a\n",
		"ws/src/b.go":                 "package b\n",
		"ws/secret.env":               "TOKEN=1\n",
		"ws/.gitignore":               "secret.env\n",
		"ws/.geminiignore":            "private/\n",
		"ws/private/x.txt":            "hidden\n",
		"ws/deep/dir/needle_file.txt": "found by search\n",
	})
	os.WriteFile(filepath.Join(p.ws, "pic.png"), pngBytes, 0o644)
	os.MkdirAll(filepath.Join(p.ws, ".git"), 0o755)
	a := p.agent(t, Options{})
	// The terminal saves a pasted image in the project's temporary
	// directory (Ctrl+V).
	clip := filepath.Join(a.TempDir, "images", "clipboard-1.png")
	os.MkdirAll(filepath.Dir(clip), 0o700)
	os.WriteFile(clip, pngBytes, 0o600)
	tests := []struct{ name, prompt string }{
		{"file", "look at @README.md."},
		{"pasted image", "what is in @" + clip + " ?"},
		{"folder", "review @src"},
		{"two", "compare @src/a.go with @src/b.go"},
		{"image", "describe @pic.png"},
		{"gitignored", "show @secret.env"},
		{"geminiignored", "show @private/x.txt"},
		{"missing", "mail me@example.com"},
		{"search", "open @needle_file"},
		{"absolute", "read @" + filepath.Join(p.ws, "README.md")},
	}
	var all strings.Builder
	for _, tt := range tests {
		parts, err := a.ExpandPrompt(context.Background(), tt.prompt)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		all.WriteString("=== " + tt.name + ": " + strings.ReplaceAll(strings.ReplaceAll(tt.prompt, p.ws, "$WS"), filepath.Dir(p.ws), "$ROOT") + "\n")
		all.WriteString(strings.ReplaceAll(partsString(parts, filepath.Dir(p.ws)), "$ROOT/ws", "$WS"))
	}
	golden.Check(t, "expand/atpaths.golden", all.String())
}

func TestExpandPromptCommands(t *testing.T) {
	ext := "home/.gemini/extensions/demo/"
	p := newPlace(t, map[string]string{
		"home/.gemini/commands/hello.toml":    `prompt = "user hello {{args}}"`,
		"home/.gemini/commands/review.toml":   `prompt = "user review"`,
		"ws/.gemini/commands/hello.toml":      `prompt = "project hello {{args}}"`,
		"ws/.gemini/commands/git/commit.toml": `prompt = "Write a commit message."`,
		// printf, not echo: echo is a known-safe command that runs unasked.
		"ws/.gemini/commands/files.toml": `prompt = "Files: !{printf %s {{args}}} and @{notes.txt}"`,
		"ws/notes.txt":                   "the notes",
		ext + "gemini-extension.json":    `{"name":"demo","version":"1.0.0"}`,
		ext + "commands/hello.toml":      `prompt = "ext hello"`,
		ext + "commands/deploy.toml":     `prompt = "ext deploy {{args}}"`,
	})
	run := func(a *Agent, text string) (string, error) {
		parts, err := a.ExpandPrompt(context.Background(), text)
		var b []string
		for _, p := range parts {
			b = append(b, p.Text)
		}
		return strings.Join(b, ""), err
	}
	a := p.agent(t, Options{ApprovalMode: policy.ModeYolo})
	for in, want := range map[string]string{
		"/hello world":       "project hello world",
		"/demo.hello":        "ext hello",
		"/deploy prod":       "ext deploy prod",
		"/git:commit fix it": "Write a commit message.\n\n/git:commit fix it",
		"/review":            "user review",
		"/files it's":        "Files: it's and the notes",
		"/unknown x":         "/unknown x",
		"not a /hello":       "not a /hello",
		"/memory show":       "/memory show",
	} {
		got, err := run(a, in)
		if err != nil || got != want {
			t.Errorf("%q → %q, %v; want %q", in, got, err, want)
		}
	}
	if c, _, _ := a.Commands.Lookup("git:commit"); c == nil {
		t.Error("custom command not in the registry")
	}

	// A headless run in default mode refuses the shell command; nothing
	// runs and the error is an input error.
	a = p.agent(t, Options{})
	_, err := run(a, "/files x")
	var in *InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "Blocked by policy") {
		t.Errorf("headless shell: %v", err)
	}

	// An interactive face is asked, once per command.
	asked := 0
	a = p.agent(t, Options{Confirm: func(_ context.Context, c *agent.ToolCall) (tool.Decision, error) {
		asked++
		if c.Name != "run_shell_command" || c.Confirmation == nil || c.Confirmation.Details.Command != "printf %s 'ok'" {
			t.Errorf("confirmation for %+v", c)
		}
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}})
	if got, err := run(a, "/files ok"); err != nil || got != "Files: ok and the notes" || asked != 1 {
		t.Errorf("confirmed shell: %q, %v, asked %d", got, err, asked)
	}
	a = p.agent(t, Options{Confirm: func(context.Context, *agent.ToolCall) (tool.Decision, error) {
		return tool.Decision{Outcome: tool.Cancel}, nil
	}})
	if _, err := run(a, "/files no"); err == nil || !strings.Contains(err.Error(), "not approved") {
		t.Errorf("declined shell: %v", err)
	}

}

func TestUntrustedWorkspaceCommands(t *testing.T) {
	p := newPlace(t, map[string]string{
		"home/.gemini/commands/user.toml": `prompt = "from user"`,
		"ws/.gemini/commands/proj.toml":   `prompt = "from project"`,
		"home/.gemini/settings.json":      `{"security":{"folderTrust":{"enabled":true}}}`,
	})
	tf, _ := json.Marshal(map[string]string{p.ws: "DO_NOT_TRUST"})
	os.WriteFile(filepath.Join(p.home, ".gemini", "trustedFolders.json"), tf, 0o644)
	a := p.agent(t, Options{Env: config.EnvMap(nil)})
	if a.Trusted {
		t.Fatal("workspace trusted")
	}
	cmds := a.FileCommands()
	if cmds["user"] == nil || cmds["proj"] != nil {
		t.Errorf("untrusted workspace commands = %v", cmds)
	}
}

func TestExtensionsApplied(t *testing.T) {
	ext := "home/.gemini/extensions/demo/"
	p := newPlace(t, map[string]string{
		ext + "gemini-extension.json": `{"name":"demo","version":"1.0.0","contextFileName":["CTX.md"],"excludeTools":["write_file"],
			"mcpServers":{"shared":{"command":"/nonexistent/ext"},"own":{"command":"/nonexistent/own"}}}`,
		ext + "CTX.md":               "extension context here",
		"home/.gemini/settings.json": `{"mcpServers":{"shared":{"command":"/nonexistent/settings"}}}`,
	})
	a := p.agent(t, Options{})
	if len(a.Extensions) != 1 || a.Extensions[0].Name != "demo" || a.Extensions[0].Dir("hooks") != filepath.Join(p.home, ".gemini", "extensions", "demo", "hooks") {
		t.Fatalf("extensions = %+v", a.Extensions)
	}
	if _, ok := a.Session.Tools().Get("write_file"); ok {
		t.Error("excludeTools did not remove write_file")
	}
	shared, _ := json.Marshal(a.Settings.MCPServers["shared"])
	if !strings.Contains(string(shared), "/nonexistent/settings") || a.Settings.MCPServers["own"] == nil {
		t.Errorf("mcpServers = %v", a.Settings.MCPServers)
	}
	var env strings.Builder
	for ev, err := range a.Session.Send(context.Background(), genai.NewPartFromText("hi")) {
		_, _ = ev, err
		break
	}
	for _, c := range a.Session.History() {
		for _, p := range c.Parts {
			env.WriteString(p.Text)
		}
	}
	if !strings.Contains(env.String(), "extension context here") {
		t.Errorf("first message lacks the extension context: %q", env.String())
	}

	b := p.agent(t, Options{Extensions: []string{"none"}})
	if len(b.Extensions) != 0 || b.Settings.MCPServers["own"] != nil {
		t.Errorf("-e none kept %v", b.Extensions)
	}
	if _, ok := b.Session.Tools().Get("write_file"); !ok {
		t.Error("-e none still excludes write_file")
	}
}

func TestCodeExtensions(t *testing.T) {
	p := newPlace(t, nil)
	ce := &CodeExtension{Name: "sdk", Instructions: "SDK instructions.",
		Commands: []*command.FileCommand{{Name: "ask", Prompt: "Ask {{args}}"}}}
	a := p.agent(t, Options{IgnoreSettings: true, CodeExtensions: []*CodeExtension{ce}})
	parts, err := a.ExpandPrompt(context.Background(), "/ask why")
	if err != nil || parts[0].Text != "Ask why" {
		t.Fatalf("parts = %v, %v", parts, err)
	}
	for _, bad := range []*CodeExtension{
		{Name: "bad name"},
		{Name: "x", Commands: []*command.FileCommand{{Name: "c", Prompt: "!{oops"}}},
		{Name: "y", Commands: []*command.FileCommand{{Name: "has space", Prompt: "p"}}},
	} {
		_, err := New(context.Background(), Options{WorkDir: p.ws, HomeDir: p.home, Client: fake.Script(), IgnoreSettings: true, DisableRecording: true, CodeExtensions: []*CodeExtension{bad}})
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%+v: error %v", bad, err)
		}
	}
}

func TestExtensionSettingsRestrict(t *testing.T) {
	ext := "home/.gemini/extensions/"
	files := map[string]string{
		ext + "fromgit/gemini-extension.json":          `{"name":"fromgit","version":"1"}`,
		ext + "fromgit/.gemini-extension-install.json": `{"source":"https://example.com/x.git","type":"git"}`,
		ext + "local/gemini-extension.json":            `{"name":"local","version":"1"}`,
	}
	tests := []struct {
		settings string
		want     string
	}{
		{`{}`, "fromgit,local"},
		{`{"security":{"blockGitExtensions":true}}`, "local"},
	}
	for _, tt := range tests {
		files["home/.gemini/settings.json"] = tt.settings
		a := newPlace(t, files).agent(t, Options{})
		var names []string
		for _, e := range a.Extensions {
			names = append(names, e.Name)
		}
		if got := strings.Join(names, ","); got != tt.want {
			t.Errorf("%s: extensions %q, want %q", tt.settings, got, tt.want)
		}
	}
}

// BenchmarkExpandPrompt measures what expansion adds to a prompt: plain
// text, a custom command, and an @file include.
func BenchmarkExpandPrompt(b *testing.B) {
	root := b.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(ws, ".gemini", "commands"), 0o755)
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(ws, "README.md"), []byte(strings.Repeat("line\n", 200)), 0o644)
	os.WriteFile(filepath.Join(ws, ".gemini", "commands", "c.toml"), []byte(`prompt = "Do {{args}}"`), 0o644)
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: fake.Script(), DisableRecording: true,
		Env: config.EnvMap(map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"})})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	for _, p := range []string{"plain text without includes", "/c the thing", "explain @README.md"} {
		b.Run(strings.Fields(p)[0], func(b *testing.B) {
			for b.Loop() {
				if _, err := a.ExpandPrompt(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
