package policy

import "strings"

// alwaysShell holds the "always allow" answers given about shell calls in
// a session. Gemini CLI turns such an answer into an allow rule with a
// commandPrefix for each command the line runs, and sets the rule's
// allowRedirection only when the line answered redirected: after "always
// allow" on `git status`, `git log > out.txt` is asked about again, while
// after "always allow" on `git log > a.txt` it is not. Castor keeps the
// same two facts per root command.
//
// The zero value holds no answers; the Engine's lock guards it.
type alwaysShell struct {
	// roots maps a tool name and a root command to whether redirections
	// were allowed with it.
	roots map[alwaysRoot]bool
	// lines are answers about lines that name no command Castor can read
	// ("$RUNNER build"): as in Gemini CLI, the line itself is remembered
	// as a command prefix, never the whole shell tool.
	lines []alwaysLine
}

type alwaysRoot struct{ tool, root string }

type alwaysLine struct {
	tool, prefix string
	redirect     bool
}

// remember records an answer about the shell line cmd of tool, which
// runs the commands roots.
func (a *alwaysShell) remember(tool, cmd string, roots []string) {
	redirect := lineRedirects(cmd)
	if len(roots) == 0 {
		a.lines = append(a.lines, alwaysLine{tool: tool, prefix: strings.TrimSpace(cmd), redirect: redirect})
		return
	}
	if a.roots == nil {
		a.roots = map[alwaysRoot]bool{}
	}
	for _, r := range roots {
		k := alwaysRoot{tool, r}
		// A later answer about a redirecting line of the same command
		// adds the allowance; none takes it away. (Gemini CLI keeps both
		// rules and the first one added wins, so there the second answer
		// would not stop the asking; Castor honours it.)
		a.roots[k] = a.roots[k] || redirect
	}
}

// allows reports whether the answers allow the shell line cmd of tool,
// running the commands roots: every root was answered, or a remembered
// line is a prefix of cmd.
func (a *alwaysShell) allows(tool, cmd string, roots []string) bool {
	ok, _ := a.match(tool, cmd, roots)
	return ok
}

// allowsRedirect reports whether the answers that allow cmd allow its
// redirections too: every root was answered about a redirecting line,
// or a remembered redirecting line is a prefix of cmd.
func (a *alwaysShell) allowsRedirect(tool, cmd string, roots []string) bool {
	_, redirect := a.match(tool, cmd, roots)
	return redirect
}

func (a *alwaysShell) match(tool, cmd string, roots []string) (allowed, redirect bool) {
	if len(roots) > 0 {
		allowed, redirect = true, true
		for _, r := range roots {
			red, ok := a.roots[alwaysRoot{tool, r}]
			if !ok {
				allowed, redirect = false, false
				break
			}
			redirect = redirect && red
		}
	}
	cmd = strings.TrimSpace(cmd)
	for _, l := range a.lines {
		if l.tool == tool && linePrefix(l.prefix, cmd) {
			allowed = true
			redirect = redirect || l.redirect
		}
	}
	return allowed, redirect
}

// linePrefix reports whether prefix begins cmd as Gemini CLI's
// commandPrefix does: the whole line, or followed by a space or a quote.
func linePrefix(prefix, cmd string) bool {
	if prefix == "" || !strings.HasPrefix(cmd, prefix) {
		return false
	}
	return len(cmd) == len(prefix) || cmd[len(prefix)] == ' ' || cmd[len(prefix)] == '"'
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
