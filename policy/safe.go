package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// Gemini CLI's shell heuristics (0.61, POSIX hosts without a sandbox):
// before the rules' decision for a shell line is final, the line is read
// as a flat list of words and operators, and
//
//   - a line that runs git in an untrusted workspace is asked about,
//   - a dangerous line (rm -f, find -delete, git -c, …) is asked about,
//     except in yolo mode (Castor checks every command of the line where
//     Gemini CLI checks the first only),
//   - a known-safe read-only line turns "ask" into "allow".
//
// Only a decision that came from a rule without an argument pattern
// (the built-in "ask about shell commands" rule, yolo's allow-all, a
// tools.allowed entry without a command) is adjusted, and only for the
// whole line: the simple commands of a compound line are then decided
// without the heuristics, so "ls && pwd" still asks while "ls" runs.

// shellTokens splits a command line into words and operators the way the
// shell-quote package Gemini CLI uses does: quotes and backslashes are
// removed, "$VAR" is kept as written, a "#" comment is dropped, and each
// operator (&&, ||, |, ;, &, (, ), <, >, >>, …) is a token of its own. A
// newline counts as ";". ok is false for an unterminated quote.
func shellTokens(s string) (tokens []string, ok bool) {
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			tokens = append(tokens, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			flush()
			i++
		case c == '\n':
			flush()
			tokens = append(tokens, ";")
			i++
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			i++
			closed := false
			for i < len(s) {
				if s[i] == '"' {
					closed = true
					i++
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, false
			}
			inWord = true
		case c == '\\':
			if i+1 < len(s) {
				if s[i+1] != '\n' {
					cur.WriteByte(s[i+1])
					inWord = true
				}
				i += 2
			} else {
				i++
			}
		default:
			if op := shellOperator(s[i:]); op != "" {
				flush()
				tokens = append(tokens, op)
				i += len(op)
				continue
			}
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	flush()
	return tokens, true
}

// shellOperators are the control and redirection operators, longest
// first so that "&&" is not read as two "&".
var shellOperators = []string{"<<<", "||", "&&", ";;", "|&", "<(", ">>", ">&", "<&", "&", ";", "(", ")", "|", "<", ">"}

func shellOperator(s string) string {
	for _, op := range shellOperators {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// splitTokens cuts a token list at its control operators into the simple
// commands it runs (redirection operators stay in their command).
func splitTokens(tokens []string) [][]string {
	var out [][]string
	var cur []string
	for _, t := range tokens {
		switch t {
		case "&&", "||", "|", "|&", ";", ";;", "&":
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
		default:
			cur = append(cur, t)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// safeCommands run without side effects whatever their arguments (as
// far as Gemini CLI is concerned: "echo" and "cd" are on its list).
var safeCommands = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"__read": true, "__write": true, "cat": true, "cd": true, "cut": true, "echo": true,
		"expr": true, "false": true, "grep": true, "head": true, "id": true, "ls": true,
		"nl": true, "paste": true, "pwd": true, "rev": true, "seq": true, "stat": true,
		"tail": true, "tr": true, "true": true, "uname": true, "uniq": true, "wc": true,
		"which": true, "whoami": true, "numfmt": true, "tac": true,
	}
}}

// knownSafe reports whether a command line, as tokens, is read-only by
// Gemini CLI's reckoning. Like Gemini CLI it looks at the line's first
// command and its arguments (the other commands of a compound line are
// decided separately), and into "bash -c 'script'" scripts.
func knownSafe(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if safeExec(args) {
		return true
	}
	if len(args) == 3 && (args[0] == "bash" || args[0] == "zsh") && (args[1] == "-c" || args[1] == "-lc") {
		script := args[2]
		// Subshells and redirections in the script are never safe.
		if strings.ContainsAny(script, "()<>") {
			return false
		}
		toks, ok := shellTokens(script)
		if !ok {
			return false
		}
		cmds := splitTokens(toks)
		if len(cmds) == 0 {
			return false
		}
		for _, c := range cmds {
			if !safeExec(c) {
				return false
			}
		}
		return true
	}
	return false
}

// safeExec checks one command and its arguments against the allow-list.
func safeExec(args []string) bool {
	cmd := args[0]
	switch {
	case safeCommands.Get()[cmd]:
		return true
	case cmd == "base64":
		return !base64Writes(args)
	case cmd == "find":
		return !findHasAction(args)
	case isRipgrep(cmd):
		return systemPath(cmd) && !ripgrepRuns(args)
	case cmd == "git":
		if gitConfigOverride(args) {
			return false
		}
		return gitReadOnly(args)
	case cmd == "sed":
		return len(args) <= 4 && len(args) >= 3 && args[1] == "-n" && sedPrint(args[2])
	}
	return false
}

// dangerous reports whether a command line, as tokens, is one Gemini CLI
// always asks about outside yolo mode: forced removal, find with an
// action, rg running programs, git with config overrides or writing flags,
// base64 writing a file; sudo is looked through.
func dangerous(args []string) bool {
	if len(args) == 0 {
		return false
	}
	cmd := args[0]
	switch {
	case cmd == "rm":
		return len(args) > 1 && (args[1] == "-f" || args[1] == "-rf" || args[1] == "-fr")
	case cmd == "sudo":
		return dangerous(args[1:])
	case cmd == "find":
		return findHasAction(args)
	case isRipgrep(cmd):
		return ripgrepRuns(args)
	case cmd == "git":
		if gitConfigOverride(args) {
			return true
		}
		sub, rest := gitSubcommand(args)
		switch sub {
		case "status", "log", "diff", "show":
			return !gitArgsReadOnly(rest)
		case "branch":
			return !gitArgsReadOnly(rest) || !gitBranchLists(rest)
		}
		return false
	case cmd == "base64":
		return base64Writes(args)
	}
	return false
}

func base64Writes(args []string) bool {
	for _, a := range args[1:] {
		if a == "-o" || a == "--output" || strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "-o") {
			return true
		}
	}
	return false
}

var findActions = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true, "-delete": true, "-fls": true, "-fprint": true, "-fprint0": true, "-fprintf": true}
}}

