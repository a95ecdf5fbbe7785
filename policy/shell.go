package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/lazy"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A rule about shell commands is decided on what runs, not on how the
// line spells it: the line is parsed (mvdan.cc/sh), every simple command
// it runs is found (through lists, pipelines, substitutions, functions'
// bodies), its words are resolved as the shell will resolve them (quotes,
// escapes, $'…', brace expansion, ${IFS}), wrappers (env, sudo, xargs,
// find -exec, timeout, …) are looked through, and code handed to a shell
// (bash -c, eval, here-documents and pipes into sh, trap) is read in turn.
// A command whose program cannot be known before the line runs ($a, a
// substitution or a glob as the program, an alias or function defined on
// the line, a script the line writes, code given to an interpreter) is a
// shellCmd with unknown set: it matches every deny and ask rule of the
// shell tool and no allow rule.

// shellCmd is one command a shell line runs, as the policy reads it.
type shellCmd struct {
	// text is the command as rules read it: its words, quoted where the
	// shell would need quotes, the program by its base name. plain is the
	// same words joined by spaces: a deny rule matching either applies.
	text, plain string
	root        string // the program's base name
	words       []word
	// raw is set for the command as the line spells it (its source),
	// which rules see too, as before the words were resolved; variant
	// for the same command resolved, which follows it.
	raw, variant bool
	// unknown says why the command cannot be known before it runs;
	// owner is the text of the command that runs it (python3 -c '…',
	// bash -c "$x"), if any: an allow rule for that command, which allows
	// it whatever it is given, allows what it runs.
	unknown, owner string
}

// word is one resolved word of a command.
type word struct {
	s     string
	known bool // no expansion of unknown value
	glob  bool // unquoted pattern characters: matched against files
	src   string
}

// shellLine is what the policy reads of a shell line.
type shellLine struct {
	cmds []shellCmd
	// redirects is set when the line redirects input or output (heredocs
	// and here-strings included); substitutes when it runs a command or
	// process substitution ($(…), `…`, <(…), >(…)).
	redirects, substitutes bool
	// ok is false when the line does not parse.
	ok bool
	// writes are the files the line writes (redirection targets, tee,
	// cp/mv destinations), for .git/ and .gemini/ checks.
	writes []string
}

// lineOf is what the policy reads of c's shell line cmd: read once per
// decision.
func lineOf(c Call, cmd string) *shellLine {
	if c.scan != nil {
		return c.scan
	}
	l := scanShell(strings.TrimSpace(cmd))
	return &l
}

// known reports whether every command of the line is known.
func (l *shellLine) known() bool {
	for _, c := range l.cmds {
		if c.unknown != "" {
			return false
		}
	}
	return l.ok
}

// maxShellDepth bounds how deep scripts in scripts are read; deeper code
// counts as unknown.
const maxShellDepth = 6

// scanShell reads a shell line: the commands it runs and what it does.
func scanShell(command string) shellLine {
	a := &analyzer{defined: map[string]string{}, written: map[string]bool{}}
	a.line.ok = true
	a.script(command, 0, "")
	return a.line
}

type analyzer struct {
	line shellLine
	// defined are alias and function names defined on the line, written
	// the files it writes ("" for a target that is not known).
	defined map[string]string
	written map[string]bool
	// variant is set while the command run adds is the resolved form of
	// the raw one before it.
	variant bool
	// owner is the command whose code or arguments are being read.
	owner string
}

// stdin is where a command's standard input comes from, for shells and
// interpreters reading their script from it.
type stdin struct {
	body     *string // a here-document's or here-string's text, when known
	unknown  bool    // a here-document whose text is not known
	file     string  // < file
	producer *syntax.Stmt
}

// parsers holds bash parsers: a parser is not safe for concurrent use,
// and decisions run concurrently.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func (a *analyzer) unknown(reason string) {
	a.line.cmds = append(a.line.cmds, shellCmd{unknown: reason, owner: a.owner})
}

// script reads the shell code src; via names what runs it ("bash -c").
func (a *analyzer) script(src string, depth int, via string) {
	if depth > maxShellDepth {
		a.unknown(fmt.Sprintf("The script given to `%s` is nested too deep to be read before it runs.", via))
		return
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		a.line.ok = false
		if via == "" {
			a.unknown("The line does not parse, so the commands it runs cannot be known before it runs.")
		} else {
			a.unknown(fmt.Sprintf("The script given to `%s` does not parse, so the commands it runs cannot be known before it runs.", via))
		}
		return
	}
	producers := map[*syntax.Stmt]*syntax.Stmt{}
	// A first pass finds what the line defines and writes, which
	// commands anywhere on it may run.
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			if n.Name != nil {
				a.defined[n.Name.Value] = "a function"
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				x := n.X
				for {
					b, ok := x.Cmd.(*syntax.BinaryCmd)
					if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
						break
					}
					x = b.Y
				}
				producers[n.Y] = x
			}
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
				if n.Word != nil {
					a.wrote(n.Word)
				}
			}
		case *syntax.CallExpr:
			a.prescan(n)
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			// Any redirection counts, 2>&1 included, as in Gemini CLI.
			a.line.redirects = true
		case *syntax.CmdSubst, *syntax.ProcSubst:
			a.line.substitutes = true
		case *syntax.Stmt:
			if ce, ok := n.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
				a.call(src, n, ce, producers[n], depth)
			}
		}
		return true
	})
}

