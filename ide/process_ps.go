//go:build !linux && !windows

package ide

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"time"
)

const usesSnapshotWalk = false

// lookupProcess asks ps, as Gemini CLI does on macOS and the BSDs.
func lookupProcess(pid int) (procInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ps", "-o", "ppid=,command=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return procInfo{}, err
	}
	info, ok := parsePS(string(out))
	if !ok {
		return procInfo{}, os.ErrNotExist
	}
	return info, nil
}
