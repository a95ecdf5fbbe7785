//go:build !unix

package blobstore_test

import "time"

// cpuTime is 0 where getrusage is missing.
func cpuTime() time.Duration { return 0 }
