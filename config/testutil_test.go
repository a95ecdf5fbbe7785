package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/golden"
)

// writeTree creates files under root; a key ending in "/" makes a
// directory.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkGolden compares got with testdata/<name> (golden.Check). "$ROOT"
// in the golden file stands for root, so goldens do not depend on the
// temporary directory.
func checkGolden(t *testing.T, name, got, root string) {
	t.Helper()
	if root != "" {
		got = strings.ReplaceAll(got, filepath.ToSlash(root), "$ROOT")
		got = strings.ReplaceAll(got, root, "$ROOT")
	}
	golden.Check(t, name, got)
}

// realTempDir is t.TempDir with symlinks resolved (macOS's /var is a
// link), so paths compare equal to what the code computes.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdirAll(p string) error { return os.MkdirAll(p, 0o755) }

func writeFile(p, content string) error { return os.WriteFile(p, []byte(content), 0o644) }
