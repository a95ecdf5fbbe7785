package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/tool"
)

// DefaultConnectTimeout bounds connecting to and discovering a server that
// sets no timeout of its own: Gemini CLI 0.61's 10-minute request
// timeout, so that a first-run `npx` server downloading its package is
// not dropped for the session. A server's "timeout" setting, when
// present, is used instead; Options.ConnectTimeout (the mcp.startTimeout
// setting) changes the default.
const DefaultConnectTimeout = 10 * time.Minute

// Options configure a Manager. Only Servers is needed; the zero value of
// every other field is a sensible default.
type Options struct {
	// Servers are the configured servers (see ParseServers).
	Servers []*ServerConfig
	// Filter keeps servers out by name (mcp.allowed, mcp.excluded,
	// --allowed-mcp-server-names).
	Filter Filter
	// FolderTrusted reports whether the workspace is trusted. In an
	// untrusted folder no server runs (Gemini CLI refuses to start any,
	// stdio servers above all), and trust: true does not apply.
	FolderTrusted bool

	// ClientName and ClientVersion identify Castor to servers; the defaults
	// are "castor" and "dev".
	ClientName, ClientVersion string
	// WorkDir is the working directory of stdio servers that set no cwd;
	// "" means the current directory.
	WorkDir string
	// Roots are the workspace directories offered to servers that ask
	// (roots/list).
	Roots []string
	// Environ is the environment stdio servers start from, before
	// redaction of secrets; nil means os.Environ().
	Environ []string
	// EnvAllowed and EnvBlocked are variable names always passed to, or
	// always withheld from, stdio servers.
	EnvAllowed, EnvBlocked []string
	// HTTPClient is used for remote servers; nil means http.DefaultClient.
	HTTPClient *http.Client

	// ConnectTimeout bounds the connection and discovery of servers that
	// set no timeout; zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Reserved reports names already taken by other tools (the built-ins);
	// an MCP tool whose name is reserved is exposed under its qualified
	// name.
	Reserved func(name string) bool
	// Debug receives debug lines: servers' stderr, skipped tools,
	// reconnections. nil means the standard logger, which the castor
	// command shows only with --debug.
	Debug func(string)
	// OnToolsChanged, if set, is called with the full tool list when a
	// server's tools change after Start (a list_changed notification or a
	// reconnect that brought new tools).
	OnToolsChanged func([]tool.Tool)
	// OnPromptsChanged, if set, is called when a server's prompts may have
	// changed after Start (a prompts/list_changed notification, or a
	// reconnect), so that the commands made from them (Commands) can be
	// made again.
	OnPromptsChanged func()
	// OutputLimit cuts a tool result that is a single text longer than
	// this many characters (tools.truncateToolOutputThreshold), saving it
	// whole under OutputDir, as Gemini CLI does; 0 keeps results whole.
	OutputLimit int
	OutputDir   string
	// MaxMessageBytes bounds one message from a remote (HTTP or SSE)
	// server, applied while it is read: the text of a larger tool result
	// is streamed to a file under OutputDir and the call gets the
	// truncated output naming it. 0 means MaxMessageBytes.
	MaxMessageBytes int

	// OAuth configures authorization for remote servers; nil disables the
	// browser flow but still uses tokens stored by Gemini CLI or Castor.
	OAuth *OAuthOptions

	// Elicit answers servers' questions to the user (elicitation/create,
	// see ElicitRequest); nil declines every question, noting it in the
	// debug log.
	Elicit ElicitFunc
}

// Manager owns the connections to the configured MCP servers. It is safe
// for concurrent use.
type Manager struct {
	clientName, clientVersion string
	workDir                   string
	roots                     []string
	environ                   func() []string
	envAllowed, envBlocked    []string
	httpClient                *http.Client
	connectTimeout            time.Duration
	reserved                  func(string) bool
	debug                     func(string)
	onChange                  func([]tool.Tool)
	onPromptsChanged          func()
	outputLimit               int
	outputDir                 string
	maxMessageBytes           int
	oauth                     *OAuthOptions
	elicit                    ElicitFunc
	slog                      *slog.Logger

	servers []*server // sorted by name
	byName  map[string]*server

	mu      sync.Mutex
	started bool
	bridged map[string]*Tool // key: server + "\x00" + server tool name
	order   []string         // bridged keys in declaration order
	res     []tool.Tool      // list_mcp_resources, read_mcp_resource
}

// maxMessage is the bound on one message from a remote server.
func (m *Manager) maxMessage() int {
	if m.maxMessageBytes > 0 {
		return m.maxMessageBytes
	}
	return MaxMessageBytes
}