// wrote records a file the line writes.
func (a *analyzer) wrote(w *syntax.Word) {
	s, ok := literalWord(w)
	if !ok {
		a.written[""] = true
		return
	}
	a.written[filepath.Clean(s)] = true
	a.line.writes = append(a.line.writes, s)
}

// prescan records the aliases a command defines and the files it writes.
func (a *analyzer) prescan(ce *syntax.CallExpr) {
	if len(ce.Args) == 0 {
		return
	}
	name, ok := literalWord(ce.Args[0])
	if !ok {
		return
	}
	switch filepath.Base(name) {
	case "alias":
		for _, w := range ce.Args[1:] {
			s, ok := literalWord(w)
			if !ok {
				continue
			}
			if n, _, found := strings.Cut(s, "="); found {
				a.defined[n] = "an alias"
			}
		}
	case "tee":
		for _, w := range ce.Args[1:] {
			if s, ok := literalWord(w); !ok || !strings.HasPrefix(s, "-") {
				a.wrote(w)
			}
		}
	case "cp", "mv", "install", "ln":
		if len(ce.Args) > 2 {
			a.wrote(ce.Args[len(ce.Args)-1])
		}
	case "dd":
		for _, w := range ce.Args[1:] {
			if s, ok := literalWord(w); ok && strings.HasPrefix(s, "of=") {
				a.written[filepath.Clean(s[3:])] = true
				a.line.writes = append(a.line.writes, s[3:])
			}
		}
	}
}

// literalWord is a word's single value when it is known.
func literalWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\{*?[~") {
			return l.Value, true
		}
	}
	ws := resolveWord(w, "")
	if len(ws) != 1 || !ws[0].known {
		return "", false
	}
	return ws[0].s, true
}

// call reads one simple command of the script src.
func (a *analyzer) call(src string, st *syntax.Stmt, ce *syntax.CallExpr, producer *syntax.Stmt, depth int) {
	var ws []word
	for _, w := range ce.Args {
		ws = append(ws, resolveWord(w, src)...)
	}
	for _, as := range ce.Assigns {
		if as.Name != nil && commandVars.Get()[as.Name.Value] {
			v := word{known: true}
			if as.Value != nil {
				if vs := resolveWord(as.Value, src); len(vs) == 1 {
					v = vs[0]
				} else {
					v.known = len(vs) == 0
				}
			}
			a.code(as.Name.Value, []word{v}, false, depth)
		}
	}
	raw := ""
	if start, end := int(ce.Pos().Offset()), int(ce.End().Offset()); start >= 0 && end <= len(src) && start < end {
		raw = strings.TrimSpace(src[start:end])
		root := ""
		if len(ws) > 0 && ws[0].known {
			root = filepath.Base(ws[0].s)
		}
		a.line.cmds = append(a.line.cmds, shellCmd{text: raw, plain: raw, root: root, raw: true})
	}
	in := stdin{producer: producer}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if body, ok := heredocBody(r); ok {
				in.body = &body
			} else {
				in.unknown = true
			}
		case syntax.WordHdoc:
			ws := resolveWord(r.Word, src)
			var parts []string
			for _, w := range ws {
				if !w.known {
					in.unknown = true
				}
				parts = append(parts, w.s)
			}
			body := strings.Join(parts, " ") + "\n"
			in.body = &body
		case syntax.RdrIn, syntax.RdrInOut:
			if s, ok := literalWord(r.Word); ok {
				in.file = s
			} else {
				in.unknown = true
			}
		case syntax.DplIn:
			// <&3: what another descriptor holds.
			if r.N == nil || r.N.Value == "0" {
				in.unknown = true
			}
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			if r.N == nil || r.N.Value == "0" {
				in.producer = nil
			}
		}
	}
	if len(ws) == 0 {
		// The words expanded to nothing known: "$a" with a empty runs
		// nothing, with a set runs a.
		if len(ce.Args) > 0 {
			a.unknown(fmt.Sprintf("The command run by `%s` cannot be known before it runs.", sourceOf(ce.Args[0], src)))
		}
		return
	}
	a.variant = true
	a.run(ws, in, false, depth)
	a.variant = false
}

// heredocBody is a here-document's text as the command reads it.
func heredocBody(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", true // an empty here-document
	}
	quoted := r.Word == nil || len(r.Word.Parts) != 1
	if !quoted {
		_, lit := r.Word.Parts[0].(*syntax.Lit)
		quoted = !lit
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		if quoted {
			b.WriteString(lit.Value)
		} else {
			b.WriteString(unescape(lit.Value, "$`\\\n"))
		}
	}
	return b.String(), true
}

