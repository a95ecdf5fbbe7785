package netguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/modsource"
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
	fset := token.NewFileSet()
	var found []string
	skip := func(rel string) bool { return rel == "internal/netguard" || listener(rel) }
	modsource.Files(t, false, skip, func(path, rel string) {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && guardMethods[sel.Sel.Name] && len(call.Args) == 0 {
					found = append(found, rel+":"+strconv.Itoa(fset.Position(call.Pos()).Line)+": "+sel.Sel.Name+"()")
				}
			}
			return true
		})
	})
	for _, f := range found {
		t.Errorf("%s: a second address guard; classify with internal/netguard (or, for a listener checking its own bind, add it to listenerDirs)", f)
	}
}

// listener reports whether the directory rel (from the module root) is
// one of listenerDirs.
func listener(rel string) bool {
	for _, l := range listenerDirs {
		if rel == l || strings.HasSuffix(rel, "/"+l) {
			return true
		}
	}
	return false
}
