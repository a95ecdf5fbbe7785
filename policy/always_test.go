package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// decideShell decides a shell line as the scheduler does: first without
// root commands, then, when the call would be asked about, again with
// the root commands its confirmation names.
func decideShell(e *Engine, cmd string) Decision {
	c := shellCall(cmd)
	d, _ := e.Decide(c)
	if d == Ask {
		c.RootCommands = lineRoots(cmd)
		d, _ = e.Decide(c)
	}
	return d
}

// lineRoots are the root commands of a line, as the shell tool's
// confirmation lists them.
func lineRoots(cmd string) []string {
	var roots []string
	for _, p := range scanShell(cmd).cmds {
		if p.root != "" && !slices.Contains(roots, p.root) {
			roots = append(roots, p.root)
		}
	}
	return roots
}

// answerAlways gives the "always allow" answer about cmd.
func answerAlways(e *Engine, cmd string, o tool.Outcome) {
	c := shellCall(cmd)
	c.RootCommands = lineRoots(cmd)
	e.Remember(c, o)
}

// TestAlwaysAllowShell checks that an "always allow" answer about a
// shell line lets later lines of the same commands run, but asks again
// about redirections unless the line answered redirected, and about
// command and process substitutions, as Gemini CLI 0.61 does.
func TestAlwaysAllowShell(t *testing.T) {
	const plain = "git commit -m wip"
	const redirected = "git log > log.txt"
	tests := []struct {
		name     string
		mode     Mode
		answered string
		cmd      string
		want     Decision
	}{
		{"plain", ModeDefault, plain, "git commit -m again", Allow},
		{"plain, same subcommand piped", ModeDefault, plain, "git commit -m a | git commit -F -", Allow},
		// An answer covers the subcommand it was given for, not git.
		{"other subcommand", ModeDefault, plain, "git push", Ask},
		{"git -c before the subcommand", ModeDefault, plain, `git -c core.fsmonitor="touch pwned" commit -m x`, Ask},
		{"git alias", ModeDefault, plain, `git -c alias.x="!touch pwned" x`, Ask},
		{"unknown command", ModeDefault, plain, "$GIT commit -m x", Ask},
		{"quoted > is no redirection", ModeDefault, plain, `git commit -m "a > b"`, Allow},
		{"single-quoted $( ) is literal", ModeDefault, plain, "git commit -m '$(not run)'", Allow},
		{">", ModeDefault, plain, "git log > out.txt", Ask},
		{">>", ModeDefault, plain, "git log >> out.txt", Ask},
		{"2>", ModeDefault, plain, "git commit -m x 2> err.txt", Ask},
		{"2>&1", ModeDefault, plain, "git commit -m x 2>&1", Ask},
		{"<", ModeDefault, plain, "git apply < fix.patch", Ask},
		{"| into another command", ModeDefault, plain, "git log | head", Ask},
		{"$( )", ModeDefault, plain, `git commit -m "$(git log -1 --format=%s)"`, Ask},
		{"backticks", ModeDefault, plain, "git commit -m `git log -1 --format=%s`", Ask},
		{"<( )", ModeDefault, plain, "git diff --no-index <(git show HEAD:a) b", Ask},
		{">( )", ModeDefault, plain, "git log > >(git stripspace)", Ask},
		{"heredoc", ModeDefault, plain, "git commit -F - <<EOF\nmsg\nEOF", Ask},
		{"here-string", ModeDefault, plain, "git commit -F - <<< msg", Ask},
		{"other command", ModeDefault, plain, "make install", Ask},

		// An answer about a redirecting line allows the redirections of
		// its commands, nothing more.
		{"answered > then >", ModeDefault, redirected, "git log > other.txt", Allow},
		{"answered > then >>", ModeDefault, redirected, "git log >> other.txt", Allow},
		{"answered > then 2>&1", ModeDefault, redirected, "git log 2>&1", Allow},
		{"answered > then $( )", ModeDefault, redirected, "git log $(git rev-parse HEAD)", Ask},
		{"answered > then | head >", ModeDefault, redirected, "git log | head > x", Ask},

		// auto_edit lets redirections through (Gemini CLI's downgrade
		// skips it), not substitutions; yolo lets everything through.
		{"auto_edit >", ModeAutoEdit, plain, "git commit -m x > out.txt", Allow},
		{"auto_edit $( )", ModeAutoEdit, plain, `git commit -m "$(git log -1)"`, Ask},
		{"yolo >", ModeYolo, plain, "git log > out.txt", Allow},
		{"yolo $( )", ModeYolo, plain, `git commit -m "$(git log -1)"`, Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Options{Interactive: true, Mode: tt.mode})
			answerAlways(e, tt.answered, tool.ProceedAlways)
			if got := decideShell(e, tt.cmd); got != tt.want {
				t.Errorf("after always allowing %q: %q is %v, want %v", tt.answered, tt.cmd, got, tt.want)
			}
		})
	}
}

// TestAlwaysAllowShellNeedsAnswer makes sure the rows above test the
// answer: without it, the plain line is asked about.
func TestAlwaysAllowShellNeedsAnswer(t *testing.T) {
	if got := decideShell(New(Options{Interactive: true}), "git commit -m again"); got != Ask {
		t.Fatalf("without an answer: %v", got)
	}
}

// TestAlwaysAllowShellLater: a later answer about a redirecting line of
// an already allowed command adds the redirections.
func TestAlwaysAllowShellLater(t *testing.T) {
	e := New(Options{Interactive: true})
	answerAlways(e, "git commit -m wip", tool.ProceedAlways)
	if got := decideShell(e, "git log > a.txt"); got != Ask {
		t.Fatalf("before the second answer: %v", got)
	}
	answerAlways(e, "git log > a.txt", tool.ProceedAlwaysSave)
	if got := decideShell(e, "git log > b.txt"); got != Allow {
		t.Fatalf("after the second answer: %v", got)
	}
}

