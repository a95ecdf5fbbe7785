package sandbox

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

// TestNoAllThreadsSyscalls fails when castor links libcap's psx again
// (go-landlock's packages import it): psx needs cgo's external linker in
// every local build, which costs each start about 12 MB of RSS, and
// Castor confines one thread only (landlockRuleset.start).
func TestNoAllThreadsSyscalls(t *testing.T) {
	for _, p := range npmtest.GoListDeps(t, "../../cmd/castor") {
		if strings.Contains(p, "libcap/psx") || strings.HasPrefix(p, "github.com/landlock-lsm/") {
			t.Errorf("castor links %s", p)
		}
	}
}
