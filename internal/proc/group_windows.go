//go:build windows

package proc

import (
	"os/exec"
	"unsafe"

	"golang.org/x/sys/windows"
)

// groupSys is the job object the command's processes belong to; 0 when
// Windows would not make one, and the group is the command's process
// alone. A child started before the command joins the job (a moment
// after it starts) escapes it.
type groupSys struct{ job windows.Handle }

// prepare is a no-op: the job is made once the process exists.
func prepare(*exec.Cmd) {}

// join puts the started cmd into a new job object; with o.Tether the job
// ends its processes when its last handle closes.
func join(cmd *exec.Cmd, o Options) groupSys {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return groupSys{}
	}
	if o.Tether {
		info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
			BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
		}
		_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	}
	if err == nil {
		var h windows.Handle
		h, err = windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
		if err == nil {
			err = windows.AssignProcessToJobObject(job, h)
			windows.CloseHandle(h)
		}
	}
	if err != nil {
		windows.CloseHandle(job)
		return groupSys{}
	}
	return groupSys{job: job}
}

// Terminate fails: Windows has no signal to ask a console program
// without a console to stop. Callers then Kill.
func (g *Group) Terminate() error { return windows.ERROR_NOT_SUPPORTED }

// Kill ends every process of the job; without a job, the command's own.
func (g *Group) Kill() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sys.job != 0 {
		return windows.TerminateJobObject(g.sys.job, 1)
	}
	return g.cmd.Process.Kill()
}

// Release closes the job: with Options.Tether that ends what is left in
// it; without, what the command left running carries on.
func (g *Group) Release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sys.job != 0 {
		windows.CloseHandle(g.sys.job)
		g.sys.job = 0
	}
}

// Alive reports whether a process of the job is left.
func (g *Group) Alive() bool { return len(g.members()) > 0 }

// PIDs lists the live processes of the job besides the command's own.
func (g *Group) PIDs() []int {
	var others []int
	for _, p := range g.members() {
		if p != g.cmd.Process.Pid {
			others = append(others, p)
		}
	}
	return others
}

// members asks the job for its processes (the first 256: enough to see
// whether any is left and to name what a command left behind).
func (g *Group) members() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sys.job == 0 {
		return nil
	}
	var list struct {
		assigned, listed uint32
		ids              [256]uintptr
	}
	if windows.QueryInformationJobObject(g.sys.job, windows.JobObjectBasicProcessIdList, uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil) != nil {
		return nil
	}
	pids := make([]int, 0, list.listed)
	for _, id := range list.ids[:min(int(list.listed), len(list.ids))] {
		pids = append(pids, int(id))
	}
	return pids
}
