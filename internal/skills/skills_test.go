package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/tool"
)

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillFile(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in  string
		wantName  string
		wantDesc  string
		wantBody  string
		wantError string
	}{
		{name: "yaml", in: skillFile("pdf", "Reads PDFs.", "\nUse pdftotext.\n"), wantName: "pdf", wantDesc: "Reads PDFs.", wantBody: "Use pdftotext."},
		{name: "block description", in: "---\nname: a\ndescription: |\n  two\n  lines\n---\nbody", wantName: "a", wantDesc: "two\nlines", wantBody: "body"},
		{name: "colon in description falls back", in: "---\nname: a\ndescription: Use when: PDFs\n---\nb", wantName: "a", wantDesc: "Use when: PDFs", wantBody: "b"},
		{name: "continued description", in: "---\nname: a\ndescription: Use when: one\n  and two\n---\n", wantName: "a", wantDesc: "Use when: one and two"},
		{name: "name sanitized", in: skillFile("ns:tool/x", "d", ""), wantName: "ns-tool-x", wantDesc: "d"},
		{name: "no front matter", in: "# just markdown\n", wantError: "S/SKILL.md:1: no front matter"},
		{name: "missing name", in: "---\ndescription: d\n---\n", wantError: `S/SKILL.md:1: front matter has no "name" string`},
		{name: "missing description", in: "---\nname: n\n---\n", wantError: `S/SKILL.md:1: front matter has no "description" string`},
		{name: "broken yaml", in: "---\nname: [a\n---\n", wantError: "S/SKILL.md:2: invalid YAML front matter"},
		{name: "empty name", in: "---\nname: \"\"\ndescription: d\n---\n", wantError: "S/SKILL.md:1: front matter has an empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.in), "S/SKILL.md")
			if tt.wantError != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want prefix %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != tt.wantName || s.Description != tt.wantDesc || s.Body != tt.wantBody {
				t.Errorf("got %q %q %q", s.Name, s.Description, s.Body)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(skillFile("a", "b", "c"))
	f.Add("---\nname: a\ndescription: x: y\n  z\n---\n")
	f.Add("---\r\nname: [\r\n---")
	f.Fuzz(func(t *testing.T, s string) {
		sk, err := Parse([]byte(s), "f")
		if err == nil && (sk.Name == "" || strings.ContainsAny(sk.Name, `:\/<>*?"|`)) {
			t.Fatalf("bad skill %+v", sk)
		}
	})
}

func TestDiscoverPrecedenceAndTrust(t *testing.T) {
	root := t.TempDir()
	home, ws, ext := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "ext")
	write(t, filepath.Join(ext, "skills", "a", "SKILL.md"), skillFile("a", "from extension", ""))
	write(t, filepath.Join(ext, "skills", "e", "SKILL.md"), skillFile("e", "extension only", ""))
	write(t, filepath.Join(home, ".gemini", "skills", "a", "SKILL.md"), skillFile("a", "from user", ""))
	write(t, filepath.Join(home, ".gemini", "skills", "b", "SKILL.md"), skillFile("b", "from user gemini", ""))
	write(t, filepath.Join(home, ".agents", "skills", "b", "SKILL.md"), skillFile("b", "from user agents", ""))
	write(t, filepath.Join(home, ".gemini", "skills", "bad", "SKILL.md"), "---\nname: [\n---\n")
	write(t, filepath.Join(ws, ".gemini", "skills", "SKILL.md"), skillFile("c", "workspace root skill", ""))
	write(t, filepath.Join(ws, ".agents", "skills", "a", "SKILL.md"), skillFile("a", "from workspace", ""))

	describe := func(set *Set) map[string]string {
		m := map[string]string{}
		for _, s := range set.All() {
			m[s.Name] = s.Description
		}
		return m
	}
	tests := []struct {
		name    string
		trusted bool
		want    map[string]string
	}{
		{"trusted", true, map[string]string{"a": "from workspace", "b": "from user agents", "c": "workspace root skill", "e": "extension only"}},
		{"untrusted", false, map[string]string{"a": "from user", "b": "from user agents", "e": "extension only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, warnings := Discover(Sources{Home: home, Workspace: ws, Trusted: tt.trusted, Extensions: []string{ext}})
			if d := cmp.Diff(tt.want, describe(set)); d != "" {
				t.Errorf("skills (-want +got):\n%s", d)
			}
			joined := strings.Join(warnings, "\n")
			badFile := filepath.Join(home, ".gemini", "skills", "bad", "SKILL.md")
			if !strings.Contains(joined, "skill skipped: "+badFile+":2: invalid YAML front matter") {
				t.Errorf("no warning naming the bad file and line:\n%s", joined)
			}
			if !strings.Contains(joined, `Skill conflict detected: "a"`) {
				t.Errorf("no conflict warning:\n%s", joined)
			}
		})
	}
}

func TestDisableAndGet(t *testing.T) {
	set := &Set{}
	set.Add(&Skill{Name: "Alpha", Location: "1"}, &Skill{Name: "beta", Location: "2"})
	set.Disable([]string{"BETA"})
	if set.Get("alpha") == nil || set.Get("beta") != nil {
		t.Errorf("Get after Disable: %v %v", set.Get("alpha"), set.Get("beta"))
	}
	if n := len(set.Enabled()); n != 1 {
		t.Errorf("enabled %d", n)
	}
	if n := len(set.All()); n != 2 {
		t.Errorf("all %d", n)
	}
}

func TestSectionGolden(t *testing.T) {
	set := &Set{}
	set.Add(&Skill{Name: "pdf", Description: "Reads PDF files.", Location: "/home/u/.gemini/skills/pdf/SKILL.md"},
		&Skill{Name: "deploy", Description: "Deploys the app.", Location: "/ws/.gemini/skills/deploy/SKILL.md"})
	golden.Check(t, "section.golden", Section(set.Enabled()))
	if Section(nil) != "" {
		t.Error("section without skills")
	}
}

func TestActivateSkill(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pdf", "SKILL.md"), skillFile("pdf", "Reads PDF files.", "\nRun `pdftotext in.pdf -`.\n"))
	write(t, filepath.Join(dir, "pdf", "scripts", "extract.sh"), "#!/bin/sh\n")
	found, errs := LoadDir(dir)
	if len(errs) > 0 || len(found) != 1 {
		t.Fatalf("LoadDir: %v %v", found, errs)
	}
	set := &Set{}
	set.Add(found...)
	ws := tool.NewWorkspace(t.TempDir())
	at := NewTool(set, ws)
	reg := tool.NewRegistry(at)
	if _, _, terr := reg.Prepare(ToolName, map[string]any{"name": "nope"}, nil); terr == nil || !strings.Contains(terr.Message, "must be equal to one of the allowed values") {
		t.Errorf("unknown name accepted: %v", terr)
	}
	_, call, terr := reg.Prepare(ToolName, map[string]any{"name": "pdf"}, nil)
	if terr != nil {
		t.Fatal(terr)
	}
	conf, _ := call.Confirmation(context.Background())
	if conf == nil || conf.Title != "Activate Skill: pdf" || !strings.Contains(conf.Prompt, "extract.sh") {
		t.Errorf("confirmation %+v", conf)
	}
	res := call.Execute(context.Background(), nil)
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	got := strings.ReplaceAll(res.LLMText, dir, "$DIR")
	golden.Check(t, "activate.golden", got)
	if !ws.Contains(filepath.Join(dir, "pdf", "scripts", "extract.sh")) {
		t.Error("skill folder not added to the workspace")
	}
	if !strings.Contains(at.Description(), "(Available: 'pdf')") {
		t.Errorf("description %q", at.Description())
	}
}

func TestActivateSkillFromFS(t *testing.T) {
	fsys := fstest.MapFS{
		"greet/SKILL.md":        {Data: []byte(skillFile("greet", "Greets people.", "Say hello warmly."))},
		"greet/refs/phrases.md": {Data: []byte("hello\n")},
		"greet/a.txt":           {Data: []byte("a")},
	}
	found, err := LoadFS(fsys, ".", true)
	if err != nil || len(found) != 1 {
		t.Fatalf("LoadFS: %v %v", found, err)
	}
	set := &Set{}
	set.Add(found...)
	call, _ := NewTool(set, nil).Build(map[string]any{"name": "greet"})
	res := call.Execute(context.Background(), nil)
	golden.Check(t, "activate_fs.golden", res.LLMText)
	if _, err := LoadFS(fstest.MapFS{"x.txt": {}}, ".", true); err == nil {
		t.Error("a root without skills loaded")
	}
	if _, err := LoadFS(fstest.MapFS{"s/SKILL.md": {Data: []byte("---\nname: [\n---\n")}}, ".", true); err == nil || !strings.Contains(err.Error(), "s/SKILL.md:2:") {
		t.Errorf("bad skill error: %v", err)
	}
}

func TestActivateUnknownSkill(t *testing.T) {
	set := &Set{}
	set.Add(&Skill{Name: "a", Location: "x"})
	call, _ := NewTool(set, nil).Build(map[string]any{"name": "b"})
	res := call.Execute(context.Background(), nil)
	if res.Error == nil || res.Error.Message != `Skill "b" not found. Available skills are: a` {
		t.Errorf("result %+v", res)
	}
}
