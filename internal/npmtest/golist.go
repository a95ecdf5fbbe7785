package npmtest

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// GoListDeps returns `go list -deps pkg` run in the test's directory: the
// import paths pkg links, itself included. The go command is a peer like
// any other (LookPath).
func GoListDeps(t testing.TB, pkg string) []string {
	t.Helper()
	out, err := exec.Command(LookPath(t, "go"), "list", "-deps", pkg).Output()
	if err != nil {
		var ee *exec.ExitError
		var stderr []byte
		if errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
	}
	deps := strings.Fields(string(out))
	// Anything real links the runtime and more: fewer means go list
	// printed something else, and a check over it could not fail.
	if len(deps) < 5 {
		t.Fatalf("go list -deps %s printed %d packages: %q", pkg, len(deps), out)
	}
	return deps
}
