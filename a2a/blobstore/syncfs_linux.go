package blobstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFSSupported: syncfs(2) writes back a whole file system in one call.
const syncFSSupported = true

// syncFS writes back the file system holding dir.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
