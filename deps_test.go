package castor_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

// TestSDKLinksNoFace checks with `go list -deps` that a program importing
// the SDK links none of the faces: not the A2A server, not the IDE
// companion, not the CLI, not cobra.
func TestSDKLinksNoFace(t *testing.T) {
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
	forbidden := []string{
		"github.com/castor-dev/castor/a2a",
		"github.com/castor-dev/castor/ide/companion",
		"github.com/castor-dev/castor/internal/cli",
		"github.com/castor-dev/castor/internal/a2asession",
		"github.com/castor-dev/castor/internal/tui",
		"github.com/castor-dev/castor/internal/acp",
		"charm.land/bubbletea/v2",
		"github.com/spf13/cobra",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps printed %d packages: %q", len(deps), out)
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("the SDK links %s", d)
			}
		}
	}
}
