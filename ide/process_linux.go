package ide

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

const usesSnapshotWalk = false

// lookupProcess reads /proc, which is cheaper than running ps at every
// step of the walk.
func lookupProcess(pid int) (procInfo, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	ppid, comm, ok := parseProcStat(string(stat))
	if !ok {
		return procInfo{}, os.ErrInvalid
	}
	info := procInfo{ppid: ppid, name: comm}
	if cmd, err := os.ReadFile(dir + "/cmdline"); err == nil && len(cmd) > 0 {
		info.command = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		// argv[0] names the program as the user ran it (comm is cut at 15
		// bytes), which is what Gemini CLI compares with the shells.
		if n := commandName(info.command); n != "" {
			info.name = n
		}
	}
	return info, nil
}
