package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

const denyRm = `[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
`

// rmForm is one way of writing "rm victim": why, when set, is what the
// refusal must say (a command that cannot be known before it runs).
type rmForm struct{ Cmd, Why string }

// rmForms are the ways of running rm an adversary found (issue #25), in
// testdata/rmforms.json, which the end-to-end test reads too.
func rmForms(t testing.TB) []rmForm {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rmforms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var forms []rmForm
	if err := json.Unmarshal(b, &forms); err != nil {
		t.Fatalf("testdata/rmforms.json: %v", err)
	}
	if len(forms) < 61 {
		t.Fatalf("testdata/rmforms.json holds %d forms, want at least 61", len(forms))
	}
	return forms
}

// TestDenyRuleSeesWhatRuns: a deny rule for rm refuses every way of
// writing rm, in yolo mode and when asking is possible, with the reason
// when the command cannot be known before it runs.
func TestDenyRuleSeesWhatRuns(t *testing.T) {
	for _, o := range []Options{{Mode: ModeYolo}, {Mode: ModeDefault, Interactive: true}, {Mode: ModeAutoEdit, Interactive: true}} {
		o.Rules = rules(t, TierUser, denyRm)
		e := New(o)
		for _, f := range rmForms(t) {
			d, msg := e.Decide(shellCall(f.Cmd))
			if d != Deny {
				t.Errorf("%s: %q is %v, want deny", o.Mode, f.Cmd, d)
				continue
			}
			if !strings.HasPrefix(msg, deniedByPolicy) || !strings.Contains(msg, f.Why) {
				t.Errorf("%s: %q refused with %q, want it to say %q", o.Mode, f.Cmd, msg, f.Why)
			}
		}
	}
}

// TestUnknownCommandAsks: a command that cannot be known is asked about
// in default mode when no rule refuses it, and runs in yolo mode.
func TestUnknownCommandAsks(t *testing.T) {
	for _, cmd := range []string{"$a victim", "a=ls; $a", "/bin/l? -la", "python3 -c 'print(1)'", "echo ls | sh -s"} {
		if d, _ := New(Options{Interactive: true}).Decide(shellCall(cmd)); d != Ask {
			t.Errorf("default: %q is %v, want ask", cmd, d)
		}
		if d, _ := New(Options{Mode: ModeYolo}).Decide(shellCall(cmd)); d != Allow {
			t.Errorf("yolo: %q is %v, want allow", cmd, d)
		}
		d, msg := New(Options{}).Decide(shellCall(cmd))
		if d != Deny || (strings.Contains(cmd, "$a") && !strings.Contains(msg, "cannot be known")) {
			t.Errorf("headless: %q is %v %q, want deny naming why", cmd, d, msg)
		}
	}
	// Allow rules do not match an unknown command.
	allow := Options{Interactive: true, Allowed: []string{"run_shell_command(ls)"}, Rules: rules(t, TierUser, strings.ReplaceAll(strings.ReplaceAll(denyRm, "deny", "allow"), `"rm"`, `"ls"`))}
	for _, cmd := range []string{"ls", "ls -la"} {
		if d, _ := New(allow).Decide(shellCall(cmd)); d != Allow {
			t.Errorf("allow ls: %q is %v", cmd, d)
		}
	}
	for _, cmd := range []string{"a=ls; $a", "/bin/l? x", "ls && $CMD", "python3 -c 'print(1)'", "ls | sh"} {
		if d, _ := New(allow).Decide(shellCall(cmd)); d != Ask {
			t.Errorf("allow ls: %q is %v, want ask", cmd, d)
		}
	}
	// An allow rule for the program that runs the code allows the code:
	// it allows that program whatever it is given.
	cases := map[string]Decision{
		"python3 -c 'import this'":      Allow,
		"bash -c 'ls'":                  Deny, // ls itself is not allowed
		"sudo python3 -c 'import this'": Deny,
		"$PY -c 'import this'":          Deny,
	}
	e := New(Options{Allowed: []string{"run_shell_command(python3)", "run_shell_command(bash)"}})
	for cmd, want := range cases {
		if d, msg := e.Decide(shellCall(cmd)); d != want {
			t.Errorf("tools.allowed python3, bash: %q is %v %q, want %v", cmd, d, msg, want)
		}
	}
	// tools.allowed refuses lines with $, <, (, …; policy files read them.
	cases[`bash -c "$SCRIPT"`] = Allow
	e = New(Options{Rules: rules(t, TierUser, strings.ReplaceAll(strings.ReplaceAll(denyRm, "deny", "allow"), `"rm"`, `["python3", "bash"]`))})
	for cmd, want := range cases {
		if d, msg := e.Decide(shellCall(cmd)); d != want {
			t.Errorf("policy file allowing python3, bash: %q is %v %q, want %v", cmd, d, msg, want)
		}
	}
}