// TestAlwaysAllowShellWithoutRoots: an answer about a line running a
// command that cannot be known before it runs ($RUNNER) counts as once:
// it allows nothing later, never the whole shell tool, whatever the
// outcome says.
func TestAlwaysAllowShellWithoutRoots(t *testing.T) {
	for _, o := range []tool.Outcome{tool.ProceedAlways, tool.ProceedAlwaysTool, tool.ProceedAlwaysServer} {
		t.Run(string(o), func(t *testing.T) {
			e := New(Options{Interactive: true})
			answerAlways(e, "$RUNNER build", o)
			for cmd, want := range map[string]Decision{
				"$RUNNER build":            Ask,
				"$RUNNER build --fast":     Ask,
				"$RUNNER buildx":           Ask,
				"$RUNNER build > out.txt":  Ask,
				"$RUNNER test":             Ask,
				"make install":             Ask,
				"$RUNNER build; rm -rf ./": Ask,
			} {
				if got := decideShell(e, cmd); got != want {
					t.Errorf("%q is %v, want %v", cmd, got, want)
				}
			}
		})
	}
}

// TestAlwaysAllowShellOnce: a one-time answer remembers nothing.
func TestAlwaysAllowShellOnce(t *testing.T) {
	e := New(Options{Interactive: true})
	answerAlways(e, "git commit -m wip", tool.ProceedOnce)
	if got := decideShell(e, "git commit -m again"); got != Ask {
		t.Fatalf("after a one-time answer: %v", got)
	}
}

func TestScanShellSubstitutes(t *testing.T) {
	tests := []struct {
		cmd                        string
		redirects, substitutes, ok bool
	}{
		{"git log", false, false, true},
		{"echo $(id)", false, true, true},
		{"echo `id`", false, true, true},
		{`echo "$(id)"`, false, true, true},
		{"echo '$(id)'", false, false, true},
		{`echo \$\(id\)`, false, false, true},
		{"echo $((1+2))", false, false, true},
		{"echo ${HOME}", false, false, true},
		{"diff <(ls a) b", false, true, true},
		{"tee >(wc -l) < in", true, true, true},
		{"cat <<EOF\n$(id)\nEOF", true, true, true},
		{"cat <<'EOF'\n$(id)\nEOF", true, false, true},
		{"sh -c 'echo $(id)'", false, true, true},
		{"echo $(", false, false, false},
	}
	for _, tt := range tests {
		l := scanShell(tt.cmd)
		if l.redirects != tt.redirects || l.substitutes != tt.substitutes || l.ok != tt.ok {
			t.Errorf("scanShell(%q) = redirects %v substitutes %v ok %v, want %v %v %v", tt.cmd, l.redirects, l.substitutes, l.ok, tt.redirects, tt.substitutes, tt.ok)
		}
	}
}

// FuzzAlwaysShell gives "always allow" answers about arbitrary shell
// lines and decides others: nothing panics, and an answer never turns
// into an allowance a line that substitutes, one that redirects (unless
// the line answered did), or one sharing no command with it.
func FuzzAlwaysShell(f *testing.F) {
	f.Add("git status", "git log > x")
	f.Add("$RUNNER build", "$RUNNER build $(id)")
	f.Add("cat <<EOF\nx\nEOF", "cat `id`")
	f.Add("sh -c 'ls'", "ls; rm -rf /")
	f.Fuzz(func(t *testing.T, answered, cmd string) {
		e := New(Options{Interactive: true})
		if decideShell(e, cmd) == Allow {
			return // the heuristics allow it without an answer
		}
		answerAlways(e, answered, tool.ProceedAlways)
		d := decideShell(e, cmd)
		// The engine reads the line without the white space around it.
		cmd = strings.TrimSpace(cmd)
		l := scanShell(cmd)
		if d == Allow && !slices.ContainsFunc(lineRoots(cmd), func(r string) bool { return slices.Contains(lineRoots(answered), r) }) && !strings.HasPrefix(strings.TrimSpace(cmd), strings.TrimSpace(answered)) {
			t.Fatalf("after %q, %q (another command) is allowed", answered, cmd)
		}
		if d == Allow && l.substitutes {
			t.Fatalf("after %q, %q (a substitution) is allowed", answered, cmd)
		}
		if d == Allow && l.redirects && !lineRedirects(answered) {
			t.Fatalf("after %q, %q (a redirection) is allowed", answered, cmd)
		}
	})
}

// TestAutoSavedShellRule reads rules as Gemini CLI's "allow for all future
// sessions" answer saves them (~/.gemini/policies/auto-saved.toml, user
// tier): a redirection is asked about unless the rule says
// allowRedirection, as with the session's own answers.
func TestAutoSavedShellRule(t *testing.T) {
	const saved = `
[[rule]]
decision = "allow"
priority = 950
toolName = "run_shell_command"
commandPrefix = [ "git" ]
modes = [ "default", "autoEdit", "yolo" ]
`
	tests := []struct {
		src, cmd string
		want     Decision
	}{
		{saved, "git commit -m wip", Allow},
		{saved, "git log > out.txt", Ask},
		{saved, "git log 2>&1", Ask},
		{saved, "git log | head", Ask},
		{saved, `git commit -m "$(id)"`, Ask},
		{saved + "allowRedirection = true\n", "git log > out.txt", Allow},
	}
	for _, tt := range tests {
		e := New(Options{Interactive: true, Rules: rules(t, TierUser, tt.src)})
		if got := decideShell(e, tt.cmd); got != tt.want {
			t.Errorf("%q is %v, want %v (rule %s)", tt.cmd, got, tt.want, tt.src)
		}
	}
}