// sourceOf is a word's text in src, for messages.
func sourceOf(w *syntax.Word, src string) string {
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if src == "" || start < 0 || end > len(src) || start >= end {
		var b strings.Builder
		syntax.NewPrinter().Print(&b, w)
		return b.String()
	}
	return src[start:end]
}

// run reads the command ws; extra is set when more words of unknown value
// follow them (xargs appends its input).
func (a *analyzer) run(ws []word, in stdin, extra bool, depth int) {
	if len(ws) == 0 {
		return
	}
	if !ws[0].known || ws[0].glob {
		a.unknown(fmt.Sprintf("The command run by `%s` cannot be known before it runs.", ws[0].src))
		return
	}
	name := ws[0].s
	base := filepath.Base(name)
	if what := a.defined[name]; what != "" {
		a.unknown(fmt.Sprintf("`%s` is %s defined on the line, so the command it runs cannot be known before it runs.", name, what))
		return
	}
	if strings.Contains(name, "/") && a.writes(name) {
		a.unknown(fmt.Sprintf("The program `%s` is written by the same line, so what it runs cannot be known before it runs.", name))
		return
	}
	norm := append([]word{{s: base, known: true, src: ws[0].src}}, ws[1:]...)
	nc := newCmd(norm)
	nc.variant, a.variant = a.variant, false
	a.line.cmds = append(a.line.cmds, nc)
	defer func(owner string) { a.owner = owner }(a.owner)
	a.owner = nc.text
	if base == "busybox" {
		a.run(ws[1:], in, extra, depth)
		return
	}
	if base == "env" || base == "sudo" {
		// env PAGER='…' git log: the value runs as a command.
		for _, w := range ws[1:] {
			if name, v, ok := strings.Cut(w.s, "="); ok && w.known && commandVars.Get()[name] {
				a.code(name, []word{{s: v, known: true}}, false, depth)
			}
		}
	}
	if i, ok := wrapped(base, ws); i != 0 {
		if !ok || i == unreadable {
			a.unknown(fmt.Sprintf("The command `%s` runs cannot be known before it runs.", base))
			return
		}
		if i > 0 {
			a.run(ws[i:], in, extra || base == "xargs", depth)
		} else if base == "xargs" {
			a.run([]word{{s: "echo", known: true, src: "echo"}}, in, true, depth)
		}
		return
	}
	switch {
	case isShellProgram(base):
		a.shell(base, ws, in, extra, depth)
	case base == "eval":
		a.code(base, ws[1:], extra, depth)
	case base == "trap":
		args := ws[1:]
		if len(args) > 0 && args[0].s == "--" {
			args = args[1:]
		}
		if len(args) > 1 && args[0].s != "-" && !strings.HasPrefix(args[0].s, "-") {
			a.code(base, args[:1], false, depth)
		}
	case base == "watch":
		a.watch(ws, depth)
	case base == "flock":
		a.flock(ws, in, extra, depth)
	case base == "git":
		a.gitConfig(ws, depth)
	case base == "su" || base == "runuser" || base == "script":
		for i := 1; i < len(ws); i++ {
			s := ws[i].s
			switch {
			case strings.HasPrefix(s, "--command="):
				a.code(base+" -c", []word{{s: strings.TrimPrefix(s, "--command="), known: ws[i].known}}, false, depth)
			case i+1 < len(ws) && (s == "--command" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.HasSuffix(s, "c")):
				// -c, or -c last in a cluster (script -qc 'cmd').
				a.code(base+" -c", ws[i+1:i+2], false, depth)
			}
		}
	case base == "find":
		a.find(ws, in, depth)
	case base == "source" || base == ".":
		if len(ws) > 1 {
			a.scriptFile(base, ws[1], extra)
		} else if extra {
			a.unknown(fmt.Sprintf("The script `%s` reads cannot be known before it runs.", base))
		}
	default:
		if why := optionRunner(base, ws); why != "" { // optionrunners.go
			a.unknown(why)
			return
		}
		if why := interpreterCode(base, ws); why != "" {
			a.unknown(why)
			return
		}
		if isInterpreter(base) {
			a.interpreter(base, ws, in, extra)
		}
	}
}

// newCmd is the command of resolved words, with the texts rules match.
func newCmd(ws []word) shellCmd {
	c := shellCmd{root: ws[0].s, words: ws}
	var text, plain strings.Builder
	for i, w := range ws {
		if i > 0 {
			text.WriteByte(' ')
			plain.WriteByte(' ')
		}
		if w.known {
			text.WriteString(shellQuote(w.s))
		} else {
			text.WriteString(w.src)
		}
		plain.WriteString(w.s)
	}
	c.text, c.plain = text.String(), plain.String()
	return c
}

// shellQuote quotes s as a shell word, only when it needs it.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=@%+,-", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// writes reports whether the line writes the file p (or a file it
// cannot name).
func (a *analyzer) writes(p string) bool {
	return a.written[filepath.Clean(p)] || a.written[""]
}