// TestExcludeSeesWhatRuns: tools.exclude run_shell_command(rm) refuses
// the forms that ran despite it (issue #25: 8 of 14).
func TestExcludeSeesWhatRuns(t *testing.T) {
	e := New(Options{Mode: ModeYolo, Excluded: []string{"run_shell_command(rm)"}})
	for _, cmd := range []string{
		"rm victim", `\rm victim`, "'rm' victim", "rm${IFS}victim", "{rm,victim}", "env rm victim",
		"command rm victim", "bash -lc 'rm victim'", "eval 'rm victim'", "/bin/r? victim",
		"echo victim | xargs rm", "echo 'rm victim' | sh", "$'\\x72m' victim", "a=rm; $a victim",
	} {
		if d, _ := e.Decide(shellCall(cmd)); d != Deny {
			t.Errorf("%q is %v, want deny", cmd, d)
		}
	}
	if d, _ := e.Decide(shellCall("ls -la")); d != Allow {
		t.Errorf("ls -la: %v", d)
	}
}

// gitStatusChains are lines starting with git status that run something
// else: an allow rule for git status must not allow them.
var gitStatusChains = []string{
	"git status; rm victim", "git status && rm victim", "git status || rm victim", "git status | rm victim",
	"git status & rm victim", "git status\nrm victim", "git status $(rm victim)", "git status `rm victim`",
	"git status <(rm victim)", "git status >(rm victim)", "git status |& rm victim", "git status; (rm victim)",
	"git status; { rm victim; }", "git status > victim", "git status >> victim", "git status 2> victim",
	"git status &> victim", "git status; eval rm victim", "git status; bash -c 'rm victim'",
	"git status; $X", "git status && $(echo rm) victim", "git status; a=rm; $a victim",
	"git status\r\nrm victim", "git status;rm victim", "git status&&rm victim", "git status | sh",
}

// TestAllowRuleHoldsChains: an allow rule for git status (policy file,
// tools.allowed) allows git status, never a line that runs more.
func TestAllowRuleHoldsChains(t *testing.T) {
	allowFile := strings.ReplaceAll(strings.ReplaceAll(denyRm, "deny", "allow"), `"rm"`, `"git status"`)
	for name, o := range map[string]Options{
		"file":            {Rules: rules(t, TierUser, allowFile)},
		"tools.allowed":   {Allowed: []string{"run_shell_command(git status)"}},
		"file, auto_edit": {Mode: ModeAutoEdit, Rules: rules(t, TierUser, allowFile)},
	} {
		e := New(o)
		if len(gitStatusChains) != 26 {
			t.Fatalf("%d chains", len(gitStatusChains))
		}
		for _, cmd := range gitStatusChains {
			if o.Mode == ModeAutoEdit && strings.Contains(cmd, "> victim") {
				continue // auto_edit allows redirections, as Gemini CLI
			}
			if d, _ := e.Decide(shellCall(cmd)); d == Allow {
				t.Errorf("%s: %q is allowed", name, cmd)
			}
		}
		for _, cmd := range []string{"git status", "git status --short", "git status -sb", "git status src"} {
			if d, msg := e.Decide(shellCall(cmd)); d != Allow {
				t.Errorf("%s: %q is %v %q, want allow", name, cmd, d, msg)
			}
		}
	}
}

