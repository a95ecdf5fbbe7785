//go:build windows

package mcp

import (
	"os/exec"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procGroup is a stdio server's job object: the processes the server
// starts join it, so that stopping the server stops them too, and the
// job's last handle closing (Castor exiting, even killed) ends them all.
// A child started before the server joins the job (a moment after it
// starts) escapes it; Windows has no polite stop for a console program
// without a console, so terminate fails and the caller kills.
type procGroup struct {
	mu  sync.Mutex // kill and sweep may race: Close and the server's exit
	job windows.Handle
	// cmd is the server's process, which kill ends itself when there is
	// no job: else Close would wait forever for a server that ignores
	// its closed stdin.
	cmd *exec.Cmd
}

// prepareGroup is a no-op: the job is made once the process exists.
func prepareGroup(*exec.Cmd) {}

// joinGroup puts the started cmd into a new job object. Without one (an
// error from Windows) the group is the process alone.
func joinGroup(cmd *exec.Cmd) *procGroup {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return &procGroup{cmd: cmd}
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
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
		return &procGroup{cmd: cmd}
	}
	return &procGroup{job: job, cmd: cmd}
}

// terminate fails: there is no signal to ask a console program to stop.
func (g *procGroup) terminate() error { return windows.ERROR_NOT_SUPPORTED }

// kill ends every process of the job.
func (g *procGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
		return
	}
	if g.cmd != nil && g.cmd.Process != nil {
		_ = g.cmd.Process.Kill()
	}
}

// sweep ends what the server left running and lets the job go.
func (g *procGroup) sweep(time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
		windows.CloseHandle(g.job)
		g.job = 0
	}
}