// New returns a manager for opts.Servers. Nothing is started until Start.
func New(opts Options) *Manager {
	m := &Manager{
		clientName:      opts.ClientName,
		clientVersion:   opts.ClientVersion,
		workDir:         opts.WorkDir,
		roots:           opts.Roots,
		envAllowed:      opts.EnvAllowed,
		envBlocked:      opts.EnvBlocked,
		httpClient:      opts.HTTPClient,
		connectTimeout:  opts.ConnectTimeout,
		reserved:        opts.Reserved,
		debug:           opts.Debug,
		onChange:        opts.OnToolsChanged,
		outputLimit:     opts.OutputLimit,
		outputDir:       opts.OutputDir,
		maxMessageBytes: opts.MaxMessageBytes,
		oauth:           opts.OAuth,
		elicit:          opts.Elicit,
		byName:          map[string]*server{},
		bridged:         map[string]*Tool{},
	}
	m.onPromptsChanged = opts.OnPromptsChanged
	if m.clientName == "" {
		m.clientName = "castor"
	}
	if m.clientVersion == "" {
		m.clientVersion = "dev"
	}
	if m.connectTimeout <= 0 {
		m.connectTimeout = DefaultConnectTimeout
	}
	if m.reserved == nil {
		m.reserved = func(string) bool { return false }
	}
	if m.debug == nil {
		m.debug = func(s string) { log.Print(s) }
	}
	m.environ = os.Environ
	if opts.Environ != nil {
		env := append([]string(nil), opts.Environ...)
		m.environ = func() []string { return env }
	}
	// The SDK logs protocol oddities through slog; route them to the debug
	// log rather than the process's stderr.
	m.slog = slog.New(slog.NewTextHandler(debugWriter{m}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m.res = []tool.Tool{&listResourcesTool{m: m}, &readResourceTool{m: m}}

	cfgs := append([]*ServerConfig(nil), opts.Servers...)
	sort.SliceStable(cfgs, func(i, j int) bool { return cfgs[i].Name < cfgs[j].Name })
	for _, c := range cfgs {
		if c == nil || m.byName[c.Name] != nil {
			continue
		}
		s := &server{m: m, cfg: c, status: StatusDisconnected}
		if blocked, why := opts.Filter.Blocked(c.Name); blocked {
			s.status, s.reason = StatusBlocked, why
		} else if !opts.FolderTrusted {
			s.status = StatusDisabled
			if c.Command != "" {
				s.reason = fmt.Sprintf("MCP server '%s' uses stdio transport but current folder is not trusted. Use 'gemini trust' to enable it.", c.Name)
			} else {
				s.reason = "MCP servers are disabled because this folder is not trusted."
			}
			// trust: true means nothing in an untrusted folder.
			c2 := *c
			c2.Trust = false
			s.cfg = &c2
		}
		m.servers = append(m.servers, s)
		m.byName[c.Name] = s
	}
	return m
}

// Start connects to every runnable server concurrently and discovers its
// tools, prompts and resources, each within its connect timeout. It
// returns when every server is connected or has failed; failures are
// recorded in the servers' statuses, never returned, so that one bad server
// costs only itself. Cancelling ctx abandons the servers still connecting.
func (m *Manager) Start(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range m.servers {
		if s.status != StatusDisconnected {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					s.setStatus(StatusError, fmt.Sprintf("internal error: %v", p))
				}
			}()
			if err := s.connect(ctx); err != nil {
				m.debugf("Error connecting to MCP server '%s': %v", s.cfg.Name, err)
			}
		}()
	}
	wg.Wait()
	m.mu.Lock()
	m.started = true
	m.rebuildLocked(true)
	m.mu.Unlock()
}

// Start is New followed by Manager.Start.
func Start(ctx context.Context, opts Options) *Manager {
	m := New(opts)
	m.Start(ctx)
	return m
}

// Statuses returns the state of every configured server, sorted by name.
func (m *Manager) Statuses() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.snapshot())
	}
	return out
}

// Status returns the state of the server called name.
func (m *Manager) Status(name string) (ServerStatus, bool) {
	s, ok := m.byName[name]
	if !ok {
		return ServerStatus{}, false
	}
	return s.snapshot(), true
}

// Tools returns the bridged tools of the connected servers, server by
// server (sorted by server name) in each server's order, followed by
// list_mcp_resources and read_mcp_resource when a server offers resources.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.toolsLocked()
}

func (m *Manager) toolsLocked() []tool.Tool {
	out := make([]tool.Tool, 0, len(m.order)+2)
	for _, k := range m.order {
		out = append(out, m.bridged[k])
	}
	for _, s := range m.servers {
		s.mu.Lock()
		has := s.caps != nil && s.caps.Resources != nil && s.everConnected
		s.mu.Unlock()
		if has {
			out = append(out, m.res...)
			break
		}
	}
	return out
}

