package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// writeFiles writes files (path relative to root → content).
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// contentsText is every text part the request sent, joined.
func contentsText(r *fakegemini.Request) string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// lastUserText is the text of the request's last content.
func lastUserText(r *fakegemini.Request) string {
	c := r.LastContent()
	if c == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestExtensionEndToEnd installs an extension from a local folder with
// `castor extensions install`, then runs prompts: the extension's context
// file reaches the model, its MCP server's tool is declared, its command
// expands, and -e none turns it all off.
func TestExtensionEndToEnd(t *testing.T) {
	node, everything := npmtest.Server(t, "server-everything")
	e := newEnv(t)
	src := filepath.Join(filepath.Dir(e.ws), "src", "ext-demo")
	manifest := map[string]any{
		"name":            "ext-demo",
		"version":         "1.0.0",
		"contextFileName": "DEMO.md",
		"mcpServers": map[string]any{
			"demo": map[string]any{"command": node, "args": []string{everything, "stdio"}, "cwd": "${extensionPath}"},
		},
	}
	raw, _ := json.Marshal(manifest)
	writeFiles(t, src, map[string]string{
		"gemini-extension.json":     string(raw),
		"DEMO.md":                   "Always answer like a demo extension.",
		"commands/ext-command.toml": "description = \"A demo command\"\nprompt = \"Explain {{args}} briefly.\"\n",
		"commands/git/commit.toml":  "prompt = \"Write a commit message.\"\n",
	})

	r := e.run("extensions", "install", src)
	if r.code != 0 || !strings.Contains(r.stdout, `Extension "ext-demo" installed successfully and enabled.`) {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = e.run("extensions", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "✓ ext-demo (1.0.0)") || !strings.Contains(r.stdout, "DEMO.md") {
		t.Fatalf("list: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r = e.run("-l"); r.code != 0 || r.stdout != "Installed extensions:\n- ext-demo\n" {
		t.Errorf("-l: exit %d: %q", r.code, r.stdout)
	}
	if len(e.srv.Requests()) != 0 {
		t.Fatal("an extensions subcommand reached the model")
	}

	// yolo: a headless default run hides tools of servers it does not
	// trust, which is not what this test is about.
	e.srv.Enqueue(fakegemini.Text("done"))
	r = e.run("--approval-mode", "yolo", "-p", "/ext-command x")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	req := e.srv.LastRequest()
	if got := lastUserText(req); !strings.Contains(got, "Explain x briefly.") || strings.Contains(got, "/ext-command") {
		t.Errorf("command prompt = %q", got)
	}
	if !strings.Contains(contentsText(req), "Always answer like a demo extension.") {
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
	e.srv.Enqueue(fakegemini.Text("done"))
	if r = e.run("-p", "/simple-prompt"); r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if got := lastUserText(e.srv.LastRequest()); !strings.Contains(got, "This is a simple prompt without arguments.") {
		t.Errorf("MCP prompt = %q", got)
	}

	// A namespaced command with no {{args}} gets the invocation appended.
	e.srv.Enqueue(fakegemini.Text("done"))
	if r = e.run("-p", "/git:commit fix the bug"); r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if got := lastUserText(e.srv.LastRequest()); !strings.Contains(got, "Write a commit message.\n\n/git:commit fix the bug") {
		t.Errorf("namespaced command prompt = %q", got)
	}

	// -e none: no context file, no command (sent as typed).
	e.srv.Enqueue(fakegemini.Text("done"))
	if r = e.run("-e", "none", "-p", "/ext-command x"); r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	req = e.srv.LastRequest()
	if strings.Contains(contentsText(req), "demo extension") || !strings.Contains(lastUserText(req), "/ext-command x") {
		t.Errorf("-e none still used the extension: %q", contentsText(req))
	}

	// disable (the workspace is not below this home, so a user-scope rule
	// would not cover it), then uninstall.
	if r = e.run("extensions", "disable", "--scope", "workspace", "ext-demo"); r.code != 0 {
		t.Fatalf("disable: exit %d: %s", r.code, r.stderr)
	}
	if r = e.run("extensions", "list"); !strings.Contains(r.stdout, "✗ ext-demo") {
		t.Errorf("after disable: %s", r.stdout)
	}
	if r = e.run("extensions", "uninstall", "ext-demo"); r.code != 0 {
		t.Fatalf("uninstall: exit %d: %s", r.code, r.stderr)
	}
	if r = e.run("extensions", "list"); strings.TrimSpace(r.stdout) != "No extensions installed." {
		t.Errorf("after uninstall: %s", r.stdout)
	}
}

// TestAtPathEndToEnd: -p "look at @README.md" sends the file's contents,
// framed as Gemini CLI frames them; a missing file is sent as typed.
func TestAtPathEndToEnd(t *testing.T) {
	e := newEnv(t)
	e.write("README.md", "# Demo\nThe readme text.\n")
	e.srv.Enqueue(fakegemini.Text("ok"))
	r := e.run("-p", "look at @README.md")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	c := e.srv.LastRequest().LastContent()
	var texts []string
	for _, p := range c.Parts {
		texts = append(texts, p.Text)
	}
	got := strings.Join(texts, "|")
	want := "look at @README.md|\n--- Content from referenced files ---|\nContent from @README.md:\n|# Demo\nThe readme text.|\n--- End of content ---"
	if !strings.HasSuffix(got, want) {
		t.Errorf("parts = %q\nwant suffix %q", got, want)
	}

	e.srv.Enqueue(fakegemini.Text("ok"))
	if r = e.run("-p", "mail me@example"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := lastUserText(e.srv.LastRequest()); !strings.HasSuffix(got, "mail me@example") {
		t.Errorf("unresolved @ = %q", got)
	}
}

// TestCustomCommandShellHeadless: a workspace command's !{…} runs when
// policy allows it (yolo) and is refused in a default headless run,
// exiting 42 without a model call.
func TestCustomCommandShellHeadless(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.ws, map[string]string{
		".gemini/commands/files.toml": "prompt = \"Files: !{echo listed {{args}}}\"\n",
	})
	r := e.run("-p", "/files a b")
	if r.code != 42 || !strings.Contains(r.stderr, "echo listed") {
		t.Fatalf("headless default: exit %d\nstderr %s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Fatalf("%d model requests after a refused command", n)
	}
	for _, allow := range [][]string{{"--approval-mode", "yolo"}, {"--allowed-tools", "run_shell_command(echo)"}} {
		e.srv.Enqueue(fakegemini.Text("ok"))
		if r = e.run(append(allow, "-p", "/files a b")...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", allow, r.code, r.stderr)
		}
		if got := lastUserText(e.srv.LastRequest()); !strings.Contains(got, "Files: listed a b") {
			t.Errorf("%v: shell injection = %q", allow, got)
		}
	}
}

// TestBadCommandFileWarns: a broken .toml is reported with file and line,
// and the prompt still runs.
func TestBadCommandFileWarns(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.home, map[string]string{
		".gemini/commands/bad.toml": "description = \"x\"\nprompt = \"unclosed\n",
	})
	e.srv.Enqueue(fakegemini.Text("ok"))
	r := e.run("-p", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "bad.toml:2") {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
}

// TestExtensionInstallFromGit clones an extension from a git URL (a
// local repository through file://), links another, and validates a
// broken one.
func TestExtensionInstallFromGit(t *testing.T) {
	npmtest.LookPath(t, "git")
	e := newEnv(t)
	repo := filepath.Join(filepath.Dir(e.ws), "repo")
	writeFiles(t, repo, map[string]string{
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
	if r := e.run("extensions", "install", "file://"+repo); r.code != 0 {
		t.Fatalf("install: exit %d: %s", r.code, r.stderr)
	}
	meta, _ := os.ReadFile(filepath.Join(e.home, ".gemini", "extensions", "from-git", ".gemini-extension-install.json"))
	if !strings.Contains(string(meta), `"type": "git"`) {
		t.Errorf("install metadata = %s", meta)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".gemini", "extensions", "from-git", ".git")); err == nil {
		t.Error("the clone's .git was copied")
	}
	if r := e.run("extensions", "install", "file://"+repo); r.code == 0 || !strings.Contains(r.stderr, "already installed") {
		t.Errorf("second install: exit %d: %s", r.code, r.stderr)
	}

	linked := filepath.Join(filepath.Dir(e.ws), "linked")
	writeFiles(t, linked, map[string]string{"gemini-extension.json": `{"name":"linked","version":"1.0.0"}`})
	if r := e.run("extensions", "link", linked); r.code != 0 || !strings.Contains(r.stdout, "linked successfully") {
		t.Fatalf("link: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	// Edits to the linked folder are seen at once.
	writeFiles(t, linked, map[string]string{"GEMINI.md": "linked context"})
	e.srv.Enqueue(fakegemini.Text("ok"))
	if r := e.run("-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := contentsText(e.srv.LastRequest()); !strings.Contains(got, "linked context") || !strings.Contains(got, "git context") {
		t.Errorf("request lacks the extensions' context: %q", got)
	}

	bad := filepath.Join(filepath.Dir(e.ws), "bad")
	writeFiles(t, bad, map[string]string{
		"gemini-extension.json": "{\n  \"name\": \"bad\",\n  \"version\": \"x\",\n  \"contextFileName\": \"NOPE.md\"\n}",
		"commands/broken.toml":  "prompt = \"!{oops\"\n",
	})
	r := e.run("extensions", "validate", bad)
	if r.code == 0 || !strings.Contains(r.stderr, "NOPE.md") || !strings.Contains(r.stderr, "broken.toml:1") || !strings.Contains(r.stderr, "semver") {
		t.Errorf("validate: exit %d\nstderr %s", r.code, r.stderr)
	}
	writeFiles(t, bad, map[string]string{"gemini-extension.json": "{\"name\": \"bad\", \"version\" 1}"})
	if r = e.run("extensions", "validate", bad); r.code == 0 || !strings.Contains(r.stderr, "gemini-extension.json: line 1") {
		t.Errorf("validate syntax: exit %d\nstderr %s", r.code, r.stderr)
	}
}
