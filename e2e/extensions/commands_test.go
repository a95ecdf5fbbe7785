package extensions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestSkillsInstallLinkUninstall: `castor skills install|link|uninstall`
// as Gemini CLI 0.61 has them: install copies a folder's skills into the
// user's skills after consent (and not without it), link symlinks them
// into the workspace's, uninstall removes one and says when there is
// none; a session sees the installed skill.
func TestSkillsInstallLinkUninstall(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	src := filepath.Join(filepath.Dir(e.WS), "src")
	e2etest.WriteFiles(t, src, map[string]string{"greeter/SKILL.md": "---\nname: greeter\ndescription: Greets people.\n---\nSay hi.\n"})
	if r := e.Run("skills", "install", "--help"); r.Code != 0 || !strings.Contains(r.Stdout, "Installs an agent skill from a git repository URL or a local path.") {
		t.Errorf("install --help: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	r := e.RunWithStdin("n\n", "skills", "install", src)
	userDir := filepath.Join(e.Home, ".gemini", "skills", "greeter")
	if _, err := os.Stat(userDir); r.Code != 1 || !strings.Contains(r.Stderr, "Skill installation cancelled by user.") || err == nil {
		t.Fatalf("refused install: exit %d, stat %v\nstdout %s\nstderr %s", r.Code, err, r.Stdout, r.Stderr)
	}
	r = e.RunWithStdin("y\n", "skills", "install", src)
	if r.Code != 0 || !strings.Contains(r.Stdout, "Successfully installed skill: greeter (scope: user, location: "+userDir+")") ||
		!strings.Contains(r.Stderr, "* greeter: Greets people.") {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if data, err := os.ReadFile(filepath.Join(userDir, "SKILL.md")); err != nil || !strings.Contains(string(data), "Say hi.") {
		t.Errorf("installed SKILL.md: %q %v", data, err)
	}
	if r := e.Run("skills", "list"); !strings.Contains(r.Stdout, "greeter [Enabled]") {
		t.Errorf("skills list after install:\n%s", r.Stdout)
	}

	r = e.Run("skills", "link", "--consent", "--scope", "workspace", src)
	wsLink := filepath.Join(e.WS, ".gemini", "skills", "greeter")
	if target, err := os.Readlink(wsLink); r.Code != 0 || err != nil || target != filepath.Join(src, "greeter") {
		t.Fatalf("link: exit %d, link %q %v\nstdout %s\nstderr %s", r.Code, target, err, r.Stdout, r.Stderr)
	}

	if r := e.Run("skills", "uninstall", "greeter"); r.Code != 0 || !strings.Contains(r.Stdout, "Successfully uninstalled skill: greeter (scope: user") {
		t.Errorf("uninstall: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("skills", "uninstall", "greeter"); r.Code != 1 || !strings.Contains(r.Stderr, `Skill "greeter" is not installed in the user scope.`) {
		t.Errorf("second uninstall: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("skills", "uninstall", "--scope", "workspace", "greeter"); r.Code != 0 {
		t.Errorf("uninstall link: exit %d\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(src, "greeter", "SKILL.md")); err != nil {
		t.Errorf("uninstalling a link removed its source: %v", err)
	}
}

// TestHooksMigrateFromClaude: `castor hooks migrate --from-claude` writes
// Claude Code's hooks into the workspace settings in Gemini CLI's names,
// as 0.61 does, and `castor hooks list` shows them; `hooks migrate` and
// `gemma` are commands, never prompts for the model.
func TestHooksMigrateFromClaude(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.WS, map[string]string{".claude/settings.json": `{
		// Claude Code's own
		"hooks": {
			"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/check.sh", "timeout": 30}]}],
			"Stop": [{"hooks": [{"type": "command", "command": "echo stopped"}]}]
		}
	}`})
	if r := e.Run("hooks", "migrate", "--help"); r.Code != 0 || !strings.Contains(r.Stdout, "--from-claude") {
		t.Errorf("migrate --help: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("hooks", "migrate"); r.Code != 0 || !strings.Contains(r.Stdout, "Usage: castor hooks migrate --from-claude") {
		t.Errorf("migrate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r := e.Run("hooks", "migrate", "--from-claude")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Migrating 2 hook event(s)...") {
		t.Fatalf("migrate --from-claude: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	r = e.Run("hooks", "list")
	for _, want := range []string{
		"BeforeTool [run_shell_command|replace] $GEMINI_PROJECT_DIR/check.sh",
		"AfterAgent [*] echo stopped",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("hooks list lacks %q:\n%s\n%s", want, r.Stdout, r.Stderr)
		}
	}
	if r := e.Run("gemma", "setup"); r.Code != 1 || !strings.Contains(r.Stderr, "castor gemma is not applicable") {
		t.Errorf("gemma: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("%d model requests: a command went to the model", n)
	}
}

// TestExtensionsNewEveryTemplate: every boilerplate Gemini CLI 0.61's
// `extensions new` offers exists here, validates, links and runs in a
// session without a warning (but the themes example's, which Castor's
// terminal cannot show): the hooks one's SessionStart hook speaks, the
// skills one's skill is offered, the policies one's rules load.
func TestExtensionsNewEveryTemplate(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	for _, tmpl := range []string{"custom-commands", "exclude-tools", "hooks", "mcp-server", "policies", "skills", "themes-example"} {
		dir := filepath.Join(filepath.Dir(e.WS), "src", tmpl+"-ext")
		if r := e.Run("extensions", "new", dir, tmpl); r.Code != 0 {
			t.Errorf("new %s: exit %d\n%s", tmpl, r.Code, r.Stderr)
			continue
		}
		if r := e.Run("extensions", "validate", dir); r.Code != 0 {
			t.Errorf("validate %s: %s", tmpl, r.Stderr)
		}
		if tmpl == "mcp-server" {
			continue // needs npm install first
		}
		if r := e.Run("extensions", "link", "--consent", dir); r.Code != 0 {
			t.Errorf("link %s: %s", tmpl, r.Stderr)
		}
	}
	if r := e.Run("skills", "list"); !strings.Contains(r.Stdout, "greeter [Enabled]") {
		t.Errorf("skills list:\n%s", r.Stdout)
	}
	e.Srv.Enqueue(fakegemini.Text("ok"))
	r := e.Run("-p", "hello")
	if r.Code != 0 || !strings.Contains(r.Stderr, "Session started: the hooks-ext extension's hook ran.") {
		t.Errorf("run: exit %d\nstderr %s", r.Code, r.Stderr)
	}
	// Castor's terminal has no themes: the themes example is said to be
	// ignored, and nothing else warns.
	for _, l := range strings.Split(r.Stderr, "\n") {
		themes := strings.Contains(l, "themes-example-ext") && strings.Contains(l, "themes is a display option")
		if !themes && (strings.Contains(l, "Warning") || strings.Contains(l, "rror")) {
			t.Errorf("run warned: %s", l)
		}
	}
}
