// Package shellword reads words of parsed shell commands
// (mvdan.cc/sh/v3/syntax), for the shell tool's root commands and the
// policy engine's command rules, which must see a command line the same
// way.
package shellword

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Literal returns a word's text when it is made of literals and quoted
// literals only ("git", 'git', "g"it), else "": a word with an expansion
// has no text known before it runs.
func Literal(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(lit.Value)
			}
		default:
			return ""
		}
	}
	return b.String()
}
