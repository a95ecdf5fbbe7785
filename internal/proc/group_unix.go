//go:build unix

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// groupSys is empty: the group's id is its leader's pid, known as soon
// as the process exists (even before Start returns to its caller, when
// exec may already cancel it or a writer already stop it).
type groupSys struct{}

// prepare makes cmd lead a new process group. Besides keeping what the
// command starts together, this keeps a terminal's Ctrl-C, which goes to
// the foreground group, away from it: Castor decides when it stops.
func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

func join(*exec.Cmd, Options) groupSys { return groupSys{} }

func (g *Group) pgid() int { return g.cmd.Process.Pid }

// Terminate asks every process of the group to stop (SIGTERM).
func (g *Group) Terminate() error { return syscall.Kill(-g.pgid(), syscall.SIGTERM) }

// Kill ends every process of the group at once (SIGKILL).
func (g *Group) Kill() error { return syscall.Kill(-g.pgid(), syscall.SIGKILL) }

// Release lets the group go; on Unix there is nothing to hold.
func (g *Group) Release() {}

// Alive reports whether a process of the group is left, zombies aside
// (the leader waits as one until exec reaps it).
func (g *Group) Alive() bool {
	if syscall.Kill(-g.pgid(), 0) != nil {
		return false
	}
	if pids, ok := procMembers(g.pgid()); ok {
		return len(pids) > 0
	}
	return true
}

// PIDs lists the live processes of the group besides its leader: once
// the leader has exited, what it left running in the background. /proc
// is read where there is one; elsewhere pgrep is asked, as Gemini CLI
// does.
func (g *Group) PIDs() []int {
	pgid := g.pgid()
	pids, ok := procMembers(pgid)
	if !ok {
		out, err := exec.Command("pgrep", "-g", strconv.Itoa(pgid)).Output()
		if err != nil {
			return nil
		}
		for _, f := range strings.Fields(string(out)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	others := pids[:0]
	for _, p := range pids {
		if p != pgid {
			others = append(others, p)
		}
	}
	return others
}

// procMembers scans /proc for the processes of the group that are not
// zombies; ok is false when /proc cannot be read.
func procMembers(pgid int) (pids []int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ok = true
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name in parentheses may hold spaces; the fields we
		// want follow the last ')': state, ppid, pgrp.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(fields[2]); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids, ok
}
