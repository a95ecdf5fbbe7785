package blobstore_test

import (
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/storetest"
)

// TestConformance runs the checks every task store passes over both
// buckets that need no cloud account: file:// (the disk store) and mem://.
func TestConformance(t *testing.T) {
	for _, tt := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"file", func(t *testing.T) string { return mustFileURL(t, t.TempDir()) }},
		{"mem", func(*testing.T) string { return "mem://" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) a2a.TaskStore { return mustOpen(t, tt.url(t)) })
		})
	}
}
