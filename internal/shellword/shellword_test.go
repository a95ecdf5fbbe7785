package shellword

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestLiteral(t *testing.T) {
	for _, tt := range []struct{ word, want string }{
		{`git`, "git"},
		{`'git'`, "git"},
		{`"g"it`, "git"},
		{`"$HOME"`, ""},
		{`$(which git)`, ""},
		{`g*`, "g*"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tt.word), "")
		if err != nil {
			t.Fatalf("%s: %v", tt.word, err)
		}
		call := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if got := Literal(call.Args[0]); got != tt.want {
			t.Errorf("Literal(%s) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
