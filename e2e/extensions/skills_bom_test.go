package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestFrontMatterWithByteOrderMark: a SKILL.md and a subagent definition
// saved by a Windows editor (a byte order mark, CRLF lines) load like any
// other, instead of being skipped for having "no front matter".
func TestFrontMatterWithByteOrderMark(t *testing.T) {
	e := newEnv(t, fakegemini.Text("fine"))
	files := map[string]string{
		".gemini/skills/notes/SKILL.md": "\uFEFF---\r\nname: notes\r\ndescription: Keeps notes\r\n---\r\nWrite notes.\r\n",
		".gemini/agents/helper.md":      "\uFEFF---\r\nname: helper\r\ndescription: Helps\r\n---\r\nHelp.\r\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(e.ws, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		e.write(name, content)
	}
	r := e.run("skills", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "notes [Enabled]") || strings.Contains(r.stderr, "skipped") {
		t.Errorf("skills list: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = e.run("-p", "hi")
	if r.code != 0 || strings.Contains(r.stderr, "front matter") {
		t.Errorf("run: exit %d, stderr %s", r.code, r.stderr)
	}
}
