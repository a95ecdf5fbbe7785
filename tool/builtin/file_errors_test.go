package builtin

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestWriteError(t *testing.T) {
	pe := func(errno syscall.Errno) error {
		return &fs.PathError{Op: "open", Path: "/w/f.txt", Err: errno}
	}
	tests := []struct {
		name string
		err  error
		typ  tool.ErrorType
		msg  string
	}{
		{"EACCES", pe(syscall.EACCES), tool.ErrPermissionDenied, "Permission denied writing to file: /w/f.txt (EACCES)"},
		{"EPERM", pe(syscall.EPERM), tool.ErrPermissionDenied, "Permission denied writing to file: /w/f.txt (EPERM)"},
		{"ENOSPC", pe(syscall.ENOSPC), tool.ErrNoSpaceLeft, "No space left on device: /w/f.txt (ENOSPC)"},
		{"EISDIR", pe(syscall.EISDIR), tool.ErrTargetIsDirectory, "Target is a directory, not a file: /w/f.txt (EISDIR)"},
		{"ENOTDIR", pe(syscall.ENOTDIR), tool.ErrFileWriteFailure, "Error writing to file '/w/f.txt': ENOTDIR: not a directory, open '/w/f.txt' (ENOTDIR)"},
		{"plain", errors.New("boom"), tool.ErrFileWriteFailure, "Error writing to file: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := writeError("/w/f.txt", tt.err)
			if got.Type != tt.typ || got.Message != tt.msg {
				t.Errorf("got %s %q\nwant %s %q", got.Type, got.Message, tt.typ, tt.msg)
			}
		})
	}
	if !writeError("/x", pe(syscall.ENOSPC)).Type.Fatal() {
		t.Error("a full disk must be fatal")
	}
}
