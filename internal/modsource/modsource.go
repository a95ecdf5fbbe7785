// Package modsource walks the Go files of Castor's module, for the tests
// that guard where a kind of code may live (one process-group
// implementation, one address guard, one -update flag).
package modsource

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Root is the module's root: the nearest directory above the test's
// package that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for !exists(filepath.Join(dir, "go.mod")) {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
	return dir
}

// Files calls fn with the path of each Go file of the module, and that
// path relative to the module root with forward slashes: the _test.go
// files when tests is set, the others when not. Nested modules, testdata,
// vendor, hidden and _ directories are left out, and so is every
// directory skip accepts (its path relative to the root). Fewer than 100
// files fails the test: the walk is broken.
func Files(t testing.TB, tests bool, skip func(rel string) bool, fn func(path, rel string)) {
	t.Helper()
	root := Root(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				exists(filepath.Join(path, "go.mod")) || (skip != nil && skip(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") != tests {
			return nil
		}
		files++
		fn(path, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d files found under %s: the walk is broken", files, root)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
