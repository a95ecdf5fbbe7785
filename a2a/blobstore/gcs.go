//go:build cloudstore

package blobstore

// gs:// stores: Google Cloud Storage through Application Default
// Credentials. Behind the cloudstore tag because the driver and its
// dependencies double the binary; see BuildHint.
import _ "gocloud.dev/blob/gcsblob"
