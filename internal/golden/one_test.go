package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOneUpdateFlag fails when a test file outside this package registers
// its own -update flag (flag.Bool("update", ...)) or reads an environment
// variable to rewrite golden files, so that `go test -update` keeps
// rewriting every golden file, through Check and Write. It parses every
// _test.go file of the module (nested modules, testdata and hidden
// directories aside).
func TestOneUpdateFlag(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	self, _ := filepath.Abs(".")
	var found []string
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (path == self || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d test files scanned under %s: the walk is broken", files, root)
	}
	for _, f := range found {
		t.Errorf("%s: golden files are rewritten by internal/golden's one -update flag", f)
	}
}
