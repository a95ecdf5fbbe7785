// Package golden is the one golden-file helper of Castor's tests: a test
// compares what it got with a file under its package's testdata/, and
// `go test -update` rewrites every golden file of the packages it runs
// (the one -update flag of the repository, registered here).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (and what tests record from an outside program)")

// dir is the test's package folder: go test starts the test binary there,
// and a test may change directory later.
var dir, _ = os.Getwd()

// Update reports whether the run was asked to rewrite golden files, for
// tests whose expected data comes from elsewhere (an outside program's
// answers, a screen read until it settles).
func Update() bool { return *update }

// Path is the golden file name: testdata/name in the test's package.
func Path(name string) string {
	return filepath.Join(dir, "testdata", filepath.FromSlash(name))
}

// Check compares got with the golden file testdata/name; under -update it
// writes got there instead.
func Check[T ~string | ~[]byte](t testing.TB, name string, got T) {
	t.Helper()
	if *update {
		Write(t, name, got)
		return
	}
	if want := Read(t, name); string(want) != string(got) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", Path(name), got, want)
	}
}

// Read returns the golden file testdata/name, failing the test when it is
// missing with how to make it.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(name))
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	return b
}

// Write writes the golden file testdata/name, making its folder.
func Write[T ~string | ~[]byte](t testing.TB, name string, got T) {
	t.Helper()
	p := Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
}
