package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// startTimeout bounds a server's start and initialize handshake.
const startTimeout = time.Minute

// DefaultWait is how long an edit waits for a server's diagnostics when
// lsp.diagnosticsTimeout does not say.
const DefaultWait = 3 * time.Second

// Options configure a Manager.
type Options struct {
	// Servers are the candidates (Defaults, or ParseServers' result).
	Servers []ServerConfig
	// Workspace is the session's first workspace folder.
	Workspace string
	// Environ is the servers' environment (nil: the process's); its PATH
	// finds their commands.
	Environ []string
	// ServerEnviron, when set, is the servers' environment instead,
	// asked for once, when the first server starts; Environ's PATH then
	// only decides which servers are offered. A session's environment for
	// its servers is redacted, which costs ~1 % of a headless run that
	// starts none.
	ServerEnviron func() []string
	// Wait bounds how long an edit waits for diagnostics (0: DefaultWait).
	Wait time.Duration
	// Report tells the user of a server that failed to start or crashed,
	// once per event (nil: nobody).
	Report func(string)
}

// Manager starts language servers lazily, one per server and root
// folder, as files of their types are touched, and stops them all at
// Close.
type Manager struct {
	opts    Options
	environ func() []string // the servers' environment (Options.ServerEnviron)
	servers []ServerConfig

	mu        sync.Mutex
	running   map[string]*server
	baselines map[string]baseline
	closed    bool

	// starts are the servers being started; Close cancels them
	// (stopStarts) and waits, so no server outlives the session.
	starts     sync.WaitGroup
	startCtx   context.Context
	stopStarts context.CancelFunc
}

// baseline is what a file's server reported before an edit.
type baseline struct {
	diags []Diagnostic
	known bool
	// deadline ends the edit's wait, before and after the write alike.
	deadline time.Time
}

// server is one (configuration, root) pair and its current client.
type server struct {
	cfg  ServerConfig
	root string
	// ready is closed once the current start attempt has finished.
	ready    chan struct{}
	client   *Client
	err      error
	crashes  int
	restarts int
	state    string
}

// Server states in Status.
const (
	StateIdle     = "idle"
	StateStarting = "starting"
	StateRunning  = "running"
	StateFailed   = "failed"
	StateCrashed  = "crashed"
)

// New returns a manager of the servers available to the workspace: those
// the settings name, and defaults whose program is on PATH and whose
// root marker the workspace has. It returns nil when there is none, so
// that a session without language servers declares nothing more.
func New(o Options) *Manager {
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	var avail []ServerConfig
	for _, s := range o.Servers {
		if s.Configured || (lookPath(s.Command, o.Environ) != "" && s.inWorkspace(o.Workspace)) {
			avail = append(avail, s)
		}
	}
	if len(avail) == 0 {
		return nil
	}
	environ := func() []string { return o.Environ }
	if o.ServerEnviron != nil {
		environ = sync.OnceValue(o.ServerEnviron)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: o, environ: environ, servers: avail, running: map[string]*server{}, baselines: map[string]baseline{}, startCtx: ctx, stopStarts: cancel}
}

// lookPath finds command on the PATH of environ ("" when it is not
// there); a command with a slash is taken as is if it exists.
func lookPath(command string, environ []string) string {
	if strings.ContainsRune(command, filepath.Separator) {
		if _, err := os.Stat(command); err == nil {
			return command
		}
		return ""
	}
	path := ""
	for _, kv := range environ {
		// Windows spells it Path.
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "PATH") {
			path = v
		}
	}
	// Windows finds programs by extension, not by mode bits.
	exts := []string{""}
	if runtime.GOOS == "windows" {
		exts = []string{"", ".exe", ".cmd", ".bat", ".com"}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		for _, ext := range exts {
			p := filepath.Join(dir, command+ext)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && (ext != "" || fi.Mode()&0o111 != 0) {
				return p
			}
		}
	}
	return ""
}

// Servers are the configurations this manager may start.
func (m *Manager) Servers() []ServerConfig { return m.servers }

// Workspace is the folder the manager serves.
func (m *Manager) Workspace() string { return m.opts.Workspace }

// configFor is the server configuration serving path, if any.
func (m *Manager) configFor(path string) (ServerConfig, bool) {
	for _, s := range m.servers {
		if s.serves(path) {
			return s, true
		}
	}
	return ServerConfig{}, false
}

