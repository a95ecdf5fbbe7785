package policy

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/tool"
)

// saving is an engine that writes "allow always and save" answers to a
// fresh auto-saved.toml; errs collects what OnSave heard.
type saving struct {
	*Engine
	path string
	errs []error
}

func newSaving(t *testing.T, o Options) *saving {
	t.Helper()
	s := &saving{path: filepath.Join(t.TempDir(), "policies", AutoSavedFile)}
	o.Interactive = true
	o.AutoSave = s.path
	o.OnSave = func(path string, err error) {
		if path != s.path {
			t.Errorf("OnSave path %q, want %q", path, s.path)
		}
		s.errs = append(s.errs, err)
	}
	s.Engine = New(o)
	return s
}

// file is the saved file's text.
func (s *saving) file(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// next is the engine of a later session, which reads the saved file as
// Castor reads ~/.gemini/policies.
func (s *saving) next(t *testing.T, o Options) *Engine {
	t.Helper()
	r, errs := LoadRules(filepath.Dir(s.path), TierUser)
	for _, err := range errs {
		t.Errorf("reading the saved file: %v", err)
	}
	o.Interactive = true
	o.Rules = r
	return New(o)
}

func editCall(name, path string) Call {
	return Call{Name: name, Kind: tool.KindEdit, Args: map[string]any{"file_path": path, "content": "x"}}
}

// TestSavedRuleWritten checks the [[rule]] each kind of answer writes, as
// Gemini CLI writes it to auto-saved.toml: shell calls by their root
// commands (allowRedirection when the line redirected), MCP calls by
// server and the server's tool name, edits by file, other tools whole;
// modes from the current one up.
func TestSavedRuleWritten(t *testing.T) {
	docs := mcpStub{stub{name: "search", kind: tool.KindOther}, "docs"}
	tests := []struct {
		name string
		mode Mode
		call Call
		tool tool.Tool // what Lookup finds, if anything
		want string
	}{
		{"shell command and subcommand", ModeDefault, withRoots(shellCall("git status"), "git"), nil, `
[[rule]]
commandPrefix = ["git status"]
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "run_shell_command"
`},
		{"shell commands of a compound line, once each", ModeDefault, withRoots(shellCall("git add . && git commit && npm test && git add x && ls -la"), "git", "git", "npm"), nil, `
[[rule]]
commandPrefix = ["git add", "git commit", "npm test", "ls"]
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "run_shell_command"
`},
		{"shell redirection", ModeDefault, withRoots(shellCall("git log > log.txt"), "git"), nil, `
[[rule]]
allowRedirection = true
commandPrefix = ["git log"]
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "run_shell_command"
`},
		{"mcp tool of a server", ModeDefault, Call{Name: "search", Kind: tool.KindOther, ServerName: "docs"}, docs, `
[[rule]]
decision = "allow"
mcpName = "docs"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "search"
`},
		{"mcp tool by its gemini name", ModeDefault, Call{Name: "mcp_docs_search", Kind: tool.KindOther, ServerName: "docs"}, nil, `
[[rule]]
decision = "allow"
mcpName = "docs"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "search"
`},
		{"replace names the file", ModeDefault, editCall("replace", "/w/src/a.go"), nil, `
[[rule]]
argsPattern = "\\0\"file_path\":\"/w/src/a\\.go\"\\0"
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "replace"
`},
		{"write_file in auto_edit", ModeAutoEdit, editCall("write_file", "notes (draft).md"), nil, `
[[rule]]
argsPattern = "\\0\"file_path\":\"notes \\(draft\\)\\.md\"\\0"
decision = "allow"
modes = ["autoEdit", "yolo"]
priority = 950
toolName = "write_file"
`},
		{"other tool whole", ModePlan, Call{Name: "web_fetch", Kind: tool.KindFetch, Args: map[string]any{"prompt": "x"}}, nil, `
[[rule]]
decision = "allow"
modes = ["plan", "default", "autoEdit", "yolo"]
priority = 950
toolName = "web_fetch"
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Mode: tt.mode}
			if tt.tool != nil {
				o.Lookup = func(string) (tool.Tool, bool) { return tt.tool, true }
			}
			s := newSaving(t, o)
			s.Remember(tt.call, tool.ProceedAlwaysSave)
			if len(s.errs) != 1 || s.errs[0] != nil {
				t.Fatalf("OnSave heard %v, want one nil", s.errs)
			}
			if got := s.file(t); got != strings.TrimPrefix(tt.want, "\n") {
				t.Errorf("saved:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func withRoots(c Call, roots ...string) Call {
	c.RootCommands = roots
	return c
}

// TestSavedRuleNeedsNarrowing checks that answers Gemini CLI would not
// save whole (an edit without a file) hold for the session and write
// nothing.
func TestSavedRuleNeedsNarrowing(t *testing.T) {
	s := newSaving(t, Options{})
	c := Call{Name: "replace", Kind: tool.KindEdit, Args: map[string]any{"old_string": "a"}}
	s.Remember(c, tool.ProceedAlwaysSave)
	if d, _ := s.Decide(c); d != Allow {
		t.Errorf("after the answer: %v, want allow for the session", d)
	}
	if _, err := os.Stat(s.path); err == nil || len(s.errs) != 0 {
		t.Errorf("a file was written (OnSave %v)", s.errs)
	}
}

// TestSavedRuleRoundTrip answers "allow always and save" and checks that
// the answer applies at once and that a later session reading the file
// decides the same, for shell lines, MCP tools and edits.
func TestSavedRuleRoundTrip(t *testing.T) {
	docs := mcpStub{stub{name: "search", kind: tool.KindOther}, "docs"}
	lookup := func(name string) (tool.Tool, bool) {
		if name == "search" {
			return docs, true
		}
		return nil, false
	}
	mcp := func(server string) Call { return Call{Name: "search", Kind: tool.KindOther, ServerName: server} }
	type check struct {
		call Call
		want Decision
	}
	tests := []struct {
		name   string
		answer Call
		mode   Mode
		checks []check
	}{
		{"shell", withRoots(shellCall("git status"), "git"), ModeDefault, []check{
			{withRoots(shellCall("git log --oneline"), "git"), Allow},
			{withRoots(shellCall("git log > out.txt"), "git"), Ask},
			{withRoots(shellCall("git log | head"), "git", "head"), Ask},
			{withRoots(shellCall("gitk"), "gitk"), Ask},
			{withRoots(shellCall("rm -rf x"), "rm"), Ask},
		}},
		{"shell with redirection", withRoots(shellCall("printf a > a.txt"), "printf"), ModeDefault, []check{
			{withRoots(shellCall("printf b > b.txt"), "printf"), Allow},
			{withRoots(shellCall("printf b"), "printf"), Allow},
		}},
		{"mcp", mcp("docs"), ModeDefault, []check{
			{mcp("docs"), Allow},
			{Call{Name: "fetch", Kind: tool.KindOther, ServerName: "docs"}, Ask},
		}},
		{"edit", editCall("replace", "/w/a.go"), ModeDefault, []check{
			{editCall("replace", "/w/a.go"), Allow},
			{editCall("replace", "/w/b.go"), Ask},
			{editCall("replace", "/w/a.go.bak"), Ask},
			{editCall("write_file", "/w/a.go"), Ask},
			// The path as a value of another argument is not the file.
			{Call{Name: "replace", Kind: tool.KindEdit, Args: map[string]any{"file_path": "/w/b.go", "new_string": `"file_path":"/w/a.go"`}}, Ask},
		}},
		{"modes from the answer's up", withRoots(shellCall("make"), "make"), ModeAutoEdit, []check{
			{withRoots(shellCall("make test"), "make"), Allow},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Mode: tt.mode, Lookup: lookup}
			s := newSaving(t, o)
			s.Remember(tt.answer, tool.ProceedAlwaysSave)
			if len(s.errs) != 1 || s.errs[0] != nil {
				t.Fatalf("OnSave heard %v", s.errs)
			}
			next := s.next(t, o)
			for _, c := range tt.checks {
				for name, e := range map[string]*Engine{"this session": s.Engine, "next session": next} {
					if d, _ := e.Decide(c.call); d != c.want {
						t.Errorf("%s: %s %v is %v, want %v", name, c.call.Name, c.call.Args, d, c.want)
					}
				}
			}
			// Out of the answer's modes (plan is less permissive), the
			// rule does not apply.
			if tt.mode == ModeAutoEdit {
				next.SetMode(ModeDefault)
				if d, _ := next.Decide(tt.checks[0].call); d != Ask {
					t.Errorf("default mode after an auto_edit answer: %v, want ask", d)
				}
			}
		})
	}
}

// TestSaveKeepsOtherRules checks that saving keeps the file's other rules
// and keys, updates a rule for the same commands instead of adding it
// twice, and adds allowRedirection when a later answer redirected.
func TestSaveKeepsOtherRules(t *testing.T) {
	s := newSaving(t, Options{})
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		t.Fatal(err)
	}
	const mine = `# my own rules
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm -rf"
decision = "deny"
priority = 999
denyMessage = "never"
`
	if err := os.WriteFile(s.path, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Remember(withRoots(shellCall("git log"), "git"), tool.ProceedAlwaysSave)
	s.Remember(withRoots(shellCall("git log --oneline"), "git"), tool.ProceedAlwaysSave)
	s.Remember(withRoots(shellCall("git log > log.txt"), "git"), tool.ProceedAlwaysSave)
	for _, err := range s.errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := `[[rule]]
commandPrefix = "rm -rf"
decision = "deny"
denyMessage = "never"
priority = 999
toolName = "run_shell_command"

[[rule]]
allowRedirection = true
commandPrefix = ["git log"]
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "run_shell_command"
`
	if got := s.file(t); got != want {
		t.Errorf("saved:\n%s\nwant:\n%s", got, want)
	}
	if fi, err := os.Stat(s.path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode changed: %v %v", fi.Mode(), err)
	}
	next := s.next(t, Options{})
	if d, _ := next.Decide(withRoots(shellCall("rm -rf /"), "rm")); d != Deny {
		t.Errorf("the kept deny rule: %v", d)
	}
	if d, _ := next.Decide(withRoots(shellCall("git log > b.txt"), "git")); d != Allow {
		t.Errorf("redirected git after the redirecting answer: %v", d)
	}
}

// TestSaveMalformedFile checks that a file Castor cannot read is never
// overwritten: the error names the file, the file stays as it was, and
// the answer still holds for the session.
func TestSaveMalformedFile(t *testing.T) {
	tests := []struct{ name, src, msg string }{
		{"not TOML", "[[rule]\ntoolName = \"x\"\n", "not valid TOML"},
		{"rule not tables", "rule = \"allow everything\"\n", "key rule: must be an array of tables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSaving(t, Options{})
			os.MkdirAll(filepath.Dir(s.path), 0o755)
			if err := os.WriteFile(s.path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			c := withRoots(shellCall("git status"), "git")
			s.Remember(c, tool.ProceedAlwaysSave)
			if len(s.errs) != 1 || s.errs[0] == nil {
				t.Fatalf("OnSave heard %v, want an error", s.errs)
			}
			var se *SaveError
			if msg := s.errs[0].Error(); !errors.As(s.errs[0], &se) || se.File != s.path || !strings.Contains(msg, s.path) || !strings.Contains(msg, tt.msg) {
				t.Errorf("error %q does not name the file %s and %q", msg, s.path, tt.msg)
			}
			if got := s.file(t); got != tt.src {
				t.Errorf("the file was changed to:\n%s", got)
			}
			if d, _ := s.Decide(withRoots(shellCall("git log"), "git")); d != Allow {
				t.Errorf("the answer does not hold for the session: %v", d)
			}
			entries, _ := os.ReadDir(filepath.Dir(s.path))
			// The lock's sidecar (lockPath) stays; nothing else may.
			entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == filepath.Base(lockPath(s.path)) })
			if len(entries) != 1 {
				t.Errorf("files left beside it: %v", entries)
			}
		})
	}
}

// TestSaveOff checks that without AutoSave an "allow always and save"
// answer (which an A2A or stream-json client may send) is remembered for
// the session, as "always allow".
func TestSaveOff(t *testing.T) {
	e := New(Options{Interactive: true})
	e.Remember(withRoots(shellCall("git status"), "git"), tool.ProceedAlwaysSave)
	if d, _ := e.Decide(withRoots(shellCall("git log"), "git")); d != Allow {
		t.Errorf("git log after the answer: %v", d)
	}
	if e.SavesAnswers() != "" {
		t.Errorf("SavesAnswers = %q", e.SavesAnswers())
	}
}

// TestAutoSavedReadByGeminiTOML checks that the file Castor writes reads
// with the TOML library Gemini CLI 0.61 reads policy files with
// (@iarna/toml, under Node), to the same rules.
func TestAutoSavedReadByGeminiTOML(t *testing.T) {
	node := npmtest.LookPath(t, "node")
	dir, _ := filepath.Abs(filepath.Join("testdata", "geminitoml"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@iarna", "toml")); err != nil {
		npmtest.Missing(t, "policy/testdata/geminitoml/node_modules/@iarna/toml is missing: run npm ci --ignore-scripts there")
	}
	docs := mcpStub{stub{name: "search", kind: tool.KindOther}, "docs"}
	s := newSaving(t, Options{Lookup: func(n string) (tool.Tool, bool) { return docs, n == "search" }})
	s.Remember(withRoots(shellCall(`git log --format="%s" > "out file.txt"`), "git"), tool.ProceedAlwaysSave)
	s.Remember(Call{Name: "search", Kind: tool.KindOther, ServerName: "docs"}, tool.ProceedAlwaysSave)
	s.Remember(editCall("replace", `C:\w\"quoted" é.go`), tool.ProceedAlwaysSave)
	out, err := exec.Command(node, filepath.Join(dir, "parse.mjs"), s.path).CombinedOutput()
	if err != nil {
		t.Fatalf("@iarna/toml cannot read the file: %v\n%s\nfile:\n%s", err, out, s.file(t))
	}
	var got struct {
		Rule []map[string]any `json:"rule"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Rule) != 3 {
		t.Fatalf("@iarna/toml read %d rules: %s", len(got.Rule), out)
	}
	want := []map[string]any{
		{"toolName": "run_shell_command", "commandPrefix": []any{"git log"}, "allowRedirection": true},
		{"toolName": "search", "mcpName": "docs"},
		{"toolName": "replace", "argsPattern": filePathPattern(`C:\w\"quoted" é.go`)},
	}
	for i, w := range want {
		for k, v := range w {
			if g, _ := json.Marshal(got.Rule[i][k]); string(g) != mustJSON(v) {
				t.Errorf("rule %d %s = %s, want %s", i+1, k, g, mustJSON(v))
			}
		}
		if got.Rule[i]["priority"] != float64(950) || got.Rule[i]["decision"] != "allow" {
			t.Errorf("rule %d: %v", i+1, got.Rule[i])
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// FuzzSaveRule saves an answer into arbitrary existing files: it never
// panics, a file it refuses stays as it was, and a file it writes reads
// back with the answer's rule and at least as many rules as before.
func FuzzSaveRule(f *testing.F) {
	f.Add("")
	f.Add("[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\n")
	f.Add("rule = [{toolName = \"a\", decision = \"allow\", priority = 2}]\n")
	f.Add("rule = 3\n")
	f.Add("[[safety_checker]]\nx = 1\n[[rule]]\ncommandPrefix = \"git\"\n")
	f.Add("[[rule]\n")
	f.Add("[rule]\ntoolName = \"x\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		path := filepath.Join(t.TempDir(), AutoSavedFile)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		before, _ := ParseRules(path, []byte(src), TierUser)
		sr, _ := savedRuleFor(withRoots(shellCall("git status"), "git"), ModeDefault)
		err := sr.save(path)
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if string(data) != src {
				t.Fatalf("refused (%v) but changed the file", err)
			}
			return
		}
		after, _ := ParseRules(path, data, TierUser)
		if len(after) < len(before) {
			t.Fatalf("%d rules before, %d after:\n%s", len(before), len(after), data)
		}
		e := New(Options{Interactive: true, Rules: after})
		if d, _ := e.Decide(withRoots(shellCall("git log"), "git")); d == Ask {
			t.Fatalf("the saved rule does not apply:\n%s", data)
		}
	})
}

// BenchmarkSaveRule saves an answer into an auto-saved.toml that already
// holds 100 rules: read, update and atomic replace (with its fsync).
func BenchmarkSaveRule(b *testing.B) {
	path := filepath.Join(b.TempDir(), AutoSavedFile)
	for i := range 100 {
		sr, _ := savedRuleFor(withRoots(shellCall("tool"+strings.Repeat("x", i%7)+string(rune('a'+i%26))), "tool"+strings.Repeat("x", i%7)+string(rune('a'+i%26))), ModeDefault)
		if err := sr.save(path); err != nil {
			b.Fatal(err)
		}
	}
	sr, _ := savedRuleFor(withRoots(shellCall("git status"), "git"), ModeDefault)
	for b.Loop() {
		if err := sr.save(path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSaveWidensModes: the same answer given again in a less permissive
// mode updates the saved rule's modes instead of adding a second rule.
func TestSaveWidensModes(t *testing.T) {
	s := newSaving(t, Options{Mode: ModeAutoEdit})
	s.Remember(withRoots(shellCall("git status"), "git"), tool.ProceedAlwaysSave)
	first := s.file(t)
	if !strings.Contains(first, `modes = ["autoEdit", "yolo"]`) {
		t.Fatalf("saved in autoEdit:\n%s", first)
	}
	s.SetMode(ModeDefault)
	s.Remember(withRoots(shellCall("git status"), "git"), tool.ProceedAlwaysSave)
	for _, err := range s.errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := `[[rule]]
commandPrefix = ["git status"]
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "run_shell_command"
`
	if got := s.file(t); got != want {
		t.Errorf("saved:\n%s\nwant:\n%s", got, want)
	}
}

// TestSaveStringPrefixIsAnotherRule: a saved rule whose commandPrefix is a
// lone string is not the rule of an answer, whose prefixes are a list (Gemini
// CLI compares their JSON), so the answer adds its own rule.
func TestSaveStringPrefixIsAnotherRule(t *testing.T) {
	s := newSaving(t, Options{})
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		t.Fatal(err)
	}
	const mine = "[[rule]]\ncommandPrefix = \"git\"\ndecision = \"allow\"\nmodes = [\"yolo\"]\npriority = 950\ntoolName = \"run_shell_command\"\n"
	if err := os.WriteFile(s.path, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Remember(withRoots(shellCall("git status"), "git"), tool.ProceedAlwaysSave)
	want := mine + `
[[rule]]
commandPrefix = ["git status"]
decision = "allow"
modes = ["default", "autoEdit", "yolo"]
priority = 950
toolName = "run_shell_command"
`
	if got := s.file(t); got != want {
		t.Errorf("saved:\n%s\nwant:\n%s", got, want)
	}
}
