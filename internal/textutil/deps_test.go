package textutil

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

// TestLinksNoCollationTables checks with `go list -deps` that textutil
// (and so every binary that sorts names) links none of x/text's
// collation: its tables are some 1.2 MB, with init work and types that
// every run pays for. (The tests compare with x/text/collate; go list
// leaves test imports out.)
func TestLinksNoCollationTables(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	gocmd := npmtest.LookPath(t, "go")
	out, err := exec.Command(gocmd, "list", "-deps", ".").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps: %v\n%s", err, stderr)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list -deps printed %d packages: %q", len(deps), out)
	}
	for _, d := range deps {
		switch d {
		case "golang.org/x/text/collate", "golang.org/x/text/internal/colltab", "golang.org/x/text/language":
			t.Errorf("textutil links %s", d)
		}
	}
}
