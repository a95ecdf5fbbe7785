package a2a_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

// TestLinksNoA2AGoV1 fails when castor links any package of a2a-go v1
// (the 0.3 module, github.com/a2aproject/a2a-go without /v2) or a2a-go
// v2's a2acompat: a2acompat/a2av0 brought v1's client, server, protobuf
// and gRPC glue, and v1's types their init work (gob registrations), which
// every start paid for. The 0.3 wire types are Castor's own (protocol.go),
// and v1conv.go converts to 1.0.
func TestLinksNoA2AGoV1(t *testing.T) {
	for _, p := range npmtest.GoListDeps(t, "../cmd/castor") {
		rest, a2aGo := strings.CutPrefix(p, "github.com/a2aproject/a2a-go/")
		if a2aGo && !strings.HasPrefix(rest, "v2/") || strings.HasPrefix(rest, "v2/a2acompat/") {
			t.Errorf("castor links %s", p)
		}
	}
}
