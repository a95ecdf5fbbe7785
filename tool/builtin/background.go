package builtin

// Background shell processes (Gemini CLI 0.61's is_background, with
// list_background_processes and read_background_output): a command left
// running writes its output to a log file the model can read back, and
// the session keeps its status until the session ends, when whatever
// still runs is stopped.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/tool"
)

// Gemini CLI's limits for background processes.
const (
	maxBackgroundHistory = 100       // processes remembered per session
	maxBackgroundRead    = 64 * 1024 // bytes read from the end of a log
	defaultTailLines     = 100
)

// Background holds one session's background processes.
type Background struct {
	// LogDir is where their logs go (Gemini CLI's
	// ~/.gemini/tmp/background-processes).
	LogDir string

	mu     sync.Mutex
	procs  map[int]*bgProc
	order  []int
	closed bool
}

// NewBackground returns an empty set of background processes logging
// under logDir.
func NewBackground(logDir string) *Background {
	return &Background{LogDir: logDir, procs: map[int]*bgProc{}}
}

type bgProc struct {
	pid     int
	command string
	log     string
	group   *proc.Group
	done    chan struct{} // closed once the shell exited
	// Set when done is closed.
	exitCode *int
	signal   int
}

// run starts req in the background: the command runs until it exits, is
// killed, or the session ends. A command that ends within the delay is
// reported as a foreground one is.
func (b *Background) run(ctx context.Context, req shellRequest, command string) shellResult {
	one := 1
	if err := os.MkdirAll(b.LogDir, 0o700); err != nil {
		return shellResult{err: err, exitCode: &one}
	}
	f, err := os.CreateTemp(b.LogDir, "background-start-*.log")
	if err != nil {
		return shellResult{err: err, exitCode: &one}
	}
	cmd := exec.Command("bash", "-c", req.command)
	cmd.Dir, cmd.Env = req.dir, req.env
	// The log file itself is the output: it fills however long the
	// process runs, with nobody reading a pipe.
	cmd.Stdout, cmd.Stderr = f, f
	group := proc.New(cmd, proc.Options{Grace: killGrace, Tether: true})
	if err := group.Start(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return shellResult{err: err, exitCode: &one}
	}
	f.Close()
	p := &bgProc{pid: group.Pid(), command: command, log: f.Name(), group: group, done: make(chan struct{})}
	named := filepath.Join(b.LogDir, fmt.Sprintf("background-%d.log", p.pid))
	if os.Rename(f.Name(), named) == nil {
		p.log = named
	}
	go func() {
		_ = cmd.Wait()
		if st := cmd.ProcessState; st != nil {
			if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				p.signal = int(ws.Signal())
			} else {
				code := st.ExitCode()
				p.exitCode = &code
			}
		}
		close(p.done)
	}()
	delay := req.bgDelay
	if delay <= 0 {
		delay = backgroundDelay
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-p.done:
		// Over before it was moved to the background: a plain result.
		out, _ := os.ReadFile(p.log)
		os.Remove(p.log)
		group.Release()
		return shellResult{pid: p.pid, output: string(out), exitCode: p.exitCode, signal: p.signal}
	case <-ctx.Done():
		group.Stop()
		<-p.done
		out, _ := os.ReadFile(p.log)
		os.Remove(p.log)
		return shellResult{pid: p.pid, output: string(out), aborted: true}
	case <-timer.C:
	}
	b.add(p)
	return shellResult{pid: p.pid, backgrounded: true}
}

func (b *Background) add(p *bgProc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		go p.group.Stop()
	}
	if len(b.order) >= maxBackgroundHistory {
		delete(b.procs, b.order[0])
		b.order = b.order[1:]
	}
	b.procs[p.pid] = p
	b.order = append(b.order, p.pid)
}

// Close stops every background process still running and waits for
// them, so that none outlives the session that started it.
func (b *Background) Close() error {
	b.mu.Lock()
	b.closed = true
	procs := make([]*bgProc, 0, len(b.procs))
	for _, pid := range b.order {
		procs = append(procs, b.procs[pid])
	}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		select {
		case <-p.done:
			continue
		default:
		}
		wg.Add(1)
		go func() { defer wg.Done(); p.group.Stop(); <-p.done }()
	}
	wg.Wait()
	return nil
}