// Handles reports whether a server is configured for path's file type.
func (m *Manager) Handles(path string) bool {
	if m == nil {
		return false
	}
	_, ok := m.configFor(path)
	return ok
}

// errClosing is the answer for a file once the session is closing.
var errClosing = errors.New("the session is closing")

// ErrNoServer is returned for a file no language server serves.
var ErrNoServer = errors.New("no language server is configured for this file type")

// Client returns the running server for path, starting it on the first
// file of its type and root; it waits until the server is ready or ctx
// ends.
func (m *Manager) Client(ctx context.Context, path string) (*Client, error) {
	cfg, ok := m.configFor(path)
	if !ok {
		return nil, ErrNoServer
	}
	root := cfg.rootFor(path, m.opts.Workspace)
	key := cfg.Name + "\x00" + root
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errClosing
	}
	s := m.running[key]
	if s == nil {
		s = &server{cfg: cfg, root: root}
		m.running[key] = s
		m.startLocked(s)
	}
	ready := s.ready
	m.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("language server %s is still starting", cfg.Name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.client == nil {
		return nil, s.err
	}
	return s.client, nil
}

// startLocked starts s in the background.
func (m *Manager) startLocked(s *server) {
	s.ready = make(chan struct{})
	s.state = StateStarting
	s.client, s.err = nil, nil
	ready := s.ready
	m.starts.Add(1)
	go func() {
		defer m.starts.Done()
		ctx, cancel := context.WithTimeout(m.startCtx, startTimeout)
		defer cancel()
		var c *Client
		var err error
		env := m.environ()
		if lookPath(s.cfg.Command, env) == "" {
			err = fmt.Errorf("%s: %w", s.cfg.Command, exec.ErrNotFound)
		} else {
			c, err = start(ctx, s.cfg, s.root, env)
		}
		m.mu.Lock()
		if m.closed {
			// The session ended meanwhile: no server, and no report of
			// the handshake Close cut short.
			s.err = errClosing
			m.mu.Unlock()
			if c != nil {
				c.Close()
			}
			close(ready)
			return
		}
		if err != nil {
			s.state, s.err = StateFailed, fmt.Errorf("language server %s (%s) failed to start in %s: %v", s.cfg.Name, s.cfg.describe(), s.root, err)
			m.mu.Unlock()
			m.report(s.err.Error() + "; its files get no diagnostics this session")
			close(ready)
			return
		}
		s.client, s.state = c, StateRunning
		m.mu.Unlock()
		close(ready)
		go m.watch(s, c)
	}()
}

// watch restarts a server that exits on its own, once; a second crash
// leaves it stopped.
func (m *Manager) watch(s *server, c *Client) {
	<-c.done
	if c.closedByUs() {
		return
	}
	m.mu.Lock()
	if m.closed || s.client != c {
		m.mu.Unlock()
		return
	}
	s.crashes++
	why := c.exitError()
	// The restarted server knows nothing of the old one's documents.
	for p := range m.baselines {
		if cfg, ok := m.configFor(p); ok && cfg.Name == s.cfg.Name {
			delete(m.baselines, p)
		}
	}
	if s.restarts == 0 {
		s.restarts++
		m.startLocked(s)
		m.mu.Unlock()
		m.report(fmt.Sprintf("language server %s (%s) exited unexpectedly: %v; restarted it", s.cfg.Name, s.cfg.describe(), why))
		return
	}
	s.state, s.client = StateCrashed, nil
	s.err = fmt.Errorf("language server %s (%s) exited unexpectedly again: %v", s.cfg.Name, s.cfg.describe(), why)
	m.mu.Unlock()
	m.report(s.err.Error() + "; it stays stopped for this session")
}

func (m *Manager) report(msg string) {
	if m.opts.Report != nil {
		m.opts.Report(msg)
	}
}

// Close stops every server.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	m.closed = true
	var clients []*Client
	for _, s := range m.running {
		if s.client != nil {
			clients = append(clients, s.client)
		}
	}
	m.mu.Unlock()
	// A server still starting (its first file was just read) stops its
	// handshake and closes itself; waiting for it keeps it from writing
	// in the user's folders after the session ended.
	m.stopStarts()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(c.Close)
	}
	wg.Wait()
	m.starts.Wait()
	return nil
}

