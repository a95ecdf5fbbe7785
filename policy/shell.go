package policy

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/castor-dev/castor/internal/shellword"
)

// shellPart is one simple command of a shell line: its source text and
// its command name.
type shellPart struct {
	text string
	root string
}

// shellParts splits a shell line into the simple commands it runs
// (through lists, pipelines, subshells, substitutions and "bash -c"
// wrappers), and reports whether the line redirects input or output. ok
// is false when the line does not parse, so nothing can be said of it.
func shellParts(command string) (parts []shellPart, redirects, ok bool) {
	l := scanShell(command)
	return l.parts, l.redirects, l.ok
}

// shellLine is what the policy reads of a shell line.
type shellLine struct {
	parts []shellPart
	// redirects is set when the line redirects input or output (heredocs
	// and here-strings included); substitutes when it runs a command or
	// process substitution ($(…), `…`, <(…), >(…)).
	redirects, substitutes bool
	// ok is false when the line does not parse.
	ok bool
}

// scanShell reads a shell line, and the scripts of its "sh -c" wrappers.
func scanShell(command string) shellLine {
	return splitShell(command, 0)
}

func splitShell(command string, depth int) (l shellLine) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return shellLine{}
	}
	l.ok = true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			// Any redirection counts, 2>&1 included, as in Gemini CLI.
			l.redirects = true
		case *syntax.CmdSubst, *syntax.ProcSubst:
			l.substitutes = true
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			start, end := int(n.Pos().Offset()), int(n.End().Offset())
			if start < 0 || end > len(command) || start >= end {
				return true
			}
			name := shellword.Literal(n.Args[0])
			p := shellPart{text: strings.TrimSpace(command[start:end])}
			if name != "" {
				p.root = filepath.Base(name)
			}
			l.parts = append(l.parts, p)
			// The same command without its variable assignments and with
			// its program's base name ("FOO=1 /bin/rm x" → "rm x") is
			// checked too, so that a deny rule cannot be sidestepped that
			// way. An extra part can only make the line's decision
			// stricter.
			if arg0 := int(n.Args[0].Pos().Offset()); arg0 >= start && arg0 < end && name != "" {
				rest := command[int(n.Args[0].End().Offset()):end]
				if v := strings.TrimSpace(p.root + rest); v != p.text {
					l.parts = append(l.parts, shellPart{text: v, root: p.root})
				}
			}
			// sh -c 'cmd': what the wrapper runs is checked too.
			if depth < 3 && len(n.Args) >= 3 && isShellProgram(p.root) && shellword.Literal(n.Args[1]) == "-c" {
				if inner := shellword.Literal(n.Args[2]); inner != "" {
					sub := splitShell(inner, depth+1)
					if !sub.ok {
						l.ok = false
					}
					l.parts = append(l.parts, sub.parts...)
					l.redirects = l.redirects || sub.redirects
					l.substitutes = l.substitutes || sub.substitutes
				}
			}
		}
		return true
	})
	return l
}

func isShellProgram(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh":
		return true
	}
	return false
}
