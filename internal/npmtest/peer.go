package npmtest

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run under CI (CI=true), where .ci/run
// has installed every outside program and npm package the tests use.
func InCI() bool {
	return os.Getenv("CI") == "true"
}

// Missing reports that an outside peer a test needs (a program such as
// git, rg or tmux, an npm package, Node 22) is not there. Outside CI the
// test is skipped with the reason; under CI=true it fails, because .ci/run
// installs every peer and a skip there would hide a broken install.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("%s (CI=true: .ci/run installs it, so it must be here)", reason)
	}
	t.Skip(reason)
}

// LookPath returns the path of program, or reports it Missing.
func LookPath(t testing.TB, program string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err != nil {
		Missing(t, "%s is not on PATH", program)
	}
	return p
}
