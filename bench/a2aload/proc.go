package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a process the load generator started (fakegemini or castor).
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	// lines receives the first lines of stdout (the URL announcements).
	lines chan string
}

// startChild starts bin with args and env in dir; stdout and stderr go to
// logDir/<name>.out and .err, and the first stdout lines are also sent on
// lines. The child gets SIGKILL if the load generator dies.
func startChild(name, bin string, args, env []string, dir, logDir string) (*child, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	errf, err := os.Create(filepath.Join(logDir, name+".err"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errf
	outf, err := os.Create(filepath.Join(logDir, name+".out"))
	if err != nil {
		errf.Close()
		return nil, err
	}
	pr, err := cmd.StdoutPipe()
	if err != nil {
		errf.Close()
		outf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		errf.Close()
		outf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{}), lines: make(chan string, 16)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			fmt.Fprintln(outf, sc.Text())
			select {
			case c.lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(outf, pr)
	}()
	go func() {
		<-copied
		c.err = cmd.Wait()
		errf.Close()
		outf.Close()
		close(c.lines)
		close(c.done)
	}()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// waitLine returns the first stdout line that starts with prefix.
func (c *child) waitLine(ctx context.Context, prefix string) (string, error) {
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return "", fmt.Errorf("%s exited before printing %q: %v", c.name, prefix, c.err)
			}
			if strings.HasPrefix(l, prefix) {
				return l, nil
			}
		case <-ctx.Done():
			return "", fmt.Errorf("%s: no %q line: %w", c.name, prefix, ctx.Err())
		}
	}
}

// stop sends SIGTERM, then SIGKILL after grace. It reports an exit that
// was not caused by the signals as an error.
func (c *child) stop(grace time.Duration) error {
	select {
	case <-c.done:
		return fmt.Errorf("%s had already exited: %v", c.name, c.err)
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return nil
	case <-time.After(grace):
	}
	_ = c.cmd.Process.Kill()
	<-c.done
	return fmt.Errorf("%s did not stop within %s of SIGTERM; killed", c.name, grace)
}

// memInfo is a process's memory as /proc shows it, in KiB.
type memInfo struct {
	RSS, HWM, Anon, File int64
}

func readMem(pid int) (memInfo, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memInfo{}, err
	}
	var m memInfo
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			m.RSS = n
		case "VmHWM":
			m.HWM = n
		case "RssAnon":
			m.Anon = n
		case "RssFile":
			m.File = n
		}
	}
	if m.RSS == 0 {
		return m, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
	}
	return m, nil
}

// cpuTime returns the CPU time a process has used: the sum of its threads'
// run time from /proc/<pid>/task/*/schedstat (nanoseconds), or utime+stime
// from /proc/<pid>/stat (clock ticks) when schedstat is missing.
func cpuTime(pid int) time.Duration {
	dirs, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	found := false
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			ns += n
			found = true
		}
	}
	if found {
		return time.Duration(ns)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	// After the command: state(0) ... utime(11) stime(12).
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}
