package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/modsource"
)

// TestOneUpdateFlag fails when a test file outside this package registers
// its own -update flag (flag.Bool("update", ...)) or reads an environment
// variable to rewrite golden files, so that `go test -update` keeps
// rewriting every golden file, through Check and Write. It parses every
// _test.go file of the module (nested modules, testdata and hidden
// directories aside).
func TestOneUpdateFlag(t *testing.T) {
	var found []string
	modsource.Files(t, true, func(rel string) bool { return rel == "internal/golden" }, func(path, rel string) {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			lit, isLit := call.Args[0].(*ast.BasicLit)
			if !ok || !isLit || lit.Kind != token.STRING {
				return true
			}
			arg, _ := strconv.Unquote(lit.Value)
			pkg, _ := sel.X.(*ast.Ident)
			switch {
			case pkg != nil && pkg.Name == "flag" && arg == "update":
				found = append(found, rel+": flag "+arg)
			case sel.Sel.Name == "Getenv" && strings.Contains(arg, "UPDATE"):
				found = append(found, rel+": environment variable "+arg)
			}
			return true
		})
	})
	for _, f := range found {
		t.Errorf("%s: golden files are rewritten by internal/golden's one -update flag", f)
	}
}
