package policy

import (
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// alwaysShell holds the "always allow" answers given about shell calls in
// a session. Gemini CLI turns such an answer into an allow rule with a
// commandPrefix for each command the line runs, and sets the rule's
// allowRedirection only when the line answered redirected: after "always
// allow" on `git status`, `git log > out.txt` is asked about again, while
// after "always allow" on `git log > a.txt` it is not.
//
// Castor keeps the same facts per command the line runs, read as the
// shell runs it (shell.go), and narrower than Gemini CLI's root command:
// a program with subcommands is remembered with its first argument
// ("git add"), so that an answer about `git add f` does not allow
// `git -c core.fsmonitor=… status` or `git push`. A line with a command
// that cannot be known before it runs is never allowed by an answer, and
// an answer about one counts as "once".
//
// The zero value holds no answers; the Engine's lock guards it.
type alwaysShell struct {
	// keys maps a tool name and a command key (sessionKey) to whether
	// redirections were allowed with it.
	keys map[alwaysKey]bool
}

type alwaysKey struct{ tool, key string }

// subcommandPrograms are programs whose first argument picks what they do:
// an answer about one covers that subcommand only.
var subcommandPrograms = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"git": true, "npm": true, "pnpm": true, "yarn": true, "npx": true, "bun": true, "go": true,
		"cargo": true, "rustup": true, "docker": true, "podman": true, "kubectl": true, "helm": true,
		"gh": true, "pip": true, "pip3": true, "uv": true, "poetry": true, "apt": true, "apt-get": true,
		"brew": true, "dotnet": true, "mvn": true, "gradle": true, "terraform": true, "systemctl": true,
		"conda": true, "nix": true, "hg": true, "svn": true, "jj": true, "make": true, "deno": true,
	}
}}

// sessionKey is what an answer about the command remembers: its program,
// with its first argument for a program with subcommands.
func sessionKey(c shellCmd) string {
	if subcommandPrograms.Get()[c.root] && len(c.words) > 1 {
		return c.root + " " + shellQuote(c.words[1].s)
	}
	return c.root
}

// lineKeys are the keys of the commands a line runs; ok is false when
// one of them cannot be known before it runs.
func lineKeys(l *shellLine) (keys []string, ok bool) {
	if !l.known() {
		return nil, false
	}
	for _, c := range l.cmds {
		if c.raw {
			continue
		}
		keys = append(keys, sessionKey(c))
	}
	return keys, len(keys) > 0
}

// remember records an answer about the shell line cmd of tool.
func (a *alwaysShell) remember(tool, cmd string) {
	l := scanShell(cmd)
	keys, ok := lineKeys(&l)
	if !ok {
		return
	}
	if a.keys == nil {
		a.keys = map[alwaysKey]bool{}
	}
	for _, k := range keys {
		key := alwaysKey{tool, k}
		// A later answer about a redirecting line of the same command
		// adds the allowance; none takes it away. (Gemini CLI keeps both
		// rules and the first one added wins, so there the second answer
		// would not stop the asking; Castor honours it.)
		a.keys[key] = a.keys[key] || l.redirects
	}
}

// allows reports whether the answers allow the shell line cmd of tool:
// every command it runs was answered.
func (a *alwaysShell) allows(tool, cmd string) bool {
	ok, _ := a.match(tool, cmd)
	return ok
}

// allowsRedirect reports whether the answers that allow cmd allow its
// redirections too: every command was answered about a redirecting line.
func (a *alwaysShell) allowsRedirect(tool, cmd string) bool {
	_, redirect := a.match(tool, cmd)
	return redirect
}

func (a *alwaysShell) match(tool, cmd string) (allowed, redirect bool) {
	if len(a.keys) == 0 {
		return false, false
	}
	l := scanShell(strings.TrimSpace(cmd))
	keys, ok := lineKeys(&l)
	if !ok {
		return false, false
	}
	redirect = true
	for _, k := range keys {
		red, ok := a.keys[alwaysKey{tool, k}]
		if !ok {
			return false, false
		}
		redirect = redirect && red
	}
	return true, redirect
}

// lineRedirects reports whether a shell line redirects; a line that does
// not parse counts when it holds < or >, as Gemini CLI's fallback check.
func lineRedirects(cmd string) bool {
	l := scanShell(cmd)
	if !l.ok {
		return strings.ContainsAny(cmd, "<>")
	}
	return l.redirects
}

// SessionCommands are what an "allow for this session" answer about the
// shell line cmd covers, as the user should read it before answering:
// each command the line runs, a program with subcommands with its first
// argument ("git add", "ls"). ok is false when a command of the line
// cannot be known before it runs: then an answer covers this call only.
func SessionCommands(cmd string) (commands []string, ok bool) {
	l := scanShell(cmd)
	keys, ok := lineKeys(&l)
	for _, k := range keys {
		if !slices.Contains(commands, k) {
			commands = append(commands, k)
		}
	}
	return commands, ok
}
