package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShellHeuristics decides command lines as Gemini CLI 0.61 does on a
// POSIX host without a sandbox, in each setting: a known-safe command
// alone runs unasked where the shell tool would be asked about; compound
// lines, redirections, dangerous and unknown commands are asked about;
// headless runs refuse; explicit deny rules win.
func TestShellHeuristics(t *testing.T) {
	const (
		A = Allow
		K = Ask
		D = Deny
	)
	denyLs := `[[rule]]
toolName = "run_shell_command"
commandPrefix = "ls"
decision = "deny"
priority = 100
`
	allowShell := `[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
`
	engines := []struct {
		name string
		opts func(t *testing.T) Options
	}{
		{"default", func(*testing.T) Options { return Options{Interactive: true} }},
		{"headless", func(*testing.T) Options { return Options{} }},
		{"auto_edit", func(*testing.T) Options { return Options{Mode: ModeAutoEdit, Interactive: true} }},
		{"yolo", func(*testing.T) Options { return Options{Mode: ModeYolo, Interactive: true} }},
		{"plan", func(*testing.T) Options { return Options{Mode: ModePlan, Interactive: true} }},
		{"untrusted", func(*testing.T) Options { return Options{Interactive: true, Untrusted: true} }},
		{"allowed", func(*testing.T) Options {
			return Options{Interactive: true, Allowed: []string{"run_shell_command"}}
		}},
		{"allowed_headless", func(*testing.T) Options { return Options{Allowed: []string{"run_shell_command"}} }},
		{"deny_ls_file", func(t *testing.T) Options {
			return Options{Interactive: true, Rules: rules(t, TierUser, denyLs)}
		}},
		{"deny_ls_file_yolo", func(t *testing.T) Options {
			return Options{Mode: ModeYolo, Rules: rules(t, TierUser, denyLs)}
		}},
		{"allow_file", func(t *testing.T) Options {
			return Options{Interactive: true, Rules: rules(t, TierUser, allowShell)}
		}},
	}
	// want lists the decision of each engine, in the order above.
	tests := []struct {
		cmd  string
		want []Decision
	}{
		//                                       def hl ae yo pl un al alh dl dly af
		{"ls", []Decision{A, D, A, A, D, A, A, A, D, D, A}},
		{"ls -la src", []Decision{A, D, A, A, D, A, A, A, D, D, A}},
		{"cat README.md", []Decision{A, D, A, A, D, A, A, A, A, A, A}},
		{"echo git", []Decision{A, D, A, A, D, A, A, A, A, A, A}},
		{"grep -rn TODO .", []Decision{A, D, A, A, D, A, A, A, A, A, A}},
		{"git status", []Decision{A, D, A, A, D, K, A, A, A, A, A}},
		{"git log --oneline -5", []Decision{A, D, A, A, D, K, A, A, A, A, A}},
		{"git -C sub diff HEAD~1", []Decision{A, D, A, A, D, K, A, A, A, A, A}},
		{"git branch -a", []Decision{A, D, A, A, D, K, A, A, A, A, A}},
		{"FOO=1 git status", []Decision{K, D, K, A, D, K, A, A, K, A, A}},
		{"git commit -m wip", []Decision{K, D, K, A, D, K, A, A, K, A, A}},
		{"git branch -D old", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"git diff --output=x.patch", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"git -c core.pager=sh log", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"sed -n 5,10p notes.txt", []Decision{A, D, A, A, D, A, A, A, A, A, A}},
		{"sed -i s/a/b/ notes.txt", []Decision{K, D, K, A, D, K, A, A, K, A, A}},
		{"find . -name '*.go'", []Decision{A, D, A, A, D, A, A, A, A, A, A}},
		{"find . -name '*.o' -delete", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"base64 data.bin", []Decision{A, D, A, A, D, A, A, A, A, A, A}},
		{"base64 -o out data.bin", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"rm -rf build", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"sudo rm -f /etc/x", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"rm build.log", []Decision{K, D, K, A, D, K, A, A, K, A, A}},
		{"npm test", []Decision{K, D, K, A, D, K, A, A, K, A, A}},
		{"ls > out.txt", []Decision{K, D, K, A, D, K, K, D, D, D, K}},
		{"echo hi 2>&1", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"ls && pwd", []Decision{K, D, K, A, D, K, A, A, D, D, A}},
		// Any dangerous command of a line makes it ask (Gemini CLI: the first only).
		{"ls; rm -rf x", []Decision{K, D, K, A, D, K, K, D, D, D, K}},
		{"cd sub && rm -f x", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"ls | wc -l", []Decision{K, D, K, A, D, K, A, A, D, D, A}},
		// Castor reads the substitution: rm -rf is dangerous there too.
		{"echo $(rm -rf x)", []Decision{K, D, K, A, D, K, K, D, K, A, K}},
		{"bash -c 'ls'", []Decision{K, D, K, A, D, K, A, A, D, D, A}},
		{"/bin/ls", []Decision{K, D, K, A, D, K, A, A, D, D, A}},
		{"rg foo", []Decision{K, D, K, A, D, K, A, A, K, A, A}},
		// A line that does not parse may run anything: deny rules apply.
		{`echo "unterminated`, []Decision{K, D, K, A, D, K, K, D, D, D, K}},
	}
	for i, en := range engines {
		t.Run(en.name, func(t *testing.T) {
			e := New(en.opts(t))
			for _, tt := range tests {
				if got, msg := e.Decide(shellCall(tt.cmd)); got != tt.want[i] {
					t.Errorf("%q: %v (%s), want %v", tt.cmd, got, msg, tt.want[i])
				}
			}
		})
	}
}

func TestShellTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"ls -la", []string{"ls", "-la"}, true},
		{`echo "a b" 'c d' e\ f`, []string{"echo", "a b", "c d", "e f"}, true},
		{`echo "x\"y\\z\n"`, []string{"echo", `x"y\z\n`}, true},
		{"a&&b||c|d;e&f", []string{"a", "&&", "b", "||", "c", "|", "d", ";", "e", "&", "f"}, true},
		{"ls >>out 2>&1 <in", []string{"ls", ">>", "out", "2", ">&", "1", "<", "in"}, true},
		{"(cd x) # comment\ngit status", []string{"(", "cd", "x", ")", ";", "git", "status"}, true},
		{"a#b", []string{"a#b"}, true},
		{`echo "open`, nil, false},
		{`echo 'open`, nil, false},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, ok := shellTokens(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("shellTokens(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestKnownSafeAndDangerous(t *testing.T) {
	tests := []struct {
		cmd             string
		safe, dangerous bool
	}{
		{"ls", true, false},
		{"whoami", true, false},
		{"stat -c %s f", true, false},
		{"git show HEAD", true, false},
		{"git show --ext-diff HEAD", false, true},
		{"git log --exec=x", false, true},
		{"git branch", true, false},
		{"git branch --show-current", true, false},
		{"git branch new", false, true},
		{"git push", false, false},
		{"git --git-dir=.git status", true, false},
		{"git --config-env=a=b status", false, true},
		{"sed -n 3p f", true, false},
		{"sed -n 3,p f", false, false},
		{"sed -n 3p f g h", false, false},
		{"bash -c 'ls && git status'", true, false},
		{"zsh -lc 'cat f | wc -l'", true, false},
		{"bash -c 'ls > x'", false, false},
		{"bash -c 'ls; rm x'", false, false},
		{"rm -f x", false, true},
		{"rm -r x", false, false},
		{"rm", false, false},
		{"rm -rf x", false, true},
		{"rm -fr x", false, true},
		{"rm x -f", false, false},
		{"sudo rm -f x", false, true},
		{"sudo rm x", false, false},
		{"sudo", false, false},
		{"sudo find / -exec rm {} ;", false, true},
		{"rg --pre cat x", false, true},
		{"/usr/bin/rg --search-zip x", false, true},
		{"tee out", false, false},
	}
	for _, tt := range tests {
		toks, ok := shellTokens(tt.cmd)
		if !ok {
			t.Fatalf("%q does not tokenize", tt.cmd)
		}
		if got := knownSafe(toks); got != tt.safe {
			t.Errorf("knownSafe(%q) = %v", tt.cmd, got)
		}
		if got := dangerous(toks); got != tt.dangerous {
			t.Errorf("dangerous(%q) = %v", tt.cmd, got)
		}
	}
}

func TestRunsGit(t *testing.T) {
	tests := map[string]bool{
		"git status":                  true,
		"/usr/bin/git log":            true,
		"GIT_DIR=x git log":           true,
		"sudo git pull":               true,
		"env A=1 git log":             true,
		"echo hi && git status":       true,
		"(git log)":                   true,
		"ls\ngit log":                 true,
		"echo git":                    false,
		"curl https://x/y.git":        false,
		"ls | xargs git add":          false, // as in Gemini CLI: only a command's first word
		"cat .gitignore":              false,
		"echo ok; GIT.EXE status":     true,
		"git":                         true,
		"npm run git":                 false,
		"time git gc":                 true,
		"FOO=1 BAR=2 /opt/git status": true,
	}
	for cmd, want := range tests {
		toks, _ := shellTokens(cmd)
		if got := runsGit(toks); got != want {
			t.Errorf("runsGit(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestDocsListSafeCommands keeps the policies page's list of safe
// commands in step with the code.
func TestDocsListSafeCommands(t *testing.T) {
	b, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "## Safe shell commands")
	if !ok {
		t.Fatal("docs/policies.md has no Safe shell commands section")
	}
	sec, _, _ = strings.Cut(sec, "\n#")
	for c := range safeCommands.Get() {
		if !strings.HasPrefix(c, "__") && !strings.Contains(sec, "`"+c+"`") {
			t.Errorf("docs/policies.md does not list %s", c)
		}
	}
}

// FuzzShellTokens: the tokenizer never panics, and every engine decision
// on an arbitrary line is one of the three.
func FuzzShellTokens(f *testing.F) {
	for _, s := range []string{"ls -la", `echo "a\"b" 'c' d\ e`, "a&&b||c|d;e&f", "git -c x=y log > f", "bash -c 'ls; pwd'", `"`, "\\", "#"} {
		f.Add(s)
	}
	e := New(Options{Interactive: true, Untrusted: true})
	f.Fuzz(func(t *testing.T, s string) {
		toks, _ := shellTokens(s)
		_ = knownSafe(toks)
		_ = dangerous(toks)
		_ = runsGit(toks)
		if d, _ := e.Decide(shellCall(s)); d != Allow && d != Ask && d != Deny {
			t.Fatalf("decision %v", d)
		}
	})
}

// TestIsAssignment: NAME=value, where NAME is a shell variable name
// (letters, digits after the first character, underscores).
func TestIsAssignment(t *testing.T) {
	for tok, want := range map[string]bool{
		"LANG=C": true, "_x=1": true, "a1_B2=": true, "Z9=z": true, "z=": true,
		"=x": false, "1a=x": false, "a-b=x": false, "a b=x": false, "ls": false, "a.b=c": false,
		"a@=x": false, "a[=x": false, "a`=x": false, "a{=x": false, "a/=x": false, "a:=x": false,
	} {
		if got := isAssignment(tok); got != want {
			t.Errorf("isAssignment(%q) = %v, want %v", tok, got, want)
		}
	}
}

// TestSplitTokens: a line's tokens cut into its simple commands; a
// separator at either end adds no empty command.
func TestSplitTokens(t *testing.T) {
	tests := []struct {
		tokens []string
		want   string
	}{
		{nil, `[]`},
		{[]string{";"}, `[]`},
		{[]string{"ls", ";"}, `[[ls]]`},
		{[]string{"&&", "ls"}, `[[ls]]`},
		{[]string{"ls", "-l", "&&", "pwd", "|", "wc", ">", "f"}, `[[ls -l] [pwd] [wc > f]]`},
		{[]string{"a", "||", "b", "|&", "c", ";;", "d", "&", "e"}, `[[a] [b] [c] [d] [e]]`},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(splitTokens(tt.tokens)); got != tt.want {
			t.Errorf("splitTokens(%q) = %s, want %s", tt.tokens, got, tt.want)
		}
	}
}

// TestSystemPath: rg and the like count as trusted only by an absolute
// path into a system directory.
func TestSystemPath(t *testing.T) {
	for _, tt := range []struct {
		dir, p string
		want   bool
	}{
		{"/usr/bin", "/usr/bin", true},
		{"/usr/bin", "/usr/bin/rg", true},
		{"/usr/bin", "/usr/binx/rg", false},
		{"/usr/bin", "/usr", false},
		{"/usr/bin", "/opt/usr/bin/rg", false},
	} {
		if got := within(tt.dir, tt.p); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.dir, tt.p, got, tt.want)
		}
	}
	if systemPath("sh") {
		t.Error("a bare name counted as a system path")
	}
	if systemPath(filepath.Join(t.TempDir(), "sh")) {
		t.Error("a missing file counted as a system path")
	}
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skipf("no /bin/sh here: %v", err)
	}
	if !systemPath("/bin/sh") {
		t.Errorf("/bin/sh (%s) is not a system path", sh)
	}
}