func findHasAction(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return findActions.Get()[a] })
}

func isRipgrep(cmd string) bool {
	b := filepath.Base(cmd)
	return b == "rg" || b == "rg.exe"
}

// ripgrepRuns reports flags with which rg runs other programs or
// decompressors.
func ripgrepRuns(args []string) bool {
	for _, a := range args {
		switch {
		case a == "-z" || a == "--search-zip":
			return true
		case a == "--pre" || strings.HasPrefix(a, "--pre="), a == "--hostname-bin" || strings.HasPrefix(a, "--hostname-bin="):
			return true
		}
	}
	return false
}

// systemDirs are where a trusted program lives (rg must be named by an
// absolute path into one of them to count as safe).
var systemDirs = []string{"/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin", "/opt/homebrew/Cellar", "/usr/local/Cellar", "/usr/sbin", "/sbin"}

func systemPath(cmd string) bool {
	if !filepath.IsAbs(cmd) {
		return false
	}
	real, err := filepath.EvalSymlinks(cmd)
	if err != nil {
		return false
	}
	if wd, err := os.Getwd(); err == nil && wd != "/" && within(wd, real) {
		return false
	}
	return slices.ContainsFunc(systemDirs, func(d string) bool { return within(d, real) })
}

func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

func gitConfigOverride(args []string) bool {
	for _, a := range args {
		if a == "-c" || a == "--config-env" || (strings.HasPrefix(a, "-c") && len(a) > 2) || strings.HasPrefix(a, "--config-env=") {
			return true
		}
	}
	return false
}

// gitSubcommand finds the subcommand of a git line among the read-only
// ones, past git's global options, and returns it with its arguments;
// sub is "" for any other subcommand.
func gitSubcommand(args []string) (sub string, rest []string) {
	withValue := map[string]bool{"-C": true, "-c": true, "--config-env": true, "--exec-path": true, "--git-dir": true, "--namespace": true, "--super-prefix": true, "--work-tree": true}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case withValue[a]:
			i++
			continue
		case (strings.HasPrefix(a, "-C") || strings.HasPrefix(a, "-c")) && len(a) > 2,
			strings.HasPrefix(a, "-"):
			continue
		}
		switch a {
		case "status", "log", "diff", "show", "branch":
			return a, args[i+1:]
		}
		return "", nil
	}
	return "", nil
}

func gitReadOnly(args []string) bool {
	sub, rest := gitSubcommand(args)
	switch sub {
	case "status", "log", "diff", "show":
		return gitArgsReadOnly(rest)
	case "branch":
		return gitArgsReadOnly(rest) && gitBranchLists(rest)
	}
	return false
}

// gitArgsReadOnly rejects the flags with which a reading git subcommand
// writes a file or runs a program.
func gitArgsReadOnly(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--output" || a == "--ext-diff" || a == "--textconv" || a == "--exec" || a == "--paginate",
			strings.HasPrefix(a, "--output="), strings.HasPrefix(a, "--exec="):
			return false
		}
	}
	return true
}

