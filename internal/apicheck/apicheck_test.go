// Package apicheck holds the test that keeps Castor's public API free of
// internal types.
package apicheck

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

// public are the packages an SDK user imports. Their exported names may
// not show a type from an internal package: such a type has no page in
// go doc, its fields cannot be read, and the program cannot name it.
var public = []string{
	"github.com/castor-dev/castor",
	"github.com/castor-dev/castor/a2a",
	"github.com/castor-dev/castor/acp",
	"github.com/castor-dev/castor/agent",
	"github.com/castor-dev/castor/tool",
	"github.com/castor-dev/castor/model",
	"github.com/castor-dev/castor/mcp",
	"github.com/castor-dev/castor/policy",
}

// TestPublicAPINamesNoInternalType type-checks the public packages from
// the compiler's export data and walks every exported name: functions,
// variables, constants, types (an alias included), their exported fields
// and methods.
func TestPublicAPINamesNoInternalType(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list -export")
	}
	gocmd := npmtest.LookPath(t, "go")
	cmd := exec.Command(gocmd, append([]string{"list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, public...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -export: %v\n%s", err, stderr)
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, _ := strings.Cut(sc.Text(), "\t")
		exports[path] = file
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var bad []string
	for _, path := range public {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		bad = append(bad, internalLeaks(pkg)...)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// internalLeaks lists, for each exported name of pkg, the internal types
// its declaration shows.
func internalLeaks(pkg *types.Package) []string {
	var out []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		where := pkg.Path() + "." + name
		w := walker{seen: map[types.Type]bool{}}
		switch o := obj.(type) {
		case *types.TypeName:
			if o.IsAlias() {
				w.typ(types.Unalias(o.Type()), true)
			} else {
				w.named(o.Type())
			}
		default:
			w.typ(obj.Type(), true)
		}
		for _, l := range w.leaks {
			out = append(out, fmt.Sprintf("%s shows %s", where, l))
		}
	}
	return out
}

type walker struct {
	seen  map[types.Type]bool
	leaks []string
}

// named walks a defined type's underlying type and exported methods.
func (w *walker) named(t types.Type) {
	n, ok := t.(*types.Named)
	if !ok {
		w.typ(t, true)
		return
	}
	w.typ(n.Underlying(), false)
	for i := 0; i < n.NumMethods(); i++ {
		if m := n.Method(i); m.Exported() {
			w.typ(m.Type(), true)
		}
	}
}

// typ records internal named types reachable from t through what a
// program can see: exported fields, signatures, elements.
func (w *walker) typ(t types.Type, top bool) {
	if t == nil || w.seen[t] {
		return
	}
	w.seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		w.typ(types.Unalias(t), top)
	case *types.Named:
		if p := t.Obj().Pkg(); p != nil && isInternal(p.Path()) {
			w.leaks = append(w.leaks, p.Path()+"."+t.Obj().Name())
		}
		for i := 0; i < t.TypeArgs().Len(); i++ {
			w.typ(t.TypeArgs().At(i), true)
		}
	case *types.Pointer:
		w.typ(t.Elem(), top)
	case *types.Slice:
		w.typ(t.Elem(), top)
	case *types.Array:
		w.typ(t.Elem(), top)
	case *types.Map:
		w.typ(t.Key(), top)
		w.typ(t.Elem(), top)
	case *types.Chan:
		w.typ(t.Elem(), top)
	case *types.Signature:
		for i := 0; i < t.Params().Len(); i++ {
			w.typ(t.Params().At(i).Type(), true)
		}
		for i := 0; i < t.Results().Len(); i++ {
			w.typ(t.Results().At(i).Type(), true)
		}
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if f := t.Field(i); f.Exported() {
				w.typ(f.Type(), true)
			}
		}
	case *types.Interface:
		for i := 0; i < t.NumMethods(); i++ {
			if m := t.Method(i); m.Exported() {
				w.typ(m.Type(), true)
			}
		}
	}
}

func isInternal(path string) bool {
	return strings.HasPrefix(path, "github.com/castor-dev/castor/") && (strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal"))
}
