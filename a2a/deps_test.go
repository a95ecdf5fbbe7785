package a2a_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoA2AGoV1Runtime fails when castor links of a2a-go v1 (the
// 0.3 module) more than its types: a2acompat/a2av0 brought v1's client,
// server, protobuf and gRPC glue, whose init work every start paid for
// (v1conv.go converts instead).
func TestLinksNoA2AGoV1Runtime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../cmd/castor").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		rest, v1 := strings.CutPrefix(p, "github.com/a2aproject/a2a-go/")
		if v1 && !strings.HasPrefix(rest, "v2/") && rest != "a2a" || strings.HasPrefix(rest, "v2/a2acompat/") {
			t.Errorf("castor links %s", p)
		}
	}
}
