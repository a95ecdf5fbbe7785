package extensions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestFrontMatterWithByteOrderMark: a SKILL.md and a subagent definition
// saved by a Windows editor (a byte order mark, CRLF lines) load like any
// other, instead of being skipped for having "no front matter".
func TestFrontMatterWithByteOrderMark(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("fine"))
	files := map[string]string{
		".gemini/skills/notes/SKILL.md": "\uFEFF---\r\nname: notes\r\ndescription: Keeps notes\r\n---\r\nWrite notes.\r\n",
		".gemini/agents/helper.md":      "\uFEFF---\r\nname: helper\r\ndescription: Helps\r\n---\r\nHelp.\r\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(e.WS, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		e.Write(name, content)
	}
	r := e.Run("skills", "list")
	if r.Code != 0 || !strings.Contains(r.Stdout, "notes [Enabled]") || strings.Contains(r.Stderr, "skipped") {
		t.Errorf("skills list: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	r = e.Run("-p", "hi")
	if r.Code != 0 || strings.Contains(r.Stderr, "front matter") {
		t.Errorf("run: exit %d, stderr %s", r.Code, r.Stderr)
	}
}
