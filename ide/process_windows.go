package ide

import (
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

const usesSnapshotWalk = true

var (
	snapshotOnce sync.Once
	snapshot     map[int]procInfo
)

// lookupProcess reads one snapshot of the process table, taken at the
// first call, as Gemini CLI walks a single table on Windows.
func lookupProcess(pid int) (procInfo, error) {
	snapshotOnce.Do(func() { snapshot = processTable() })
	info, ok := snapshot[pid]
	if !ok {
		return procInfo{}, os.ErrNotExist
	}
	return info, nil
}

func processTable() map[int]procInfo {
	table := map[int]procInfo{}
	h, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return table
	}
	defer windows.CloseHandle(h)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(h, &e); err == nil; err = windows.Process32Next(h, &e) {
		name := windows.UTF16ToString(e.ExeFile[:])
		table[int(e.ProcessID)] = procInfo{ppid: int(e.ParentProcessID), name: name, command: name}
	}
	return table
}

// pidAlive cannot be checked cheaply on Windows; like Gemini CLI, assume
// the process runs.
func pidAlive(pid int) bool { return pid > 0 }

// ownedByUser is not checked on Windows, where the temp directory is the
// user's own.
func ownedByUser(os.FileInfo) bool { return true }
