package castor_test

import (
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
	deps := npmtest.GoListDeps(t, ".")
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
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("the SDK links %s", d)
			}
		}
	}
}