// Adopt makes a command already running one of the session's background
// processes (the terminal's "!" command moved there with Ctrl+B, as in
// Gemini CLI 0.61): before, what it printed so far, and what it prints
// from now on (written to log) go to its log, which the model can read;
// it is stopped with the session. The caller, who waits for the command,
// calls finish once it has ended, with its exit code (nil when a signal
// ended it) and signal.
func (b *Background) Adopt(group *proc.Group, command string, before []byte) (log io.Writer, finish func(exitCode *int, signal int), err error) {
	if err := os.MkdirAll(b.LogDir, 0o700); err != nil {
		return nil, nil, err
	}
	pid := group.Pid()
	f, err := os.OpenFile(filepath.Join(b.LogDir, fmt.Sprintf("background-%d.log", pid)), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.Write(before); err != nil {
		f.Close()
		return nil, nil, err
	}
	p := &bgProc{pid: pid, command: command, log: f.Name(), group: group, done: make(chan struct{})}
	var once sync.Once
	finish = func(exitCode *int, signal int) {
		once.Do(func() {
			f.Close()
			p.exitCode, p.signal = exitCode, signal
			close(p.done)
		})
	}
	b.add(p)
	return f, finish, nil
}

// BackgroundProcess is one background process as a face lists it.
type BackgroundProcess struct {
	PID      int
	Command  string
	Running  bool
	ExitCode *int
	Signal   int
	Log      string
}

// List returns the session's background processes, oldest first.
func (b *Background) List() []BackgroundProcess {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]BackgroundProcess, 0, len(b.order))
	for _, pid := range b.order {
		p := b.procs[pid]
		bp := BackgroundProcess{PID: pid, Command: p.command, Log: p.log, Running: true}
		select {
		case <-p.done:
			bp.Running, bp.ExitCode, bp.Signal = false, p.exitCode, p.signal
		default:
		}
		out = append(out, bp)
	}
	return out
}

// Kill stops the background process pid and its group, and waits for
// it; false when the session has no such process.
func (b *Background) Kill(pid int) bool {
	b.mu.Lock()
	p := b.procs[pid]
	b.mu.Unlock()
	if p == nil {
		return false
	}
	p.group.Stop()
	<-p.done
	return true
}

type listBackgroundTool struct{ env *Env }

// NewListBackgroundProcesses returns list_background_processes.
func NewListBackgroundProcesses(env *Env) tool.Tool { return listBackgroundTool{env: env} }

func (listBackgroundTool) Name() string        { return "list_background_processes" }
func (listBackgroundTool) DisplayName() string { return "List Background Processes" }
func (listBackgroundTool) Kind() tool.Kind     { return tool.KindRead }
func (listBackgroundTool) Description() string {
	return "Lists all active and recently completed background shell processes orchestrating by the agent."
}
func (listBackgroundTool) Schema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}
func (t listBackgroundTool) Build(map[string]any) (tool.Call, error) {
	return listBackgroundCall(t), nil
}

type listBackgroundCall struct{ env *Env }

func (listBackgroundCall) Describe() string {
	return "Lists all active and recently completed background processes for the current session."
}
func (listBackgroundCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "List Background Processes", Prompt: "List the background processes of this session."}, nil
}

// Execute lists the processes in Gemini CLI's words.
func (c listBackgroundCall) Execute(context.Context, func(string)) *tool.Result {
	var procs []BackgroundProcess
	if c.env != nil && c.env.Background != nil {
		procs = c.env.Background.List()
	}
	if len(procs) == 0 {
		return tool.Text("No background processes found.")
	}
	lines := make([]string, len(procs))
	for i, p := range procs {
		status := "RUNNING"
		if !p.Running {
			status = "EXITED"
		}
		l := fmt.Sprintf("- [PID %d] %s: `%s`", p.PID, status, p.Command)
		if p.ExitCode != nil {
			l += fmt.Sprintf(" (Exit Code: %d)", *p.ExitCode)
		}
		if p.Signal != 0 {
			l += fmt.Sprintf(" (Signal: %d)", p.Signal)
		}
		lines[i] = l
	}
	return tool.Text(strings.Join(lines, "\n"))
}

