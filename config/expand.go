package config

import (
	"regexp"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// envRef matches $NAME, ${NAME} and ${NAME:-default}, the three forms Gemini
// CLI expands in settings values.
var envRef = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`) }}

// ExpandEnvVars replaces $NAME, ${NAME} and ${NAME:-default} in s. A variable
// that is set (even to "") gives its value; an unset one gives the default
// when the reference has one and is otherwise left as written, so a literal
// "$5" or an unset "$HOME" survives untouched. Unlike shell expansion the
// default applies only to unset variables, which is Gemini CLI's rule. A nil
// lookup reads the process environment.
func ExpandEnvVars(s string, lookup LookupFunc) string {
	if !strings.Contains(s, "$") {
		return s
	}
	lookup = orOS(lookup)
	var b strings.Builder
	last := 0
	for _, m := range envRef.Get().FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		name := ""
		switch {
		case m[2] >= 0:
			name = s[m[2]:m[3]]
		case m[4] >= 0:
			name = s[m[4]:m[5]]
		}
		if v, ok := lookup(name); ok && name != "" {
			b.WriteString(v)
			continue
		}
		if m[6] >= 0 {
			b.WriteString(s[m[6]:m[7]])
			continue
		}
		b.WriteString(s[m[0]:m[1]])
	}
	b.WriteString(s[last:])
	return b.String()
}

// expandTree expands variables in every string value of a decoded JSON tree
// in place and returns the (possibly replaced) root. Object keys are left
// alone, as in Gemini CLI.
func expandTree(v any, lookup LookupFunc) any {
	switch t := v.(type) {
	case string:
		return ExpandEnvVars(t, lookup)
	case map[string]any:
		for k, e := range t {
			t[k] = expandTree(e, lookup)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = expandTree(e, lookup)
		}
		return t
	default:
		return v
	}
}