// Close ends every session and stops every stdio server.
func (m *Manager) Close() error {
	var wg sync.WaitGroup
	errs := make([]error, len(m.servers))
	for i, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.close(); err != nil {
				errs[i] = fmt.Errorf("MCP server '%s': %w", s.cfg.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// serverChanged is called when a server's lists changed.
func (m *Manager) serverChanged(*server) {
	m.mu.Lock()
	if !m.started {
		// Start names everything at once when all servers are in, so that
		// names do not depend on which server answered first.
		m.mu.Unlock()
		return
	}
	changed := m.rebuildLocked(false)
	var tools []tool.Tool
	if changed && m.onChange != nil {
		tools = m.toolsLocked()
	}
	m.mu.Unlock()
	if tools != nil {
		m.onChange(tools)
	}
}

// promptsChanged tells OnPromptsChanged that a server's prompts were
// listed again after Start; before, Start's caller reads them all.
func (m *Manager) promptsChanged() {
	m.mu.Lock()
	started := m.started
	m.mu.Unlock()
	if started && m.onPromptsChanged != nil {
		m.onPromptsChanged()
	}
}

// candidate is a server tool that passed the filters, before naming.
type candidate struct {
	s      *server
	def    *sdk.Tool
	schema map[string]any
	key    string
}

// rebuildLocked brings the bridged tools in line with the servers' lists.
// With fresh set (at the end of Start) every name is computed from
// scratch; afterwards a tool keeps the name it was given, and only new
// tools are named, so that a registry holding the old names stays right.
// It reports whether the set of tools changed.
func (m *Manager) rebuildLocked(fresh bool) bool {
	var cands []candidate
	for _, s := range m.servers {
		s.mu.Lock()
		defs := s.tools
		live := s.everConnected
		s.mu.Unlock()
		if !live {
			continue
		}
		for _, d := range defs {
			if d == nil || d.Name == "" {
				m.debugf("Discovered a function declaration without a name from MCP server '%s'. Skipping.", s.cfg.Name)
				continue
			}
			if !s.cfg.toolEnabled(d.Name) {
				continue
			}
			schema := normalizeSchema(d.InputSchema)
			if schema == nil {
				schema = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			if !HasValidTypes(schema) {
				// Gemini CLI 0.61 no longer skips such tools: the schema
				// is sent as parametersJsonSchema, which needs no types.
				m.debugf("Tool '%s' from MCP server '%s' has missing types in its parameter schema; declared as is.", d.Name, s.cfg.Name)
			}
			if HasCycle(schema) {
				m.debugf("Tool '%s' from MCP server '%s' has a cyclic parameter schema; the model API may reject it.", d.Name, s.cfg.Name)
			}
			cands = append(cands, candidate{s: s, def: d, schema: schema, key: s.cfg.Name + "\x00" + d.Name})
		}
	}

	count := map[string]int{}
	for _, c := range cands {
		count[SanitizeName(c.def.Name)]++
	}
	used := map[string]bool{}
	if !fresh {
		// Existing tools keep their names.
		for _, c := range cands {
			if t := m.bridged[c.key]; t != nil {
				used[t.name] = true
			}
		}
	}
	oldOrder := m.order
	newBridged := map[string]*Tool{}
	var order []string
	for _, c := range cands {
		t := m.bridged[c.key]
		if t != nil && !fresh {
			t.update(c.def, c.schema)
			newBridged[c.key] = t
			order = append(order, c.key)
			continue
		}
		name := SanitizeName(c.def.Name)
		if count[name] > 1 || m.reserved(name) || used[name] {
			name = QualifiedName(c.s.cfg.Name, c.def.Name)
		}
		if used[name] || m.reserved(name) {
			m.debugf("Skipping tool '%s' from MCP server '%s': its name %q clashes with another tool.", c.def.Name, c.s.cfg.Name, name)
			continue
		}
		used[name] = true
		if t == nil || t.name != name {
			t = newTool(c.s, c.def.Name, name)
		}
		t.update(c.def, c.schema)
		newBridged[c.key] = t
		order = append(order, c.key)
	}
	changed := len(order) != len(oldOrder)
	for i := 0; !changed && i < len(order); i++ {
		changed = order[i] != oldOrder[i] || m.bridged[order[i]] != newBridged[order[i]]
	}
	m.bridged, m.order = newBridged, order
	return changed
}

func (m *Manager) debugf(format string, args ...any) {
	m.debug(fmt.Sprintf(format, args...))
}

// debugWriter feeds the SDK's slog output to the debug log.
type debugWriter struct{ m *Manager }

func (w debugWriter) Write(p []byte) (int, error) {
	w.m.debug("[MCP SDK] " + string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

var _ io.Writer = debugWriter{}
