package extensions_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestExtensionEndToEnd installs an extension from a local folder with
// `castor extensions install`, then runs prompts: the extension's context
// file reaches the model, its MCP server's tool is declared, its command
// expands, and -e none turns it all off.
func TestExtensionEndToEnd(t *testing.T) {
	t.Parallel()
	node, everything := npmtest.Server(t, "server-everything")
	e := e2etest.New(t)
	src := filepath.Join(filepath.Dir(e.WS), "src", "ext-demo")
	manifest := map[string]any{
		"name":            "ext-demo",
		"version":         "1.0.0",
		"contextFileName": "DEMO.md",
		"mcpServers": map[string]any{
			"demo": map[string]any{"command": node, "args": []string{everything, "stdio"}, "cwd": "${extensionPath}"},
		},
	}
	raw, _ := json.Marshal(manifest)
	e2etest.WriteFiles(t, src, map[string]string{
		"gemini-extension.json":     string(raw),
		"DEMO.md":                   "Always answer like a demo extension.",
		"commands/ext-command.toml": "description = \"A demo command\"\nprompt = \"Explain {{args}} briefly.\"\n",
		"commands/git/commit.toml":  "prompt = \"Write a commit message.\"\n",
	})

	r := e.Run("extensions", "install", src)
	if r.Code != 0 || !strings.Contains(r.Stdout, `Extension "ext-demo" installed successfully and enabled.`) {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	r = e.Run("extensions", "list")
	if r.Code != 0 || !strings.Contains(r.Stdout, "✓ ext-demo (1.0.0)") || !strings.Contains(r.Stdout, "DEMO.md") {
		t.Fatalf("list: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if r = e.Run("-l"); r.Code != 0 || r.Stdout != "Installed extensions:\n- ext-demo\n" {
		t.Errorf("-l: exit %d: %q", r.Code, r.Stdout)
	}
	if len(e.Srv.Requests()) != 0 {
		t.Fatal("an extensions subcommand reached the model")
	}

	// yolo: a headless default run hides tools of servers it does not
	// trust, which is not what this test is about.
	e.Srv.Enqueue(fakegemini.Text("done"))
	r = e.Run("--approval-mode", "yolo", "-p", "/ext-command x")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	req := e.Srv.LastRequest()
	if got := e2etest.LastUserText(req); !strings.Contains(got, "Explain x briefly.") || strings.Contains(got, "/ext-command") {
		t.Errorf("command prompt = %q", got)
	}
	if !strings.Contains(e2etest.ContentsText(req), "Always answer like a demo extension.") {
		t.Error("the extension's context file is not in the request")
	}
	declared := map[string]bool{}
	for _, d := range req.FunctionDeclarations() {
		declared[d.Name] = true
	}
	if !declared["echo"] {
		t.Errorf("the extension's MCP tool is not declared: %v", declared)
	}

	// The extension's MCP server's prompts are commands too.
	e.Srv.Enqueue(fakegemini.Text("done"))
	if r = e.Run("-p", "/simple-prompt"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if got := e2etest.LastUserText(e.Srv.LastRequest()); !strings.Contains(got, "This is a simple prompt without arguments.") {
		t.Errorf("MCP prompt = %q", got)
	}

	// A namespaced command with no {{args}} gets the invocation appended.
	e.Srv.Enqueue(fakegemini.Text("done"))
	if r = e.Run("-p", "/git:commit fix the bug"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if got := e2etest.LastUserText(e.Srv.LastRequest()); !strings.Contains(got, "Write a commit message.\n\n/git:commit fix the bug") {
		t.Errorf("namespaced command prompt = %q", got)
	}

	// -e none: no context file, no command (sent as typed).
	e.Srv.Enqueue(fakegemini.Text("done"))
	if r = e.Run("-e", "none", "-p", "/ext-command x"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	req = e.Srv.LastRequest()
	if strings.Contains(e2etest.ContentsText(req), "demo extension") || !strings.Contains(e2etest.LastUserText(req), "/ext-command x") {
		t.Errorf("-e none still used the extension: %q", e2etest.ContentsText(req))
	}

	// disable (the workspace is not below this home, so a user-scope rule
	// would not cover it), then uninstall.
	if r = e.Run("extensions", "disable", "--scope", "workspace", "ext-demo"); r.Code != 0 {
		t.Fatalf("disable: exit %d: %s", r.Code, r.Stderr)
	}
	if r = e.Run("extensions", "list"); !strings.Contains(r.Stdout, "✗ ext-demo") {
		t.Errorf("after disable: %s", r.Stdout)
	}
	if r = e.Run("extensions", "uninstall", "ext-demo"); r.Code != 0 {
		t.Fatalf("uninstall: exit %d: %s", r.Code, r.Stderr)
	}
	if r = e.Run("extensions", "list"); strings.TrimSpace(r.Stdout) != "No extensions installed." {
		t.Errorf("after uninstall: %s", r.Stdout)
	}
}

// TestAtPathEndToEnd: -p "look at @README.md" sends the file's contents,
// framed as Gemini CLI frames them; a missing file is sent as typed.
func TestAtPathEndToEnd(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("README.md", "# Demo\nThe readme text.\n")
	e.Srv.Enqueue(fakegemini.Text("ok"))
	r := e.Run("-p", "look at @README.md")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	c := e.Srv.LastRequest().LastContent()
	var texts []string
	for _, p := range c.Parts {
		texts = append(texts, p.Text)
	}
	got := strings.Join(texts, "|")
	want := "look at @README.md|\n--- Content from referenced files ---|\nContent from @README.md:\n|# Demo\nThe readme text.|\n--- End of content ---"
	if !strings.HasSuffix(got, want) {
		t.Errorf("parts = %q\nwant suffix %q", got, want)
	}

	e.Srv.Enqueue(fakegemini.Text("ok"))
	if r = e.Run("-p", "mail me@example"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if got := e2etest.LastUserText(e.Srv.LastRequest()); !strings.HasSuffix(got, "mail me@example") {
		t.Errorf("unresolved @ = %q", got)
	}
}

// TestCustomCommandShellHeadless: a workspace command's !{…} runs when
// policy allows it (yolo) and is refused in a default headless run,
// exiting 1 (as Gemini CLI 0.61) without a model call.
func TestCustomCommandShellHeadless(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.WS, map[string]string{
		".gemini/commands/files.toml": "prompt = \"Files: !{echo listed {{args}}}\"\n",
	})
	r := e.Run("-p", "/files a b")
	if r.Code != 1 || !strings.Contains(r.Stderr, "echo listed") {
		t.Fatalf("headless default: exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Fatalf("%d model requests after a refused command", n)
	}
	for _, allow := range [][]string{{"--approval-mode", "yolo"}, {"--allowed-tools", "run_shell_command(echo)"}} {
		e.Srv.Enqueue(fakegemini.Text("ok"))
		if r = e.Run(append(allow, "-p", "/files a b")...); r.Code != 0 {
			t.Fatalf("%v: exit %d: %s", allow, r.Code, r.Stderr)
		}
		if got := e2etest.LastUserText(e.Srv.LastRequest()); !strings.Contains(got, "Files: listed a b") {
			t.Errorf("%v: shell injection = %q", allow, got)
		}
	}
}

// TestBadCommandFileWarns: a broken .toml is reported with file and line,
// and the prompt still runs.
func TestBadCommandFileWarns(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.Home, map[string]string{
		".gemini/commands/bad.toml": "description = \"x\"\nprompt = \"unclosed\n",
	})
	e.Srv.Enqueue(fakegemini.Text("ok"))
	r := e.Run("-p", "hi")
	if r.Code != 0 || !strings.Contains(r.Stderr, "bad.toml:2") {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
}

// TestExtensionInstallFromGit clones an extension from a git URL (a
// local repository through file://), links another, and validates a
// broken one.
func TestExtensionInstallFromGit(t *testing.T) {
	t.Parallel()
	npmtest.LookPath(t, "git")
	e := e2etest.New(t)
	repo := filepath.Join(filepath.Dir(e.WS), "repo")
	e2etest.WriteFiles(t, repo, map[string]string{
		"gemini-extension.json": `{"name":"from-git","version":"0.2.0"}`,
		"GEMINI.md":             "git context",
	})
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "-m", "x"}} {
		c := exec.Command("git", args...)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if r := e.Run("extensions", "install", "file://"+repo); r.Code != 0 {
		t.Fatalf("install: exit %d: %s", r.Code, r.Stderr)
	}
	meta, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "extensions", "from-git", ".gemini-extension-install.json"))
	if !strings.Contains(string(meta), `"type": "git"`) {
		t.Errorf("install metadata = %s", meta)
	}
	if _, err := os.Stat(filepath.Join(e.Home, ".gemini", "extensions", "from-git", ".git")); err == nil {
		t.Error("the clone's .git was copied")
	}
	if r := e.Run("extensions", "install", "file://"+repo); r.Code == 0 || !strings.Contains(r.Stderr, "already installed") {
		t.Errorf("second install: exit %d: %s", r.Code, r.Stderr)
	}

	linked := filepath.Join(filepath.Dir(e.WS), "linked")
	e2etest.WriteFiles(t, linked, map[string]string{"gemini-extension.json": `{"name":"linked","version":"1.0.0"}`})
	if r := e.Run("extensions", "link", linked); r.Code != 0 || !strings.Contains(r.Stdout, "linked successfully") {
		t.Fatalf("link: exit %d: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	// Edits to the linked folder are seen at once.
	e2etest.WriteFiles(t, linked, map[string]string{"GEMINI.md": "linked context"})
	e.Srv.Enqueue(fakegemini.Text("ok"))
	if r := e.Run("-p", "hi"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if got := e2etest.ContentsText(e.Srv.LastRequest()); !strings.Contains(got, "linked context") || !strings.Contains(got, "git context") {
		t.Errorf("request lacks the extensions' context: %q", got)
	}

	bad := filepath.Join(filepath.Dir(e.WS), "bad")
	e2etest.WriteFiles(t, bad, map[string]string{
		"gemini-extension.json": "{\n  \"name\": \"bad\",\n  \"version\": \"x\",\n  \"contextFileName\": \"NOPE.md\"\n}",
		"commands/broken.toml":  "prompt = \"!{oops\"\n",
	})
	r := e.Run("extensions", "validate", bad)
	if r.Code == 0 || !strings.Contains(r.Stderr, "NOPE.md") || !strings.Contains(r.Stderr, "broken.toml:1") || !strings.Contains(r.Stderr, "semver") {
		t.Errorf("validate: exit %d\nstderr %s", r.Code, r.Stderr)
	}
	e2etest.WriteFiles(t, bad, map[string]string{"gemini-extension.json": "{\"name\": \"bad\", \"version\" 1}"})
	if r = e.Run("extensions", "validate", bad); r.Code == 0 || !strings.Contains(r.Stderr, "gemini-extension.json: line 1") {
		t.Errorf("validate syntax: exit %d\nstderr %s", r.Code, r.Stderr)
	}
}
