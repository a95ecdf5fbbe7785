// Package golden is the one golden-file helper of Castor's tests: a test
// compares what it got with a file under testdata/, and `go test -update`
// rewrites every golden file of the packages it runs (the one -update
// flag of the repository, registered here).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (and what a test records from an outside program)")

// Update reports whether the run was asked to rewrite golden files, for
// tests whose expected data comes from elsewhere (an outside program's
// answers, a screen read until it settles).
func Update() bool { return *update }

// Check compares got with the golden file at path (relative to the test's
// package folder); under -update it writes got there instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		Write(t, path, got)
		return
	}
	if want := Read(t, path); string(want) != string(got) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// Read returns the golden file at path, failing the test when it is
// missing with how to make it.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	return b
}

// Write writes the golden file at path, making its folder.
func Write(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
