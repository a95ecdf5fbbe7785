//go:build !linux

package blobstore

import "errors"

// syncFSSupported: without syncfs(2) a barrier fsyncs file by file.
const syncFSSupported = false

func syncFS(string) error { return errors.ErrUnsupported }
