package blobstore_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDefaultBuildLinksNoGocloud fails when castor's default build links
// any of gocloud.dev: its blob packages and their dependencies (OpenTelemetry
// glue, the driver registry) had init work and types every start paid
// for, and file:// and mem:// are the package's own (Bucket). Only the
// cloudstore tag links it, for gs:// and s3://.
func TestDefaultBuildLinksNoGocloud(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/castor").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "gocloud.dev" || strings.HasPrefix(p, "gocloud.dev/") {
			t.Errorf("castor links %s", p)
		}
	}
}
