package blobstore_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

// TestDefaultBuildLinksNoGocloud fails when castor's default build links
// any of gocloud.dev: its blob packages and their dependencies (OpenTelemetry
// glue, the driver registry) had init work and types every start paid
// for, and file:// and mem:// are the package's own (Bucket). Only the
// cloudstore tag links it, for gs:// and s3://.
func TestDefaultBuildLinksNoGocloud(t *testing.T) {
	for _, p := range npmtest.GoListDeps(t, "../../cmd/castor") {
		if p == "gocloud.dev" || strings.HasPrefix(p, "gocloud.dev/") {
			t.Errorf("castor links %s", p)
		}
	}
}
