package builtin

// Errors of failed writes and reads, worded as Gemini CLI words them (its
// node-style messages and error codes), the same whichever tool hit them.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/castor-dev/castor/tool"
)

// randomHex returns n random bytes in hex, for temporary file names.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writeError classifies a failed write of absPath into the typed error the
// model sees, with Gemini CLI's wording (write-file.ts): EACCES/EPERM →
// PERMISSION_DENIED, ENOSPC → NO_SPACE_LEFT (fatal in headless runs),
// EISDIR → TARGET_IS_DIRECTORY, anything else → FILE_WRITE_FAILURE
// ("Error writing to file '<abs>': <node-style message> (<CODE>)").
func writeError(absPath string, err error) *tool.Error {
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return tool.Errorf(tool.ErrPermissionDenied, "Permission denied writing to file: %s (%s)", absPath, errnoName(err, "EACCES"))
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return tool.Errorf(tool.ErrNoSpaceLeft, "No space left on device: %s (%s)", absPath, errnoName(err, "ENOSPC"))
	case errors.Is(err, syscall.EISDIR):
		return tool.Errorf(tool.ErrTargetIsDirectory, "Target is a directory, not a file: %s (EISDIR)", absPath)
	}
	if name := errnoName(err, ""); name != "" {
		return tool.Errorf(tool.ErrFileWriteFailure, "Error writing to file '%s': %s (%s)", absPath, nodeErrorMessage(err), name)
	}
	return tool.Errorf(tool.ErrFileWriteFailure, "Error writing to file: %s", err.Error())
}

// errnoName returns the symbolic name Node would give err's errno (the
// "(EACCES)" suffix Gemini CLI appends), or def when it is not an errno.
func errnoName(err error, def string) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return def
	}
	switch errno {
	case syscall.EACCES:
		return "EACCES"
	case syscall.EPERM:
		return "EPERM"
	case syscall.EROFS:
		return "EROFS"
	case syscall.ENOSPC:
		return "ENOSPC"
	case syscall.EDQUOT:
		return "EDQUOT"
	case syscall.EISDIR:
		return "EISDIR"
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.ENOTDIR:
		return "ENOTDIR"
	}
	return def
}

// nodeErrorMessage renders a filesystem error the way Node's fs errors read
// ("ENOENT: no such file or directory, open '/x'"), which is what Gemini CLI
// puts after "Error writing to file: " and similar prefixes. Errors without
// an errno are returned as they are.
func nodeErrorMessage(err error) string {
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) && errors.As(err, &errno) {
		name := errnoName(err, "")
		if name != "" {
			op := pe.Op
			if op == "stat" || op == "lstat" {
				op = "stat"
			}
			return fmt.Sprintf("%s: %s, %s '%s'", name, errno.Error(), op, pe.Path)
		}
	}
	var le *os.LinkError
	if errors.As(err, &le) && errors.As(err, &errno) {
		if name := errnoName(err, ""); name != "" {
			return fmt.Sprintf("%s: %s, %s '%s' -> '%s'", name, errno.Error(), le.Op, le.Old, le.New)
		}
	}
	return err.Error()
}