// TestKnownSafeStaysInWorkspace: a known-safe command runs unasked only
// when the files it names are inside the workspace and it writes none.
func TestKnownSafeStaysInWorkspace(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Interactive: true, Workspace: tool.NewWorkspace(ws)})
	tests := map[string]Decision{
		"cat README.md":                        Allow,
		"cat src/../README.md":                 Allow,
		"ls -la":                               Allow,
		"ls -la src":                           Allow,
		"grep -rn TODO src":                    Allow,
		"uniq victim":                          Allow,
		"sed -n 1p notes.txt":                  Allow,
		"git status":                           Allow,
		"git -C src status":                    Allow,
		"echo /etc/passwd":                     Allow,
		"cat /etc/passwd":                      Ask,
		"cat ../../../../etc/passwd":           Ask,
		"sed -n 1p /etc/shadow":                Ask,
		"ls -la ~":                             Ask,
		"ls ~/.ssh":                            Ask,
		"cat /proc/$PPID/environ":              Ask,
		"uniq victim PWNED":                    Ask,
		"grep -r root /etc":                    Ask,
		"head --lines=1 --file=/etc/passwd x":  Ask,
		"git -C / status":                      Ask,
		"git --git-dir=/tmp/other/.git status": Ask,
		"git -c core.fsmonitor=x status":       Ask,
		"find / -name passwd":                  Ask,
		"echo x > .git/config":                 Ask,
	}
	for cmd, want := range tests {
		if got, _ := e.Decide(shellCall(cmd)); got != want {
			t.Errorf("%q is %v, want %v", cmd, got, want)
		}
	}
	// dir_path moves the reference point of relative paths.
	c := shellCall("cat ../x")
	c.Args["dir_path"] = "src"
	if got, _ := e.Decide(c); got != Allow {
		t.Errorf("cat ../x in src: %v", got)
	}
	c = shellCall("cat ../../x")
	c.Args["dir_path"] = "src"
	if got, _ := e.Decide(c); got != Ask {
		t.Errorf("cat ../../x in src: %v", got)
	}
	// With the shell tool allowed, auto_edit lets redirections through,
	// not into .git/ or .gemini/ (outside yolo mode).
	ae := New(Options{Mode: ModeAutoEdit, Interactive: true, Allowed: []string{"run_shell_command"}, Workspace: tool.NewWorkspace(ws)})
	for cmd, want := range map[string]Decision{
		"echo x > notes.txt":                         Allow,
		"echo x > .git/config":                       Ask,
		"echo x >> .git/hooks/pre-commit":            Ask,
		"echo '{}' > .gemini/settings.json":          Ask,
		"cat notes.txt | tee .git/info/exclude":      Ask,
		"echo x > /tmp/out":                          Allow,
		"cp notes.txt .git/hooks/post-checkout":      Ask,
		"printf '[core]\\n' > ./.git/config; ls -la": Ask,
	} {
		if got, _ := ae.Decide(shellCall(cmd)); got != want {
			t.Errorf("auto_edit: %q is %v, want %v", cmd, got, want)
		}
	}
}

// TestProtectedEditsAsk: in auto_edit, an edit under .git/ or .gemini/
// is asked about (git runs hooks and fsmonitor, Castor reads settings).
func TestProtectedEditsAsk(t *testing.T) {
	e := New(Options{Mode: ModeAutoEdit, Interactive: true})
	for path, want := range map[string]Decision{
		"src/a.go":              Allow,
		"notes.md":              Allow,
		".gitignore":            Allow,
		".git/config":           Ask,
		".git/hooks/pre-commit": Ask,
		".GIT/config":           Ask,
		"/w/.git/config":        Ask,
		".gemini/settings.json": Ask,
		"sub/.gemini/GEMINI.md": Ask,
	} {
		for _, name := range []string{"write_file", "replace"} {
			if got, _ := e.Decide(editCall(name, path)); got != want {
				t.Errorf("%s %s: %v, want %v", name, path, got, want)
			}
		}
	}
	// yolo still allows them.
	if got, _ := New(Options{Mode: ModeYolo}).Decide(editCall("write_file", ".git/config")); got != Allow {
		t.Errorf("yolo: %v", got)
	}
}

// TestSessionApprovalScope: "allow for this session" on git add covers
// git add, not git with other subcommands or options before them.
func TestSessionApprovalScope(t *testing.T) {
	e := New(Options{Interactive: true})
	answerAlways(e, "git add f", tool.ProceedAlways)
	for cmd, want := range map[string]Decision{
		"git add g":               Allow,
		"git add -A && git add x": Allow,
		`git -c core.fsmonitor="touch pwned" status`: Ask,
		`git -c alias.x="!touch pwned" x`:            Ask,
		"git push":                                   Ask,
		"git --git-dir=x add f":                      Ask,
		"sudo git add f":                             Ask,
		"$G add f":                                   Ask,
	} {
		if got := decideShell(e, cmd); got != want {
			t.Errorf("%q is %v, want %v", cmd, got, want)
		}
	}
	// A program without subcommands is remembered by its name.
	answerAlways(e, "ls -la", tool.ProceedAlways)
	if got := decideShell(e, "ls -la /"); got != Allow {
		t.Errorf("ls after answering ls: %v", got)
	}
}