// shell reads a shell program's command: the script of -c, a script
// file, or its standard input.
func (a *analyzer) shell(base string, ws []word, in stdin, extra bool, depth int) {
	i, cmode := 1, false
	for ; i < len(ws); i++ {
		w := ws[i]
		if !w.known {
			a.unknown(fmt.Sprintf("What `%s` runs cannot be known before it runs.", base))
			return
		}
		s := w.s
		if s == "--" || s == "-" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			if s == "--rcfile" || s == "--init-file" {
				i++
			}
			continue
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
			if strings.ContainsRune(s[1:], 'c') {
				cmode = true
			}
			if strings.ContainsAny(s[1:], "oO") {
				i++
			}
			continue
		}
		break
	}
	switch {
	case cmode && i < len(ws):
		a.code(base+" -c", ws[i:i+1], false, depth)
	case cmode:
		if extra {
			a.unknown(fmt.Sprintf("The script given to `%s -c` cannot be known before it runs.", base))
		}
	case i < len(ws):
		a.scriptFile(base, ws[i], extra)
	case extra:
		a.unknown(fmt.Sprintf("The script given to `%s` cannot be known before it runs.", base))
	default:
		a.stdinScript(base, in, depth)
	}
}

// code reads words given to a shell as code (eval's, bash -c's).
func (a *analyzer) code(via string, ws []word, extra bool, depth int) {
	var parts []string
	for _, w := range ws {
		if !w.known {
			a.unknown(fmt.Sprintf("The script given to `%s` cannot be known before it runs.", via))
			return
		}
		parts = append(parts, w.s)
	}
	if extra {
		a.unknown(fmt.Sprintf("The script given to `%s` cannot be known before it runs.", via))
		return
	}
	a.script(strings.Join(parts, " "), depth+1, via)
}

// stdinScript reads the script a shell reads from its standard input.
func (a *analyzer) stdinScript(base string, in stdin, depth int) {
	switch {
	case in.unknown:
		a.unknown(fmt.Sprintf("The script `%s` reads from its input cannot be known before it runs.", base))
	case in.body != nil:
		a.script(*in.body, depth+1, base)
	case in.file != "":
		a.scriptFile(base, word{s: in.file, known: true, src: in.file}, false)
	case in.producer != nil:
		if out, ok := producedText(in.producer); ok {
			a.script(out, depth+1, base)
			return
		}
		a.unknown(fmt.Sprintf("The script `%s` reads from the pipe cannot be known before it runs.", base))
	}
}

// scriptFile checks a script file a shell or source runs: one the line
// itself writes, or one read from a stream, cannot be known.
func (a *analyzer) scriptFile(base string, w word, extra bool) {
	switch {
	case !w.known || extra:
		a.unknown(fmt.Sprintf("The script `%s` runs cannot be known before it runs.", base))
	case a.writes(w.s):
		a.unknown(fmt.Sprintf("The script `%s` is written by the same line, so what it runs cannot be known before it runs.", w.s))
	case w.s == "/dev/stdin" || strings.HasPrefix(w.s, "/dev/fd/") || strings.HasPrefix(w.s, "/proc/"):
		a.unknown(fmt.Sprintf("The script `%s` reads from `%s` cannot be known before it runs.", base, w.s))
	}
}