type readBackgroundTool struct{ env *Env }

// NewReadBackgroundOutput returns read_background_output.
func NewReadBackgroundOutput(env *Env) tool.Tool { return readBackgroundTool{env: env} }

func (readBackgroundTool) Name() string        { return "read_background_output" }
func (readBackgroundTool) DisplayName() string { return "Read Background Output" }
func (readBackgroundTool) Kind() tool.Kind     { return tool.KindRead }
func (readBackgroundTool) Description() string {
	return "Reads the output log of a background shell process. Support reading tail snapshot."
}
func (readBackgroundTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"pid": map[string]any{"type": "integer", "description": "The process ID (PID) of the background process to inspect."},
			"lines": map[string]any{"type": "integer", "minimum": 1,
				"description": "Optional. Number of lines to read from the end of the log. Defaults to 100."},
			"delay_ms": map[string]any{"type": "integer",
				"description": "Optional. Delay in milliseconds to wait before reading the output. Useful to allow the process to start and generate initial output."},
		},
		"required": []any{"pid"},
	}
}

func (t readBackgroundTool) Build(args map[string]any) (tool.Call, error) {
	c := &readBackgroundCall{env: t.env, lines: defaultTailLines}
	pid, _ := argNumber(args, "pid")
	c.pid = int(pid)
	if n, _ := argNumber(args, "lines"); n > 0 {
		c.lines = int(n)
	}
	ms, _ := argNumber(args, "delay_ms")
	c.delay = time.Duration(ms) * time.Millisecond
	return c, nil
}

type readBackgroundCall struct {
	env        *Env
	pid, lines int
	delay      time.Duration
}

func (c *readBackgroundCall) Describe() string {
	return fmt.Sprintf("Reading output for background process %d", c.pid)
}
func (c *readBackgroundCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "Read Background Output", Prompt: c.Describe()}, nil
}

// Execute reads the tail of the process's log, as Gemini CLI does.
func (c *readBackgroundCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	if c.delay > 0 {
		t := time.NewTimer(c.delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return tool.Fail(tool.ErrCancelled, "Reading the background output was cancelled.")
		}
	}
	var log string
	if c.env != nil && c.env.Background != nil {
		for _, p := range c.env.Background.List() {
			if p.PID == c.pid {
				log = p.Log
			}
		}
	}
	if log == "" {
		msg := fmt.Sprintf("Access denied. Background process ID %d not found in this session's history.", c.pid)
		return &tool.Result{LLMText: msg, Display: "Access denied.",
			Error: &tool.Error{Type: tool.ErrExecutionFailed, Message: fmt.Sprintf("Background process history lookup failed for PID %d", c.pid)}}
	}
	content, partial, err := readTail(log, maxBackgroundRead)
	if errors.Is(err, os.ErrNotExist) {
		return &tool.Result{LLMText: fmt.Sprintf("No output log found for process ID %d. It might not have produced output or was cleaned up.", c.pid),
			Display: fmt.Sprintf("No log found for PID %d", c.pid),
			Error:   &tool.Error{Type: tool.ErrExecutionFailed, Message: "Log file not found at " + log}}
	}
	if err != nil {
		return &tool.Result{LLMText: "Error reading background log: " + err.Error(), Display: "Failed to read log.",
			Error: &tool.Error{Type: tool.ErrExecutionFailed, Message: err.Error()}}
	}
	if content == "" {
		return tool.Text("Log is empty.")
	}
	lines := strings.Split(stripANSI(content), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if partial && len(lines) > 0 {
		lines = lines[1:] // the first line read is cut
	}
	header := "Full Log Output:\n"
	if c.lines < len(lines) {
		header = fmt.Sprintf("Showing last %d of %d lines:\n", c.lines, len(lines))
		lines = lines[len(lines)-c.lines:]
	}
	return tool.Text(header + strings.Join(lines, "\n"))
}

// readTail reads the last n bytes of a file; partial says whether it
// started past the beginning.
func readTail(path string, n int64) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	off := max(fi.Size()-n, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	return strings.ToValidUTF8(string(buf), "\uFFFD"), off > 0, nil
}