// TestScanShellResolves pins how words resolve and wrappers unwrap.
func TestScanShellResolves(t *testing.T) {
	tests := map[string][]string{
		`\rm -f 'a b'`:                 {`rm -f 'a b'`},
		`rm${IFS}x`:                    {"rm x"},
		`{rm,x}`:                       {"rm x"},
		`$'\x72m' x`:                   {"rm x"},
		`env -i A=1 nice -n 3 rm x`:    {"env -i A=1 nice -n 3 rm x", "nice -n 3 rm x", "rm x"},
		`sudo -u root -- rm x`:         {"sudo -u root -- rm x", "rm x"},
		`xargs -0 -n1 rm`:              {"xargs -0 -n1 rm", "rm"},
		`find . -exec rm {} +`:         {"find . -exec rm '{}' +", "rm '{}'"},
		`find . -delete`:               {"find . -delete", "rm . -delete"},
		`bash -lc 'ls && rm x'`:        {"bash -lc 'ls && rm x'", "ls", "rm x"},
		`echo 'rm x' | sh`:             {"echo 'rm x'", "sh", "rm x"},
		"cat <<'E' | sh\nrm $x\nE":     {"cat", "sh", "rm $x"},
		`watch -n1 rm x`:               {"watch -n1 rm x", "rm x"},
		`flock l -c 'rm x'`:            {"flock l -c 'rm x'", "rm x"},
		`command -v rm`:                {"command -v rm"},
		`timeout -k 1 5 /usr/bin/rm x`: {"timeout -k 1 5 /usr/bin/rm x", "rm x"},
	}
	for cmd, want := range tests {
		l := scanShell(cmd)
		var got []string
		for _, c := range l.cmds {
			switch {
			case c.unknown != "":
				got = append(got, "?")
			case !c.raw:
				got = append(got, c.text)
			}
		}
		if strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("scanShell(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// rmSpellings are ways of writing the word rm; rmPrefixes wrappers put
// before it.
var (
	rmSpellings = []string{"rm", "'rm'", `"rm"`, `\rm`, `r\m`, `$'rm'`, `r''m`, `$'\x72m'`, "/bin/rm", `"/usr/bin/rm"`}
	rmPrefixes  = []string{"", "env ", "command ", "sudo ", "X=1 ", "nice -n 2 ", "timeout 3 ", "time ", "exec ", "true; ", "true && "}
)

// FuzzShellRules compares the parser's view of what runs with the
// decision: under a deny rule for rm (yolo mode), a line whose parsed
// commands include rm, or one that cannot be known, is never allowed; and
// the decision on "<prefix><rm spelled some way> <rest>" is the same
// refusal whatever the spelling.
func FuzzShellRules(f *testing.F) {
	for _, s := range []string{"victim", "-rf /", "x; ls", "$(ls)", "'a b' > c", "&& echo", "\\", "'", "<<EOF", "#c", "|sh"} {
		f.Add(s, uint8(0), uint8(0))
	}
	for _, fm := range rmForms(f) {
		f.Add(fm.Cmd, uint8(3), uint8(1))
	}
	src := denyRm
	f.Fuzz(func(t *testing.T, rest string, spelling, prefix uint8) {
		rs, _ := ParseRules("fuzz.toml", []byte(src), TierUser)
		e := New(Options{Mode: ModeYolo, Rules: rs})
		d, msg := e.Decide(shellCall(rest))
		l := scanShell(strings.TrimSpace(rest))
		for _, c := range l.cmds {
			if (c.root == "rm" && !c.raw || c.unknown != "") && d != Deny {
				t.Fatalf("%q runs %q (%s) and is %v", rest, c.text, c.unknown, d)
			}
		}
		if d == Deny && !strings.HasPrefix(msg, deniedByPolicy) {
			t.Fatalf("%q: message %q", rest, msg)
		}
		if strings.ContainsAny(rest, "\x00") || strings.HasPrefix(strings.TrimLeft(rest, " \t"), "(") {
			return // "rm () …" defines a function named rm
		}
		line := rmPrefixes[int(prefix)%len(rmPrefixes)] + rmSpellings[int(spelling)%len(rmSpellings)] + " " + rest
		if d, msg := e.Decide(shellCall(line)); d != Deny || !strings.HasPrefix(msg, deniedByPolicy) {
			t.Fatalf("%q is %v %q, want deny", line, d, msg)
		}
	})
}
