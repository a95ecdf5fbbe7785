package config

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
)

// SetDotEnvValue sets key to value in the .env file at path, as the
// extension settings commands store a setting: the line defining key is
// replaced in place (every other line, comments included, is kept), or
// the line is appended; a missing file is created readable by its owner
// only, since settings are often secrets. ParseDotEnv reads back exactly
// value.
func SetDotEnvValue(path, key, value string) error {
	if !dotenvKey.Get().MatchString(key) {
		return fmt.Errorf("%s: invalid variable name %q", path, key)
	}
	line, err := dotenvAssignment(key, value)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", path, key, err)
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = nil
	}
	out, at := withoutKey(lines, key)
	if at < 0 {
		out = append(out, line)
	} else {
		out = slices.Insert(out, at, line)
	}
	return fsutil.WriteFileAtomic(path, []byte(strings.Join(out, "\n")+"\n"), 0o600)
}

// withoutKey returns lines without the definitions of key (a quoted
// value spanning lines goes whole, as ParseDotEnv reads it), and where in
// the result the first one stood (-1: there was none).
func withoutKey(lines []string, key string) (out []string, at int) {
	at = -1
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := dotenvDefines.Get().FindStringSubmatch(l); m != nil && m[1] == key {
			// A quoted value may span lines: skip to its closing quote.
			rest := strings.TrimLeft(l[len(m[0]):], " \t")
			if q := openQuote(rest); q != 0 && !strings.ContainsRune(rest[1:], rune(q)) {
				i = quotedEnd(lines, i)
			}
			if at < 0 {
				at = len(out)
			}
			continue
		}
		out = append(out, l)
	}
	return out, at
}

var (
	dotenvKey     = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[\w.-]+$`) }}
	dotenvDefines = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*|:\s+)`) }}
	dotenvBare    = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[^\s#'"` + "`" + `\\]+$`) }}
)

// quotedEnd is the line closing a quoted value that line i opens and
// does not close, found as ParseDotEnv finds it: the quote closes on a
// later line only when what follows it ends the definition. Otherwise
// (no closing quote, or one that belongs to a later key) it is i itself:
// ParseDotEnv reads a one-line value, and the lines after it are other
// keys, never to be dropped with it.
func quotedEnd(lines []string, i int) int {
	rest := strings.Join(lines[i:], "\n")
	loc := dotenvLine.Get().FindStringIndex(rest)
	if loc == nil || loc[0] != 0 {
		return i
	}
	// The pattern's trailing \s* may run over blank lines: they stay.
	return i + strings.Count(strings.TrimRight(rest[:loc[1]], " \t\r\n"), "\n")
}

// openQuote is the quote a value starts with, 0 when it is bare.
func openQuote(v string) byte {
	v = strings.TrimLeft(v, " \t")
	if v != "" && (v[0] == '"' || v[0] == '\'' || v[0] == '`') {
		return v[0]
	}
	return 0
}

// dotenvAssignment writes KEY=value so that ParseDotEnv reads value back:
// bare when it can be, else in the first quote it does not contain.
func dotenvAssignment(key, value string) (string, error) {
	switch {
	case value == "":
		return key + "=", nil
	case dotenvBare.Get().MatchString(value) && !strings.ContainsFunc(value, unicode.IsSpace):
		// ParseDotEnv trims every Unicode space around a bare value (\v,
		// a no-break space), more than \s: such a value is quoted.
		return key + "=" + value, nil
	case strings.ContainsAny(value, "\r"):
		return "", errors.New("a value cannot hold a carriage return")
	case !strings.Contains(value, `"`) && !strings.Contains(value, `\n`) && !strings.Contains(value, `\r`):
		return key + `="` + strings.ReplaceAll(value, "\n", `\n`) + `"`, nil
	case !strings.Contains(value, "'") && !strings.Contains(value, "\n"):
		return key + "='" + value + "'", nil
	case !strings.Contains(value, "`") && !strings.Contains(value, "\n"):
		return key + "=`" + value + "`", nil
	}
	return "", errors.New("the value mixes every kind of quote (or quotes and newlines); a .env file cannot hold it")
}