// gitBranchLists reports whether git branch only lists: no arguments, or
// listing flags only.
func gitBranchLists(args []string) bool {
	if len(args) == 0 {
		return true
	}
	for _, a := range args {
		switch a {
		case "--list", "-l", "--show-current", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose":
		default:
			if !strings.HasPrefix(a, "--format=") {
				return false
			}
		}
	}
	return true
}

// sedPrint accepts sed -n's "Np" and "M,Np" scripts only.
func sedPrint(s string) bool {
	core, ok := strings.CutSuffix(s, "p")
	if !ok {
		return false
	}
	parts := strings.Split(core, ",")
	if len(parts) > 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// runsGit reports whether a line, as tokens, runs git: a word whose base
// name is git at the start of a command, after variable assignments, or
// after sudo, env or time. "echo git" does not run git.
func runsGit(tokens []string) bool {
	for i, t := range tokens {
		t = strings.TrimSpace(t)
		if b := strings.ToLower(filepath.Base(t)); t == "" || (b != "git" && b != "git.exe") {
			continue
		}
		j := i - 1
		for j >= 0 && isAssignment(tokens[j]) {
			j--
		}
		if j < 0 {
			return true
		}
		switch strings.ToLower(tokens[j]) {
		case "sudo", "env", "time", "&&", "||", ";", "|", "&", "(", "\n", "|&", ";;":
			return true
		}
	}
	return false
}

func isAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := t[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// shellHeuristicLocked adjusts d, the decision a rule without an argument
// pattern gives the shell line cmd of c, as Gemini CLI does, with what
// the parsed line shows besides: the commands wrappers run, the files a
// known-safe command names (inside the workspace only), writes under
// .git/ and .gemini/.
func (e *Engine) shellHeuristicLocked(c Call, cmd string, d Decision) Decision {
	if d == Deny {
		return d
	}
	toks, ok := shellTokens(cmd)
	if !ok || len(toks) == 0 {
		// The line does not parse either: it is asked about anyway.
		return d
	}
	l := lineOf(c, cmd)
	if e.untrusted && (runsGit(toks) || slices.ContainsFunc(l.cmds, func(sc shellCmd) bool { return sc.root == "git" })) {
		return Ask
	}
	// Gemini CLI looks at the first command of the line only, so under an
	// allow-all shell rule "ls; rm -rf x" would run unasked; Castor asks
	// when any command of the line is dangerous.
	if slices.ContainsFunc(splitTokens(toks), dangerous) || e.dangerousLineLocked(c, l) {
		if e.mode == ModeYolo {
			return d
		}
		return Ask
	}
	if d == Ask && knownSafe(toks) && e.safeLineLocked(c, l) {
		return Allow
	}
	return d
}

// dangerousLineLocked reports what the parsed line shows that is always
// asked about outside yolo mode: a dangerous command behind a wrapper, a
// write under .git/ or .gemini/ (hooks, fsmonitor and settings run
// programs), git pointed at a repository outside the workspace.
func (e *Engine) dangerousLineLocked(c Call, l *shellLine) bool {
	if slices.ContainsFunc(l.writes, protectedPath) {
		return true
	}
	for _, sc := range l.cmds {
		if sc.raw || sc.unknown != "" {
			continue
		}
		if dangerous(wordStrings(sc.words)) {
			return true
		}
		if sc.root == "git" && !e.gitInsideLocked(c, sc.words) {
			return true
		}
	}
	return false
}

// gitInsideLocked reports whether git's -C, --git-dir and --work-tree
// name directories inside the workspace.
func (e *Engine) gitInsideLocked(c Call, ws []word) bool {
	for i := 1; i < len(ws); i++ {
		s := ws[i].s
		var dir string
		switch {
		case !strings.HasPrefix(s, "-"):
			return true
		case s == "-C" || s == "--git-dir" || s == "--work-tree":
			if i+1 < len(ws) {
				dir = ws[i+1].s
				i++
			}
		case strings.HasPrefix(s, "--git-dir=") || strings.HasPrefix(s, "--work-tree="):
			_, dir, _ = strings.Cut(s, "=")
		case strings.HasPrefix(s, "-C"):
			dir = s[2:]
		default:
			continue
		}
		if dir != "" && !e.insideLocked(c, dir) {
			return false
		}
	}
	return true
}

// pathFree are the known-safe commands that name no file.
var pathFree = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"echo": true, "pwd": true, "true": true, "false": true, "id": true, "uname": true, "whoami": true, "seq": true, "expr": true, "numfmt": true, "which": true}
}}

