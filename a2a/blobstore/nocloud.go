//go:build !cloudstore

package blobstore

import (
	"context"
	"errors"
)

// cloudScheme reports whether this binary opens scheme (gs, s3): not
// without the cloudstore tag (BuildHint).
func cloudScheme(string) bool { return false }

// openCloudBucket is not reached: parseURL refuses gs:// and s3:// in a
// binary without the cloudstore tag.
func openCloudBucket(context.Context, string) (Bucket, error) {
	return nil, errors.New("this castor was built without gs:// and s3:// support; build it with: " + BuildHint)
}
