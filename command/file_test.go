package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"
)

func TestCommandName(t *testing.T) {
	for rel, want := range map[string]string{
		"commit.toml":                     "commit",
		"git/commit.toml":                 "git:commit",
		"a/b/c.toml":                      "a:b:c",
		"my cmd!.toml":                    "my_cmd_",
		"v1.2.toml":                       "v1.2",
		strings.Repeat("x", 60) + ".toml": strings.Repeat("x", 47) + "...",
	} {
		if got := CommandName(rel); got != want {
			t.Errorf("CommandName(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestParseFileCommandErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"bad toml", "description = \"x\"\nprompt = \"unclosed\n", "/c/x.toml:2: invalid TOML"},
		{"no prompt", "description = \"x\"\n", "/c/x.toml: the 'prompt' field is required"},
		{"prompt type", "prompt = 3\n", "/c/x.toml"},
		{"unclosed shell", "description = \"d\"\nprompt = \"\"\"\nfirst line\nrun !{ls {x}\n\"\"\"\n", "/c/x.toml:4: invalid syntax: unclosed injection"},
		{"unclosed file", "prompt = \"see @{a.txt\"\n", "/c/x.toml:1: invalid syntax: unclosed injection starting at \"@{a.txt\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFileCommand("/c/x.toml", "x.toml", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

// fakeInjector records what it is asked and answers from maps.
type fakeInjector struct {
	files   map[string][]*genai.Part
	outputs map[string]string
	refuse  bool
	checked []string
	ran     []string
}

func (f *fakeInjector) CheckShell(_ context.Context, cmds []string) error {
	f.checked = append(f.checked, cmds...)
	if f.refuse {
		return errors.New("refused")
	}
	return nil
}

func (f *fakeInjector) RunShell(_ context.Context, c string) (string, error) {
	f.ran = append(f.ran, c)
	return f.outputs[c], nil
}

func (f *fakeInjector) ReadPath(_ context.Context, p string) ([]*genai.Part, error) {
	parts, ok := f.files[p]
	if !ok {
		return nil, fmt.Errorf("path not found in workspace: %s", p)
	}
	return parts, nil
}

func texts(parts []*genai.Part) string {
	var out []string
	for _, p := range parts {
		if p.InlineData != nil {
			out = append(out, "<"+p.InlineData.MIMEType+">")
			continue
		}
		out = append(out, p.Text)
	}
	return strings.Join(out, "|")
}

func TestFileCommandExpand(t *testing.T) {
	inj := func() *fakeInjector {
		return &fakeInjector{
			files: map[string][]*genai.Part{
				"a.txt":   {genai.NewPartFromText("A contents !{rm -rf /} {{args}}")},
				"pic.png": {{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{1}}}},
			},
			outputs: map[string]string{"git diff 'x y'": "DIFF", "date": "TODAY"},
		}
	}
	tests := []struct {
		name, prompt, args, want string
		ran                      []string
	}{
		{"args", "Explain {{args}} now.", "x y", "Explain x y now.", nil},
		{"no args placeholder, no args", "Plain.", "", "Plain.", nil},
		{"no args placeholder, args appended", "Plain.", "x y", "Plain.\n\n/cmd x y", nil},
		{"shell with quoted args", "Diff: !{git diff {{args}}} for {{args}}", "x y", "Diff: DIFF for x y", []string{"git diff 'x y'"}},
		{"nested braces", "!{ date } and !{}", "", "TODAY and ", []string{"date"}},
		{"file", "Read @{a.txt} please", "", "Read |A contents !{rm -rf /} {{args}}| please", nil},
		{"image", "See @{pic.png}", "q", "See |<image/png>|\n\n/cmd q", nil},
		{"file then shell", "@{a.txt} !{date}", "", "A contents !{rm -rf /} {{args}}| TODAY", []string{"date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := &FileCommand{Name: "cmd", Prompt: tt.prompt}
			in := inj()
			raw := strings.TrimSpace("/cmd " + tt.args)
			parts, err := fc.Expand(context.Background(), raw, tt.args, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(parts); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if fmt.Sprint(in.ran) != fmt.Sprint(tt.ran) {
				t.Errorf("ran %q, want %q", in.ran, tt.ran)
			}
		})
	}
}

func TestFileCommandExpandRefusals(t *testing.T) {
	in := &fakeInjector{refuse: true}
	fc := &FileCommand{Name: "cmd", Prompt: "!{echo a} !{echo b}"}
	if _, err := fc.Expand(context.Background(), "/cmd", "", in); err == nil || !strings.Contains(err.Error(), "/cmd: refused") {
		t.Errorf("refused: %v", err)
	}
	// Every command is checked before any runs.
	if len(in.checked) != 2 || len(in.ran) != 0 {
		t.Errorf("checked %v ran %v", in.checked, in.ran)
	}
	fc = &FileCommand{Name: "cmd", Prompt: "@{missing}"}
	if _, err := fc.Expand(context.Background(), "/cmd", "", &fakeInjector{}); err == nil || !strings.Contains(err.Error(), "path not found") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadAndResolve(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	write("user/hello.toml", `prompt = "user hello"`)
	write("user/only.toml", `prompt = "user only"`)
	write("proj/hello.toml", `prompt = "project hello"`)
	write("proj/git/commit.toml", "description = \"Commit\"\nprompt = \"commit\"")
	write("proj/bad.toml", `prompt = `)
	write("proj/readme.md", `not a command`)
	write("ext/hello.toml", `prompt = "ext hello"`)
	write("ext/memory.toml", `prompt = "ext memory"`)
	write("ext/fresh.toml", `prompt = "ext fresh"`)
	cmds, errs := LoadFileCommands([]CommandDir{
		{Path: filepath.Join(root, "ext"), Scope: ScopeExtension, Extension: "demo"},
		{Path: filepath.Join(root, "user"), Scope: ScopeUser},
		{Path: filepath.Join(root, "proj"), Scope: ScopeProject},
		{Path: filepath.Join(root, "missing"), Scope: ScopeUser},
	})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "bad.toml:1") {
		t.Errorf("errors = %v", errs)
	}
	got := map[string]string{}
	for _, c := range Resolve(cmds, func(n string) bool { return n == "memory" }) {
		got[c.Name] = c.Prompt
	}
	want := map[string]string{
		"hello": "project hello", "only": "user only", "git:commit": "commit",
		"demo.hello": "ext hello", "demo.memory": "ext memory", "fresh": "ext fresh",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("resolved = %v\nwant %v", got, want)
	}
}

func TestFileCommandInRegistry(t *testing.T) {
	fc := &FileCommand{Name: "git:commit", Prompt: "Commit {{args}}", Extension: "demo", File: "/x/commit.toml"}
	r := NewRegistry(fc.Command(func(Env) Injector { return &fakeInjector{} }))
	res, err := r.RunLine(context.Background(), "/git:commit the fix", Env{})
	if err != nil || res.Kind != ResultSubmitPrompt || res.Content != "Commit the fix" {
		t.Fatalf("res = %+v, %v", res, err)
	}
	if c, _, _ := r.Lookup("git:commit"); c.Description != "[demo] Custom command from commit.toml" {
		t.Errorf("description = %q", c.Description)
	}
}

// FuzzParseFileCommand feeds arbitrary .toml command files (outside
// input: project and extension folders) to the parser and expands what it
// accepts: no panic, errors name the file, expansion never runs a command
// that was not checked first.
func FuzzParseFileCommand(f *testing.F) {
	for _, s := range []string{
		`prompt = "Explain {{args}}"`,
		"description = \"d\"\nprompt = \"\"\"\n!{git diff {{args}}}\n@{README.md}\n\"\"\"",
		`prompt = "!{echo {a,b}}"`,
		`prompt = "!{unclosed"`,
		`prompt = 3`,
		`prompt = "`,
		"[x]\nprompt = \"y\"",
	} {
		f.Add([]byte(s), "a b")
	}
	f.Fuzz(func(t *testing.T, data []byte, args string) {
		fc, err := ParseFileCommand("/c/x.toml", "x.toml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "/c/x.toml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		in := &fakeInjector{files: map[string][]*genai.Part{}}
		_, _ = fc.Expand(context.Background(), "/x "+args, args, in)
		checked := map[string]bool{}
		for _, c := range in.checked {
			checked[c] = true
		}
		for _, c := range in.ran {
			if !checked[c] {
				t.Errorf("ran %q without checking it", c)
			}
		}
	})
}

// FuzzInjections: the injection scanner never panics, and the
// injections it finds lie inside the text in order.
func FuzzInjections(f *testing.F) {
	f.Add("a !{b {c}} d !{e}")
	f.Add("!{")
	f.Add("@{x}@{y}")
	f.Fuzz(func(t *testing.T, s string) {
		for _, trig := range []string{ShellTrigger, FileTrigger} {
			injs, err := Injections(s, trig)
			if err != nil {
				continue
			}
			last := 0
			for _, in := range injs {
				if in.Start < last || in.End > len(s) || in.Start >= in.End || s[in.Start:in.Start+2] != trig || s[in.End-1] != '}' {
					t.Fatalf("bad injection %+v in %q", in, s)
				}
				last = in.End
			}
		}
	})
}

func TestResolveConflicts(t *testing.T) {
	cmds := []*FileCommand{
		{Name: "deploy", Scope: ScopeExtension, Extension: "a"},
		{Name: "deploy", Scope: ScopeExtension, Extension: "b"},
		{Name: "a.deploy", Scope: ScopeProject},
		{Name: "deploy", Scope: ScopeUser},
		{Name: "memory", Scope: ScopeExtension, Extension: "a"},
	}
	out, conflicts := ResolveConflicts(cmds, func(n string) bool { return n == "memory" })
	var names []string
	for _, c := range out {
		names = append(names, c.Name+"="+c.Scope+c.Extension)
	}
	if got, want := strings.Join(names, " "), "deploy=user a.deploy=project a.deploy1=extensiona b.deploy=extensionb a.memory=extensiona"; got != want {
		t.Errorf("resolved %s\nwant     %s", got, want)
	}
	var notes []string
	for _, c := range conflicts {
		notes = append(notes, c.String())
	}
	want := []string{
		"Command '/deploy' from extension 'a' command was renamed to '/a.deploy1' because it conflicts with user command.",
		"Command '/deploy' from extension 'b' command was renamed to '/b.deploy' because it conflicts with user command.",
		"Command '/memory' from extension 'a' command was renamed to '/a.memory' because it conflicts with built-in command.",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("conflicts:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}
