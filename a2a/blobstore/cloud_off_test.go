//go:build !cloudstore

package blobstore_test

// cloudLinked reports whether this test binary links the gs:// and s3://
// drivers.
const cloudLinked = false
