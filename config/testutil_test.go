package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites golden files: go test ./config -run X -update
var update = flag.Bool("update", false, "rewrite golden files")

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

// golden compares got with testdata/<name>, rewriting it under -update.
// "$ROOT" in the golden file stands for root, so goldens do not depend on
// the temporary directory.
func golden(t *testing.T, name, got, root string) {
	t.Helper()
	if root != "" {
		got = strings.ReplaceAll(got, filepath.ToSlash(root), "$ROOT")
		got = strings.ReplaceAll(got, root, "$ROOT")
	}
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s mismatch\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
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
