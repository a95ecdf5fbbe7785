package netguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guardMethods are the net and net/netip methods a hand-made address
// guard is built from.
var guardMethods = map[string]bool{
	"IsLoopback": true, "IsPrivate": true, "IsLinkLocalUnicast": true, "IsGlobalUnicast": true,
}

// listenerDirs may call guardMethods: they judge the address they listen
// on themselves (is this bind local, so no token is needed?), not a
// destination someone else chose, which is this package's business.
// They are matched as a path suffix, so a package keeps its entry when
// it moves under another directory (internal/host to a2a/internal/host).
var listenerDirs = []string{
	"internal/host",       // Loopback: a face served on loopback needs no token
	"internal/fakegemini", // the test model server refuses to bind off loopback
	"internal/httpguard",  // a request's Host must name this listener: loopback literals do
}

// TestOneGuard fails when a second address guard appears: a non-test Go
// file of the module, outside this package and listenerDirs, calling
// IsLoopback, IsPrivate, IsLinkLocalUnicast or IsGlobalUnicast. Such a
// guard would judge addresses its own way, as the webhook guard did
// before (it let NAT64 and 6to4 addresses of 127.0.0.1 through); use
// Classify, CheckHost or Control instead.
func TestOneGuard(t *testing.T) {
	root := moduleRoot(t)
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root && fileExists(filepath.Join(path, "go.mod")) {
				return filepath.SkipDir // another module
			}
			if path == self || listener(root, path) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && guardMethods[sel.Sel.Name] && len(call.Args) == 0 {
					found = append(found, fset.Position(call.Pos()).String()+": "+sel.Sel.Name+"()")
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		rel, _ := filepath.Rel(root, f)
		t.Errorf("%s: a second address guard; classify with internal/netguard (or, for a listener checking its own bind, add it to listenerDirs)", rel)
	}
}

// listener reports whether dir is one of listenerDirs.
func listener(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, l := range listenerDirs {
		if rel == l || strings.HasSuffix(rel, "/"+l) {
			return true
		}
	}
	return false
}

// moduleRoot is the nearest directory above this package holding go.mod.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for !fileExists(filepath.Join(dir, "go.mod")) {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
	return dir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
