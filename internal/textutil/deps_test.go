package textutil

import (
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
	deps := npmtest.GoListDeps(t, ".")
	for _, d := range deps {
		switch d {
		case "golang.org/x/text/collate", "golang.org/x/text/internal/colltab", "golang.org/x/text/language":
			t.Errorf("textutil links %s", d)
		}
	}
}
