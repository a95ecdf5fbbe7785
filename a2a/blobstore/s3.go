//go:build cloudstore

package blobstore

// s3:// stores: Amazon S3 and S3-compatible services through the AWS SDK's
// usual configuration (environment, shared files, instance roles). Behind
// the cloudstore tag for the same reason as gs://; see BuildHint.
import _ "gocloud.dev/blob/s3blob"
