package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoAllThreadsSyscalls fails when castor links libcap's psx again
// (go-landlock's packages import it): psx needs cgo's external linker in
// every local build, which costs each start about 12 MB of RSS, and
// Castor confines one thread only (landlockRuleset.start).
func TestNoAllThreadsSyscalls(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/castor").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "libcap/psx") || strings.HasPrefix(p, "github.com/landlock-lsm/") {
			t.Errorf("castor links %s", p)
		}
	}
}