// safeLineLocked reports whether the commands of a known-safe line stay
// inside the workspace and write nothing: every word known, every file
// named (any operand, any option value holding a path) inside the
// workspace, uniq given one file at most (a second is its output).
func (e *Engine) safeLineLocked(c Call, l *shellLine) bool {
	if !l.known() {
		return false
	}
	for _, w := range l.writes {
		if !e.insideLocked(c, w) {
			return false
		}
	}
	for _, sc := range l.cmds {
		if sc.raw || pathFree.Get()[sc.root] {
			continue
		}
		operands := 0
		for i := 1; i < len(sc.words); i++ {
			w := sc.words[i]
			if !w.known {
				return false
			}
			s := w.s
			if strings.HasPrefix(s, "-") && len(s) > 1 {
				if sc.root == "uniq" && (s == "-f" || s == "-s" || s == "-w") {
					i++
					continue
				}
				_, v, eq := strings.Cut(s, "=")
				if eq && (strings.ContainsAny(v, "/~") || strings.HasPrefix(v, ".")) && !e.insideLocked(c, v) {
					return false
				}
				continue
			}
			operands++
			if !e.insideLocked(c, s) {
				return false
			}
		}
		if sc.root == "uniq" && operands > 1 {
			return false
		}
	}
	return true
}

// insideLocked reports whether the path p, as a command of c names it, is
// inside the workspace.
func (e *Engine) insideLocked(c Call, p string) bool {
	ws := e.workspace
	if ws == nil {
		wd, err := os.Getwd()
		if err != nil {
			return false
		}
		ws = tool.NewWorkspace(wd)
	}
	dir := ws.Root()
	for _, k := range []string{"dir_path", "directory"} {
		if d, _ := c.Args[k].(string); d != "" {
			dir = ws.Resolve(d)
		}
	}
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		p = filepath.Join(home, p[1:])
	case strings.HasPrefix(p, "~"):
		return false // ~user
	case !filepath.IsAbs(p):
		p = filepath.Join(dir, p)
	}
	return ws.Contains(filepath.Clean(p))
}

// protectedPath reports a path under a .git or .gemini directory.
func protectedPath(p string) bool {
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		// Folded: macOS and Windows file systems ignore case.
		if strings.EqualFold(part, ".git") || strings.EqualFold(part, ".gemini") {
			return true
		}
	}
	return false
}

// editsProtected reports an edit of a file under .git/ or .gemini/.
func editsProtected(c Call) bool {
	for _, k := range []string{"file_path", "path", "absolute_path"} {
		if p, _ := c.Args[k].(string); p != "" && protectedPath(p) {
			return true
		}
	}
	return false
}

func wordStrings(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
	}
	return out
}

// shellTraits describe the Gemini CLI rule that stands for a decision on
// a shell call.
type shellTraits struct {
	heuristics    bool // no argument pattern: the shell heuristics adjust it
	allowRedirect bool // redirections do not make an allowance ask
	patterned     bool // an argument pattern or command prefix
	unchecked     bool // not a shell rule at all: the line is not looked at
	// askSubstitution: a command or process substitution makes an
	// allowance ask, outside yolo mode ("always allow" answers).
	askSubstitution bool
}

// builtinShellTraitsLocked describes the rule that stands for the
// built-in decision d (of priority prio) on c.
func (e *Engine) builtinShellTraitsLocked(c Call, d Decision, prio int) shellTraits {
	switch prio {
	case prioAllowed:
		for _, r := range e.allowed {
			if r.matches(c, false) {
				return shellTraits{heuristics: r.prefix == "", patterned: r.prefix != ""}
			}
		}
	case prioAlways:
		// An "always allow" answer for a shell command is a rule with a
		// command prefix in Gemini CLI, which lets redirections through
		// only when the command answered had one (always.go). A line
		// with a command or process substitution is asked about again.
		cmd, _ := isShell(c)
		return shellTraits{patterned: true, allowRedirect: e.alwaysShell.allowsRedirect(c.Name, cmd), askSubstitution: true}
	case prioYolo:
		// yolo.toml: allow everything, redirections included.
		return shellTraits{heuristics: true, allowRedirect: true}
	case prioReadOnly:
		// A shell call passed off as read-only: the SDK's Shell.Exec, for
		// which only exclusions count.
		return shellTraits{unchecked: true}
	case prioNone:
		// The "ask about shell commands" rule exists for interactive
		// sessions only; headless runs have a deny rule instead, which
		// the heuristics never loosen.
		return shellTraits{heuristics: d == Ask && e.canAskLocked(c)}
	}
	return shellTraits{heuristics: true}
}
