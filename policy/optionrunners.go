package policy

import (
	"fmt"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// optionRunner says why a command runs another command through its own
// options or script, which no rule can read before it runs, or "":
// `sed 's/x/date/e'`, `vim -c '!rm x'`, `tar --checkpoint-action=exec=…`,
// `ssh host rm x`, `rsync -e 'sh -c …'`. A word whose value cannot be
// known counts as such an option.
func optionRunner(base string, ws []word) string {
	unknown := func(how string) string {
		return fmt.Sprintf("The command `%s %s` runs cannot be known before it runs.", base, how)
	}
	args := ws[1:]
	for _, w := range args {
		if !w.known && optionRunners.Get()[base] {
			return unknown(w.src)
		}
	}
	switch base {
	case "sed", "gsed":
		return sedRunner(args, unknown)
	case "vim", "vi", "nvim", "ex", "view", "vimdiff", "rvim", "gvim":
		for i, w := range args {
			s := w.s
			switch {
			case s == "--":
				return ""
			case strings.HasPrefix(s, "+") || s == "-c" || s == "--cmd" || s == "-S" || s == "-s" || s == "-u" || s == "-x":
				return unknown(s)
			case strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && strings.ContainsAny(s[1:], "cSs") && i+1 < len(args):
				return unknown(s)
			}
		}
	case "tar", "gtar", "bsdtar":
		for i, w := range args {
			s := w.s
			for _, opt := range []string{"--checkpoint-action", "--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command"} {
				if s == opt || strings.HasPrefix(s, opt+"=") {
					return unknown(opt)
				}
			}
			// -I prog and -F script, alone or in a cluster (-xIprog,
			// and the old style's first word: tar xIf prog a.tar).
			if strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && strings.ContainsAny(s[1:], "IF") ||
				i == 0 && !strings.HasPrefix(s, "-") && strings.ContainsAny(s, "IF") {
				return unknown(s)
			}
		}
	case "ssh":
		return sshRunner(args, "BbcDEeFIiJLlmOoPpQRSWw", true, unknown)
	case "scp", "sftp":
		return sshRunner(args, "cDFiJlLoPSX", false, unknown)
	case "rsync":
		for _, w := range args {
			s := w.s
			if s == "-e" || strings.HasPrefix(s, "--rsh") || strings.HasPrefix(s, "--rsync-path") ||
				strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && strings.Contains(s[1:], "e") {
				return unknown(s)
			}
		}
	case "zip":
		for _, w := range args {
			if w.s == "-TT" || strings.HasPrefix(w.s, "--unzip-command") {
				return unknown(w.s)
			}
		}
	}
	return ""
}

// optionRunners are the programs optionRunner reads.
var optionRunners = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"sed": true, "gsed": true, "vim": true, "vi": true, "nvim": true, "ex": true, "view": true, "vimdiff": true,
		"rvim": true, "gvim": true, "tar": true, "gtar": true, "bsdtar": true, "ssh": true, "scp": true, "sftp": true,
		"rsync": true, "zip": true,
	}
}}

// sshRunner reads ssh's (or scp's) arguments: a configuration file or
// option naming a local command, and, for ssh (command set), a command
// after the host, run on the other machine.
func sshRunner(args []word, valued string, command bool, unknown func(string) string) string {
	for i := 0; i < len(args); i++ {
		s := args[i].s
		if s == "--" {
			i++
			if command && i+1 < len(args) {
				return unknown(strings.Join([]string{args[i].s, args[i+1].s}, " "))
			}
			return ""
		}
		if !strings.HasPrefix(s, "-") || s == "-" {
			if command && i+1 < len(args) {
				return unknown(s + " " + args[i+1].s)
			}
			if command {
				return ""
			}
			continue // scp's paths
		}
		// A cluster of flags, the last of which may take a value.
		for j := 1; j < len(s); j++ {
			c := s[j]
			if !strings.ContainsRune(valued, rune(c)) {
				continue
			}
			value := s[j+1:]
			if value == "" && i+1 < len(args) {
				i++
				value = args[i].s
			}
			switch c {
			case 'F':
				return unknown("-F " + value)
			case 'S':
				if !command {
					return unknown("-S " + value) // scp's ssh program
				}
			case 'o':
				key, _, _ := strings.Cut(strings.ToLower(value), "=")
				if f := strings.Fields(key); len(f) > 0 {
					key = f[0]
				}
				switch key {
				case "proxycommand", "localcommand", "knownhostscommand", "permitlocalcommand", "match", "include", "remotecommand":
					return unknown("-o " + value)
				}
			}
			break
		}
	}
	return ""
}

// sedRunner reads sed's scripts (-e, --expression, or the first operand)
// for the commands that run programs: e, and the e flag of s. A script
// read from a file (-f) cannot be known.
func sedRunner(args []word, unknown func(string) string) string {
	var scripts []string
	operand := true
	for i := 0; i < len(args); i++ {
		s := args[i].s
		switch {
		case s == "--":
			if operand && i+1 < len(args) {
				scripts = append(scripts, args[i+1].s)
			}
			i = len(args)
		case s == "-e" || s == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1].s)
				i++
			}
			operand = false
		case strings.HasPrefix(s, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(s, "--expression="))
			operand = false
		case s == "-f" || strings.HasPrefix(s, "--file"):
			return unknown(s)
		case strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && len(s) > 1:
			// A cluster: -ne 's/…/' takes the next word; -f likewise.
			if k := strings.IndexAny(s, "ef"); k > 0 {
				if s[k] == 'f' {
					return unknown(s)
				}
				value := s[k+1:]
				if value == "" && i+1 < len(args) {
					i++
					value = args[i].s
				}
				scripts = append(scripts, value)
				operand = false
			}
		case strings.HasPrefix(s, "-"):
		case operand:
			scripts = append(scripts, s)
			operand = false
		}
	}
	for _, sc := range scripts {
		if sedScriptRuns(sc) {
			return unknown(fmt.Sprintf("'%s'", sc))
		}
	}
	return ""
}

// sedScriptRuns reports whether a sed script has a command that runs a
// program (e, or s///e), or cannot be read (then it may).
func sedScriptRuns(script string) bool {
	s := script
	i := 0
	skipTo := func(stops string) {
		for i < len(s) && !strings.ContainsRune(stops, rune(s[i])) {
			i++
		}
	}
	// delimited skips a part ended by d, escapes included; false when it
	// is not closed on its line (sed refuses the script).
	delimited := func(d byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				if i+1 < len(s) && s[i+1] == '\n' {
					return false
				}
				i += 2
				continue
			case d:
				i++
				return true
			case '\n':
				return false
			}
			i++
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$'):
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
		}
		return true
	}
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == '!' {
			i++
			continue
		}
		if c == '#' {
			skipTo("\n")
			continue
		}
		if !address() {
			return true
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				return true
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return false
		}
		c = s[i]
		i++
		switch c {
		case 'e':
			return true
		case 's', 'y':
			if i >= len(s) {
				return true
			}
			d := s[i]
			i++
			pattern := delimited(d)
			if !pattern || !delimited(d) { // the pattern, then the replacement
				return true
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && !strings.ContainsRune(";\n}", rune(s[i])) {
				switch s[i] {
				case 'e':
					return true
				case 'w':
					skipTo("\n") // the file name runs to the end of the line
					continue
				}
				i++
			}
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W':
			skipTo("\n")
		case ':', 'b', 't', 'T':
			skipTo(";\n")
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'q', 'Q', 'x', 'z', 'F', 'L', 'v':
			skipTo(";\n}")
		default:
			return true // not sed as we know it
		}
	}
	return false
}