// Status is one server's state, for castor lsp status and /lsp.
type Status struct {
	Name, Command, Root, State string
	Extensions                 []string
	Pid                        int
	// Errors and Warnings count the diagnostics it last published.
	Errors, Warnings int
	Restarts         int
	// MemoryKB is the resident memory of its process group (Linux; 0
	// elsewhere).
	MemoryKB int
	Err      string
	// Probed is set by Probe: the server opened no file, so it has no
	// diagnostics to count.
	Probed bool
}

// Status lists the servers: each started (server, root), then the
// configurations not started yet.
func (m *Manager) Status() []Status {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	started := map[string]bool{}
	for _, s := range m.running {
		started[s.cfg.Name] = true
		st := Status{Name: s.cfg.Name, Command: s.cfg.describe(), Root: s.root, State: s.state, Extensions: s.cfg.Extensions, Restarts: s.restarts}
		if s.err != nil {
			st.Err = s.err.Error()
		}
		if c := s.client; c != nil {
			st.Pid = c.Pid()
			st.MemoryKB = groupMemoryKB(c)
			for _, ds := range c.Diagnostics() {
				for _, d := range ds {
					switch d.Severity {
					case SeverityError, 0:
						st.Errors++
					case SeverityWarning:
						st.Warnings++
					}
				}
			}
		}
		out = append(out, st)
	}
	for _, cfg := range m.servers {
		if !started[cfg.Name] {
			out = append(out, Status{Name: cfg.Name, Command: cfg.describe(), State: StateIdle, Extensions: cfg.Extensions})
		}
	}
	slices.SortStableFunc(out, func(a, b Status) int { return strings.Compare(a.Name+a.Root, b.Name+b.Root) })
	return out
}

// groupMemoryKB sums VmRSS over the server's process group.
func groupMemoryKB(c *Client) int {
	total := 0
	pids := c.group.PIDs()
	if len(pids) == 0 {
		pids = []int{c.Pid()}
	}
	for _, pid := range pids {
		total += rssKB(pid)
	}
	return total
}

// rssKB is a process's resident memory from /proc (0 where there is no
// /proc).
func rssKB(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// FormatStatus is the status as lines for a terminal.
func FormatStatus(sts []Status) string {
	if len(sts) == 0 {
		return "No language servers are configured or available for this workspace."
	}
	var b strings.Builder
	for _, s := range sts {
		fmt.Fprintf(&b, "%s (%s): %s", s.Name, s.Command, s.State)
		if s.State == StateIdle {
			fmt.Fprintf(&b, ", starts on the first %s file", strings.Join(s.Extensions, " "))
		}
		if s.Root != "" {
			fmt.Fprintf(&b, ", root %s", s.Root)
		}
		if s.Pid != 0 {
			fmt.Fprintf(&b, ", pid %d", s.Pid)
		}
		if s.MemoryKB != 0 {
			fmt.Fprintf(&b, ", %.1f MB", float64(s.MemoryKB)/1024)
		}
		if s.State == StateRunning && !s.Probed {
			fmt.Fprintf(&b, ", %d errors, %d warnings", s.Errors, s.Warnings)
		}
		if s.Restarts > 0 {
			fmt.Fprintf(&b, ", restarted %d time(s)", s.Restarts)
		}
		if s.Err != "" {
			fmt.Fprintf(&b, "\n  %s", s.Err)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// Probe starts every server available to the workspace in its root, to
// show what works: their status, and why each other candidate of
// o.Servers is not offered. The servers are stopped before it returns.
func Probe(ctx context.Context, o Options) (sts []Status, skipped []string) {
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	for _, s := range o.Servers {
		switch {
		case s.Configured:
		case lookPath(s.Command, o.Environ) == "":
			skipped = append(skipped, fmt.Sprintf("%s: %s is not on PATH", s.Name, s.Command))
		case !s.inWorkspace(o.Workspace):
			skipped = append(skipped, fmt.Sprintf("%s: no %s in this workspace", s.Name, strings.Join(s.RootMarkers, ", ")))
		}
	}
	m := New(o)
	if m == nil {
		return nil, skipped
	}
	defer m.Close()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		probe := filepath.Join(o.Workspace, "castor-probe"+s.Extensions[0])
		wg.Go(func() { _, _ = m.Client(ctx, probe) })
	}
	wg.Wait()
	sts = m.Status()
	for i := range sts {
		sts[i].Probed = true
	}
	return sts, skipped
}