// producedText is what a literal producer writes into a pipe: echo,
// printf, or cat of a here-document.
func producedText(st *syntax.Stmt) (string, bool) {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return "", false
	}
	var ws []string
	for _, w := range ce.Args {
		for _, rw := range resolveWord(w, "") {
			if !rw.known {
				return "", false
			}
			ws = append(ws, rw.s)
		}
	}
	if len(ws) == 0 {
		return "", false
	}
	switch filepath.Base(ws[0]) {
	case "echo":
		args, nl := ws[1:], "\n"
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-E" || args[0] == "-e" || args[0] == "-ne" || args[0] == "-en") {
			if strings.Contains(args[0], "e") && strings.Contains(strings.Join(args, " "), `\`) {
				return "", false
			}
			if strings.Contains(args[0], "n") {
				nl = ""
			}
			args = args[1:]
		}
		return strings.Join(args, " ") + nl, true
	case "printf":
		if len(ws) < 2 {
			return "", false
		}
		return printfText(ws[1], ws[2:])
	case "cat":
		if len(ws) > 1 {
			return "", false
		}
		for _, r := range st.Redirs {
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				return heredocBody(r)
			case syntax.WordHdoc:
				s, ok := literalWord(r.Word)
				return s + "\n", ok
			}
		}
	}
	return "", false
}

// printfText runs printf's format with %s, %b-free escapes only.
func printfText(format string, args []string) (string, bool) {
	var b strings.Builder
	for first := true; first || len(args) > 0; first = false {
		used := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case c == '%' && i+1 < len(format) && format[i+1] == 's':
				if len(args) > 0 {
					b.WriteString(args[0])
					args = args[1:]
				}
				used = true
				i++
			case c == '%':
				return "", false
			case c == '\\' && i+1 < len(format):
				switch format[i+1] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\\':
					b.WriteByte('\\')
				default:
					return "", false
				}
				i++
			default:
				b.WriteByte(c)
			}
		}
		if !used {
			break
		}
	}
	return b.String(), true
}

// unreadable is wrapped's index for a wrapper whose command cannot be
// read before it runs.
const unreadable = -2

// wrapped finds the command a wrapper runs: i is its index in ws, -1 when
// the wrapper runs none, 0 when base is no wrapper, unreadable (or ok
// false) when the wrapper's options cannot be read.
func wrapped(base string, ws []word) (i int, ok bool) {
	switch base {
	case "command":
		i, ok = skipOptions(ws, 1, "")
		for _, w := range ws[1:i] {
			if strings.ContainsAny(w.s, "vV") {
				return -1, ok // command -v: a look-up
			}
		}
	case "builtin", "nohup", "setsid":
		i, ok = skipOptions(ws, 1, "")
	case "exec":
		i, ok = skipOptions(ws, 1, "a")
	case "nice":
		i, ok = skipOptions(ws, 1, "n", "--adjustment")
	case "time":
		i, ok = skipOptions(ws, 1, "of", "--output", "--format")
	case "stdbuf":
		i, ok = skipOptions(ws, 1, "ioe", "--input", "--output", "--error")
	case "timeout":
		i, ok = skipOptions(ws, 1, "sk", "--signal", "--kill-after")
		i++ // the duration
	case "sudo":
		i, ok = skipOptions(ws, 1, "ugCprtUDRT", "--user", "--group", "--close-from", "--prompt", "--role", "--type", "--other-user", "--chdir", "--chroot", "--command-timeout", "--host")
		for _, w := range ws[1:min(i, len(ws))] {
			if w.s == "-e" || w.s == "--edit" || w.s == "-l" || w.s == "--list" || w.s == "-v" || w.s == "-k" || w.s == "-K" {
				return -1, ok
			}
		}
		i = skipAssignments(ws, i)
	case "doas":
		i, ok = skipOptions(ws, 1, "uC")
	case "xargs":
		i, ok = skipOptions(ws, 1, "dEILnPsae", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--arg-file", "--process-slot-var")
	case "ionice":
		i, ok = skipOptions(ws, 1, "cnp", "--class", "--classdata", "--pid", "--pgid", "--uid")
		for _, w := range ws[1:min(i, len(ws))] {
			if strings.HasPrefix(w.s, "-p") || strings.HasPrefix(w.s, "-P") || strings.HasPrefix(w.s, "-u") || w.s == "--pid" || w.s == "--pgid" || w.s == "--uid" {
				return -1, ok
			}
		}
	case "chrt":
		i, ok = skipOptions(ws, 1, "TPD", "--sched-runtime", "--sched-period", "--sched-deadline")
		for _, w := range ws[1:min(i, len(ws))] {
			if w.s == "-p" || w.s == "--pid" || w.s == "-m" || w.s == "--max" {
				return -1, ok
			}
		}
		i++ // the priority
	case "taskset":
		i, ok = skipOptions(ws, 1, "")
		for _, w := range ws[1:min(i, len(ws))] {
			if strings.Contains(w.s, "p") && !strings.HasPrefix(w.s, "--") || w.s == "--pid" {
				return -1, ok
			}
		}
		i++ // the mask or cpu list
	case "chroot":
		i, ok = strictOptions(ws, "")
		i++ // the new root
	case "runuser":
		// runuser -u user cmd runs cmd; without -u, the arguments go to
		// the user's shell (its -c is read as code by the caller).
		i, ok = strictOptions(ws, "ugGcsw")
		if ok && !slices.ContainsFunc(ws[1:min(i, len(ws))], func(w word) bool { return w.s == "-u" || strings.HasPrefix(w.s, "--user") }) {
			return 0, true
		}
	case "parallel", "systemd-run", "bwrap", "screen", "tmux", "at", "batch", "sg":
		// Their command is assembled from lists, options or input, or
		// handed to a server or a shell.
		return unreadable, false
	case "--":
		// time -p -- cmd: bash's time keyword ends its options with --.
		i, ok = 1, true
	case "setarch":
		if len(ws) < 2 {
			return -1, true
		}
		if i, ok = strictOptions(ws[1:], ""); ok {
			i++ // the architecture
		}
	case "env":
		i, ok = 1, true
		for i < len(ws) {
			s := ws[i].s
			if !ws[i].known {
				return unreadable, false
			}
			switch {
			case s == "--":
				i++
				continue
			case s == "-S" || s == "--split-string" || strings.HasPrefix(s, "-S") || strings.HasPrefix(s, "--split-string="):
				// env -S splits a string into the command's words.
				return unreadable, false
			case s == "-u" || s == "-C" || s == "-P" || s == "--unset" || s == "--chdir":
				i += 2
				continue
			case strings.HasPrefix(s, "-") && len(s) > 1:
				i++
				continue
			case isAssignment(s):
				i++
				continue
			}
			break
		}
	default:
		v, wraps := plainWrappers.Get()[base]
		if !wraps {
			return 0, true
		}
		i, ok = strictOptions(ws, v)
	}
	if !ok {
		return unreadable, false
	}
	if i >= len(ws) {
		return -1, true
	}
	return i, true
}

// skipOptions returns the index of the first operand of ws from i on:
// options start with '-' and "--" ends them; a short option in withValue
// takes the rest of its word or the next word as its value, a long option
// in longValue the next word unless written with '='. ok is false when an
// option word's value is not known.
func skipOptions(ws []word, i int, withValue string, longValue ...string) (int, bool) {
	for i < len(ws) {
		w := ws[i]
		if !w.known {
			return i, false
		}
		s := w.s
		switch {
		case s == "--":
			return i + 1, true
		case strings.HasPrefix(s, "--"):
			name, _, eq := strings.Cut(s, "=")
			i++
			if !eq && slices.Contains(longValue, name) {
				i++
			}
			continue
		case len(s) > 1 && s[0] == '-':
			i++
			for j := 1; j < len(s); j++ {
				if strings.IndexByte(withValue, s[j]) >= 0 {
					if j == len(s)-1 {
						i++
					}
					break
				}
			}
			continue
		}
		return i, true
	}
	return i, true
}

// plainWrappers are programs that run the command following their
// options, with the short options that take a value.
var plainWrappers = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"strace": "abeEIoOpPsSuUX", "ltrace": "aADeFlnopsuwx", "unshare": "SGRw", "nsenter": "tSG",
		"fakeroot": "lis", "ssh-agent": "aEPt", "numactl": "ipmNCP",
		"setpriv": "", "eatmydata": "", "catchsegv": "", "pkexec": "", "dbus-run-session": "", "firejail": "",
		"valgrind": "", "prlimit": "", "linux32": "", "linux64": "", "i386": "", "x86_64": "",
	}
}}

// strictOptions is skipOptions from ws[1] for a wrapper whose long
// options are not listed: a long option without '=' may take the next
// word, so the command cannot be read (unreadable).
func strictOptions(ws []word, withValue string) (int, bool) {
	i, ok := skipOptions(ws, 1, withValue)
	for _, w := range ws[1:min(i, len(ws))] {
		if strings.HasPrefix(w.s, "--") && w.s != "--" && !strings.Contains(w.s, "=") {
			return unreadable, false
		}
	}
	return i, ok
}

func skipAssignments(ws []word, i int) int {
	for i < len(ws) && ws[i].known && isAssignment(ws[i].s) {
		i++
	}
	return i
}

// watch runs its words through sh -c, or as a command with -x.
func (a *analyzer) watch(ws []word, depth int) {
	i, ok := skipOptions(ws, 1, "nq", "--interval", "--equexit")
	if !ok {
		a.unknown("The command `watch` runs cannot be known before it runs.")
		return
	}
	for _, w := range ws[1:min(i, len(ws))] {
		if w.s == "-x" || w.s == "--exec" || strings.HasPrefix(w.s, "-") && !strings.HasPrefix(w.s, "--") && strings.Contains(w.s, "x") {
			a.run(ws[i:], stdin{}, false, depth)
			return
		}
	}
	if i < len(ws) {
		a.code("watch", ws[i:], false, depth)
	}
}

// flock runs a command after its lock file, or a -c script.
func (a *analyzer) flock(ws []word, in stdin, extra bool, depth int) {
	i, ok := skipOptions(ws, 1, "wE", "--timeout", "--conflict-exit-code")
	if !ok {
		a.unknown("The command `flock` runs cannot be known before it runs.")
		return
	}
	i++ // the lock file
	if i < len(ws) && (ws[i].s == "-c" || ws[i].s == "--command") {
		a.code("flock -c", ws[i+1:min(i+2, len(ws))], false, depth)
		return
	}
	if i < len(ws) {
		a.run(ws[i:], in, extra, depth)
	}
}

// commandVars are variables whose value programs run as a shell command
// (git, ssh, pagers, editors).
var commandVars = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"GIT_SSH_COMMAND": true, "GIT_PAGER": true, "PAGER": true, "GIT_EDITOR": true, "EDITOR": true,
		"VISUAL": true, "GIT_EXTERNAL_DIFF": true, "GIT_SEQUENCE_EDITOR": true, "MANPAGER": true,
		"PROMPT_COMMAND": true, "BASH_ENV": true, "ENV": true,
	}
}}

// gitCommandKeys are git configuration keys whose value git runs as a
// shell command; alias values starting with "!" are commands too.
var gitCommandKeys = []string{
	"core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.askpass", "sequence.editor",
	"diff.external", "gpg.program", "credential.helper", "uploadpack.packobjectshook", "core.hookspath",
}

// gitConfig reads the commands git -c settings make git run: an alias
// "!…", core.fsmonitor, pagers, editors, drivers and helpers. A value
// given through the environment (--config-env) cannot be known.
func (a *analyzer) gitConfig(ws []word, depth int) {
	for i := 1; i < len(ws); i++ {
		s := ws[i].s
		var kv string
		switch {
		case !strings.HasPrefix(s, "-"):
			return
		case s == "-c" && i+1 < len(ws):
			i++
			kv = ws[i].s
			if !ws[i].known {
				a.unknown("The command a `git -c` setting runs cannot be known before it runs.")
				continue
			}
		case strings.HasPrefix(s, "-c") && len(s) > 2:
			kv = s[2:]
		case s == "--config-env" || strings.HasPrefix(s, "--config-env="):
			a.unknown("The command a `git --config-env` setting runs cannot be known before it runs.")
			continue
		default:
			continue
		}
		key, v, _ := strings.Cut(kv, "=")
		key = strings.ToLower(key)
		switch {
		case strings.HasPrefix(v, "!"):
			a.code("git -c "+key, []word{{s: v[1:], known: true}}, false, depth)
		case slices.Contains(gitCommandKeys, key) || strings.HasPrefix(key, "pager.") ||
			strings.HasSuffix(key, ".command") || strings.HasSuffix(key, ".textconv") || strings.HasSuffix(key, ".driver") ||
			strings.HasSuffix(key, ".clean") || strings.HasSuffix(key, ".smudge") || strings.HasSuffix(key, ".process") ||
			strings.HasSuffix(key, ".helper") || strings.HasSuffix(key, ".program") || strings.HasSuffix(key, ".cmd"):
			a.code("git -c "+key, []word{{s: v, known: true}}, false, depth)
		}
	}
}

// find runs the commands of -exec, -execdir, -ok and -okdir; -delete
// removes files as rm does, so a rule about rm sees "rm" with find's
// arguments.
func (a *analyzer) find(ws []word, in stdin, depth int) {
	for i := 1; i < len(ws); i++ {
		switch ws[i].s {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(ws) && ws[j].s != ";" && ws[j].s != "+" {
				j++
			}
			a.run(ws[i+1:j], in, false, depth)
			i = j
		case "-delete":
			rm := append([]word{{s: "rm", known: true, src: "find -delete"}}, ws[1:]...)
			a.line.cmds = append(a.line.cmds, newCmd(rm))
		}
	}
}

// interpreters run code: given on the command line, read from their
// input, or from a script file.
var interpreters = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"python": "c", "python2": "c", "python3": "c", "pypy": "c", "pypy3": "c",
		"perl": "eE", "ruby": "e", "node": "ep", "nodejs": "ep", "bun": "e", "deno": "",
		"php": "r", "lua": "e", "luajit": "e", "Rscript": "e", "tclsh": "", "osascript": "e",
		"pwsh": "c", "powershell": "c", "jshell": "", "irb": "", "julia": "e", "gawk": "", "awk": "", "mawk": "", "nawk": "",
	}
}}

// interpreterValues are the interpreters' short options that take the
// next word as their value.
var interpreterValues = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"python": "WX", "python2": "WX", "python3": "WX", "pypy": "WX", "pypy3": "WX", "perl": "IMx", "ruby": "IEr", "node": "r", "nodejs": "r"}
}}

func isInterpreter(base string) bool {
	_, ok := interpreters.Get()[interpreterName(base)]
	return ok
}

// interpreterName maps python3.12 to python3.
func interpreterName(base string) string {
	if strings.HasPrefix(base, "python") {
		if i := strings.IndexByte(base, '.'); i > 0 {
			return base[:i]
		}
	}
	return base
}

// interpreterCode says why an interpreter's command cannot be known when
// it is given code to run, else "".
func interpreterCode(base string, ws []word) string {
	name := interpreterName(base)
	letters, ok := interpreters.Get()[name]
	if !ok {
		return ""
	}
	if strings.HasSuffix(name, "awk") {
		// An awk program runs commands with system() or a pipe.
		for _, w := range ws[1:] {
			if !w.known || strings.Contains(w.s, "system") || strings.Contains(w.s, "|") {
				return fmt.Sprintf("The commands `%s` runs from its program cannot be known before it runs.", base)
			}
		}
		return ""
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		s := w.s
		if !w.known {
			return fmt.Sprintf("`%s` runs code the policy cannot read, so the commands it runs cannot be known before it runs.", base)
		}
		if s == "--" || !strings.HasPrefix(s, "-") {
			break
		}
		if v := interpreterValues.Get()[name]; len(s) == 2 && strings.IndexByte(v, s[1]) >= 0 {
			i++ // python3 -W ignore -c …
			continue
		}
		if s == "--eval" || s == "--print" || strings.HasPrefix(s, "--eval=") || strings.HasPrefix(s, "--print=") || name == "deno" && s == "eval" ||
			!strings.HasPrefix(s, "--") && strings.ContainsAny(s[1:], letters) && letters != "" {
			return fmt.Sprintf("`%s %s` runs code the policy cannot read, so the commands it runs cannot be known before it runs.", base, s)
		}
	}
	if name == "deno" && len(ws) > 1 && ws[1].s == "eval" {
		return "`deno eval` runs code the policy cannot read, so the commands it runs cannot be known before it runs."
	}
	return ""
}

// interpreter checks the script an interpreter runs: from its input or a
// file the line writes.
func (a *analyzer) interpreter(base string, ws []word, in stdin, extra bool) {
	i, _ := skipOptions(ws, 1, "mWX")
	if i < len(ws) && ws[i].s != "-" {
		a.scriptFile(base, ws[i], extra)
		return
	}
	if in.body != nil || in.unknown || in.producer != nil || in.file != "" || extra {
		a.unknown(fmt.Sprintf("`%s` runs code the policy cannot read from its input, so the commands it runs cannot be known before it runs.", base))
	}
}

func isShellProgram(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "rbash":
		return true
	}
	return false
}

// resolveWord resolves a word into the fields the shell makes of it
// before running: brace expansion, quote removal, $'…', ${IFS} splitting.
// A field with an expansion of unknown value is not known; src, when
// set, gives such a field its text for messages.
func resolveWord(w *syntax.Word, src string) []word {
	words := []*syntax.Word{w}
	if hasBrace(w) {
		c := copyWord(w)
		if syntax.SplitBraces(c) {
			words = nil
			for bw, err := range expand.BracesSeq(nil, c) {
				if err != nil || len(words) == maxBraceWords {
					// Too many words to read: the word is not known.
					return []word{{s: sourceOf(w, src), src: sourceOf(w, src)}}
				}
				words = append(words, bw)
			}
		}
	}
	var out []word
	for _, bw := range words {
		out = append(out, fieldsOf(bw)...)
	}
	for i := range out {
		if !out[i].known || out[i].glob || i == 0 {
			// Messages name the word as written; only these need it.
			out[i].src = sourceOf(w, src)
		}
	}
	return out
}

// maxBraceWords bounds the words a brace expansion is read into.
const maxBraceWords = 256

func hasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// copyWord copies the word's parts list, so SplitBraces does not change
// the tree the rest of the line is read from.
func copyWord(w *syntax.Word) *syntax.Word {
	c := &syntax.Word{Parts: make([]syntax.WordPart, len(w.Parts))}
	for i, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			l2 := *l
			p = &l2
		}
		c.Parts[i] = p
	}
	return c
}

// fieldsOf resolves one word (braces already expanded).
func fieldsOf(w *syntax.Word) []word {
	var out []word
	var cur strings.Builder
	has, known, glob := false, true, false
	flush := func() {
		if has {
			out = append(out, word{s: cur.String(), known: known, glob: glob})
		}
		cur.Reset()
		has, known, glob = false, true, false
	}
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				cur.WriteString(unescape(p.Value, "$`\"\\\n"))
			} else {
				if hasGlob(p.Value) {
					glob = true
				}
				cur.WriteString(unescape(p.Value, ""))
			}
			has = has || p.Value != ""
		case *syntax.SglQuoted:
			if p.Dollar {
				cur.WriteString(ansiC(p.Value))
			} else {
				cur.WriteString(p.Value)
			}
			has = true
		case *syntax.DblQuoted:
			has = true
			for _, q := range p.Parts {
				part(q, true)
			}
		case *syntax.ParamExp:
			if isIFS(p) {
				if quoted {
					cur.WriteString(" \t\n")
				} else {
					flush()
				}
				return
			}
			known, has = false, true
			cur.WriteString("$" + paramName(p))
		default:
			known, has = false, true
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	flush()
	return out
}

func paramName(p *syntax.ParamExp) string {
	if p.Param != nil {
		return p.Param.Value
	}
	return "?"
}

// isIFS reports a plain $IFS or ${IFS}, which holds white space unless
// the line sets it (a line that does is read as if it did not, but the
// commands it runs are still found and matched).
func isIFS(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Param.Value == "IFS" && p.Index == nil && p.Exp == nil && p.Repl == nil &&
		p.Slice == nil && !p.Excl && !p.Length && p.Names == 0
}

// hasGlob reports unescaped pattern characters in an unquoted literal.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// unescape removes the backslashes the shell removes: before any
// character outside quotes (special == ""), before the special ones in
// double quotes and here-documents. A backslash before a newline joins
// the lines.
func unescape(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (special == "" || strings.IndexByte(special, s[i+1]) >= 0) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the escapes of a $'…' string.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U', '0', '1', '2', '3', '4', '5', '6', '7':
			base, max, start := 16, 2, i+1
			switch c {
			case 'u':
				max = 4
			case 'U':
				max = 8
			case 'x':
			default:
				base, max, start = 8, 3, i
			}
			j := start
			for j < len(s) && j-start < max && isDigit(s[j], base) {
				j++
			}
			if j == start {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			n, _ := strconv.ParseUint(s[start:j], base, 32)
			if c == 'u' || c == 'U' {
				b.WriteRune(rune(n))
			} else if n < utf8.RuneSelf || base == 16 || base == 8 {
				b.WriteByte(byte(n))
			}
			i = j - 1
		default:
			b.WriteByte(c) // \\ \' \" \?
		}
	}
	return b.String()
}

func isDigit(c byte, base int) bool {
	if base == 8 {
		return c >= '0' && c <= '7'
	}
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
