package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/a2a/pgstore"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/a2asession"
	"github.com/castor-dev/castor/internal/httpguard"
	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/policy"
)

// a2aFlags are the a2a-server options; each defaults to the environment
// variable Gemini CLI's server reads, where there is one.
type a2aFlags struct {
	host, workspace, token, allowedRoot, store, storeDir, model string
	onDisconnect, maxApprovalMode                               string
	allowedHosts, allowedOrigins                                []string
	port                                                        int
	yolo, allowPrivatePush, memoryStore, debug, ignorePolicyErr bool
	maxTurns, maxQueued, memLimitMB                             int
	maxQueuedMessages                                           int
	turnTimeout, retention, bodyTimeout                         time.Duration
	// pgMaxConns and leaseTTL tune a postgres:// store (pgstore.Options).
	pgMaxConns int
	leaseTTL   time.Duration
	// settingStore is the a2a.store setting.
	settingStore string
}

// a2aStoreSettings reads the store settings (a2a.store,
// a2a.postgres.maxConns, a2a.postgres.leaseSeconds) the flags leave unset.
func a2aStoreSettings(f *a2aFlags, st *config.Settings) pgstore.Options {
	o := pgstore.Options{MaxConns: int32(f.pgMaxConns), LeaseTTL: f.leaseTTL}
	if st == nil {
		return o
	}
	f.settingStore, _ = st.GetString("a2a.store")
	if n, ok := st.GetNumber("a2a.postgres.maxConns"); ok && o.MaxConns == 0 && n > 0 {
		o.MaxConns = int32(n)
	}
	if n, ok := st.GetNumber("a2a.postgres.leaseSeconds"); ok && o.LeaseTTL == 0 && n > 0 {
		o.LeaseTTL = time.Duration(n * float64(time.Second))
	}
	return o
}

func envBool(k string) bool {
	b, _ := strconv.ParseBool(os.Getenv(k))
	return b
}

func newA2ACommand(ctx context.Context, stdio IO) *cobra.Command {
	var f a2aFlags
	port := 41242
	if v := os.Getenv("CODER_AGENT_PORT"); v != "" {
		if p, err := strconv.Atoi(v); err == nil {
			port = p
		}
	}
	c := &cobra.Command{
		Use:   "a2a-server",
		Short: "Serve the agent over A2A (Gemini CLI's a2a-server, with the development-tool extension)",
		Long: `Serve the agent over A2A (Gemini CLI's a2a-server, with the development-tool extension).

What a web page in a browser can send is refused: a Host that is not a name
of the server (421; --allowed-host adds names such as a reverse proxy's), a
request from another origin (403; --allowed-origin allows a page), and a
POST body that is not JSON (415).

A client's autoExecute asks for the yolo approval mode; it is granted at most
--max-approval-mode (default: default, so tool calls ask for approval), and
a capped task says so in its metadata (approvalModeCapped).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runA2A(ctx, &f, stdio)
		},
	}
	fl := c.Flags()
	fl.IntVar(&f.port, "port", port, "port to listen on (CODER_AGENT_PORT; 0 picks a free one)")
	fl.StringVar(&f.host, "host", "127.0.0.1", "address to listen on; anything but loopback needs an auth token")
	fl.StringVar(&f.workspace, "workspace", os.Getenv("CODER_AGENT_WORKSPACE_PATH"), "default workspace of tasks and commands (CODER_AGENT_WORKSPACE_PATH)")
	fl.StringVar(&f.token, "auth-token", os.Getenv("CODER_AGENT_AUTH_TOKEN"), "bearer token clients must send (CODER_AGENT_AUTH_TOKEN)")
	fl.StringVar(&f.allowedRoot, "allowed-root", os.Getenv("CODER_AGENT_ALLOWED_ROOT"), "directory every workspace must lie under (CODER_AGENT_ALLOWED_ROOT; default: home)")
	fl.StringVar(&f.store, "store", "", "URL of the task store: postgres://user@host/db (replicas sharing one database), file:///dir, mem://, gs://bucket[/prefix] or s3://bucket[/prefix] (default: the a2a.store setting, gs://$GCS_BUCKET_NAME when set, else file://~/.gemini/a2a)")
	fl.IntVar(&f.pgMaxConns, "store-max-conns", 0, "most connections to a postgres:// store (default: the a2a.postgres.maxConns setting, else the larger of 4 and the CPUs)")
	fl.DurationVar(&f.leaseTTL, "lease-ttl", 0, "how long a task's lease outlives a replica that stopped renewing it, with a postgres:// store (default: the a2a.postgres.leaseSeconds setting, else 30s)")
	fl.StringVar(&f.storeDir, "store-dir", "", "directory tasks are saved in (same as --store file:///dir)")
	fl.BoolVar(&f.memoryStore, "memory-store", false, "keep tasks in memory only: nothing survives a restart (same as --store mem://)")
	c.MarkFlagsMutuallyExclusive("store", "store-dir", "memory-store")
	fl.StringVarP(&f.model, "model", "m", "", "model to use")
	fl.BoolVar(&f.yolo, "yolo", envBool("GEMINI_YOLO_MODE"), "approve every tool call (GEMINI_YOLO_MODE=true)")
	fl.StringVar(&f.maxApprovalMode, "max-approval-mode", "default", "the most a client may ask for: its autoExecute asks for yolo, and is capped to this (plan, default, auto_edit or yolo; --yolo implies yolo)")
	fl.StringSliceVar(&f.allowedHosts, "allowed-host", nil, "another name clients reach the server by, e.g. a reverse proxy's (repeatable; * accepts any Host). Loopback names, the --host, and on 0.0.0.0 or :: any IP address are always accepted")
	fl.StringSliceVar(&f.allowedOrigins, "allowed-origin", nil, "a web page origin (https://ui.example) allowed to call the server from a browser (repeatable; * allows any). Requests from other pages are refused")
	fl.BoolVar(&f.allowPrivatePush, "allow-private-push", false, "let push notifications reach loopback, private and link-local addresses")
	fl.IntVar(&f.maxTurns, "max-concurrent-turns", 0, "turns running at once across tasks (default 256)")
	fl.IntVar(&f.maxQueued, "max-queued-turns", 0, "turns waiting for one of those to end before the server answers busy (default 4096; -1: none wait)")
	fl.IntVar(&f.maxQueuedMessages, "max-queued-messages", 0, "messages waiting for their task's running turn before the server answers busy (default 32)")
	fl.DurationVar(&f.turnTimeout, "turn-timeout", 0, "wall-time limit of one turn (default 30m)")
	fl.BoolVar(&f.ignorePolicyErr, "ignore-policy-errors", false, "run tasks even when a policy file has a mistake, with the rules that could be read (by default such tasks fail)")
	fl.DurationVar(&f.bodyTimeout, "request-body-timeout", httpguard.BodyTimeout, "how long a client may take to send a request's body before its connection is closed (0: no limit)")
	fl.IntVar(&f.memLimitMB, "memory-limit", 200, "soft memory limit in MiB: the garbage collector works harder near it, so that bursts of tasks stay within it (0: none; GOMEMLIMIT, when set, wins)")
	fl.StringVar(&f.onDisconnect, "on-disconnect", string(a2a.DisconnectContinue), "what a client leaving mid-turn does to the turn: continue (it runs to its end; tasks/get and tasks/resubscribe show it) or cancel (as Gemini CLI's server)")
	fl.DurationVar(&f.retention, "retention", a2a.DefaultRetention, "delete tasks idle for longer than this from the store (0 keeps them forever)")
	fl.BoolVarP(&f.debug, "debug", "d", false, "log requests and problems on stderr")
	return c
}

// a2aStoreURL picks the task store: --store, --memory-store or
// --store-dir, then GCS_BUCKET_NAME as Gemini CLI's server reads it, then
// the a2a directory under the .gemini home. "" is the in-process memory
// store, which --memory-store keeps rather than a mem:// bucket because it
// skips the JSON encoding a bucket needs and nothing reads it back anyway.
// fromEnv reports that the URL came from GCS_BUCKET_NAME, which errors
// mention, since nothing on the command line names that store.
func a2aStoreURL(f *a2aFlags, geminiDir string, getenv func(string) string) (u string, fromEnv bool, err error) {
	switch {
	case f.store != "":
		return f.store, false, nil
	case f.memoryStore:
		return "", false, nil
	case f.storeDir != "":
		u, err := blobstore.FileURL(f.storeDir)
		return u, false, err
	case f.settingStore != "":
		return f.settingStore, false, nil
	}
	if u := blobstore.GCSBucketURL(getenv("GCS_BUCKET_NAME")); u != "" {
		return u, true, nil
	}
	u, err = blobstore.FileURL(filepath.Join(geminiDir, "a2a"))
	return u, false, err
}

func runA2A(ctx context.Context, f *a2aFlags, stdio IO) error {
	if err := a2a.CheckListenAddr(f.host, f.token); err != nil {
		return &usageError{msg: err.Error()}
	}
	maxMode, err := policy.ParseMode(f.maxApprovalMode)
	if err != nil {
		return &usageError{msg: "--max-approval-mode: " + err.Error()}
	}
	if m := a2a.DisconnectMode(f.onDisconnect); m != a2a.DisconnectContinue && m != a2a.DisconnectCancel {
		return &usageError{msg: fmt.Sprintf("--on-disconnect %q: must be continue or cancel", f.onDisconnect)}
	}
	switch {
	case f.memLimitMB < 0:
		return &usageError{msg: fmt.Sprintf("--memory-limit %d: must not be negative (0: none)", f.memLimitMB)}
	case f.memLimitMB > 0 && os.Getenv("GOMEMLIMIT") == "":
		// A soft limit: with 1,000 tasks streaming at once the live heap is
		// ~150 MB, which the default GC pacing lets grow to twice that.
		debug.SetMemoryLimit(int64(f.memLimitMB) << 20)
	}
	if f.maxQueuedMessages < 0 {
		return &usageError{msg: fmt.Sprintf("--max-queued-messages %d: must not be negative (0: the default, 32)", f.maxQueuedMessages)}
	}
	retention := f.retention
	switch {
	case retention < 0:
		return &usageError{msg: fmt.Sprintf("--retention %v: must not be negative (0 keeps tasks forever)", retention)}
	case retention == 0:
		retention = -1 // a2a.Config's "forever"; its zero is the default
	}
	home := config.ResolveHome(nil)
	level := slog.LevelWarn
	if f.debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stdio.Stderr, &slog.HandlerOptions{Level: level}))

	ws := f.workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	// The server's own .env (API key, base URL) is read once into the
	// server's environment, never into the process: each task layers its
	// workspace's .env on top of it for that task only.
	env := setup.NewEnv(nil)
	var settings *config.Settings
	if st, err := config.Load(config.LoadOptions{Workspace: ws}); err == nil {
		settings = st
		trusted := st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled
		if err := env.LoadDotEnvWith(st.DotEnv(ws, home.UserDir, trusted)); err != nil {
			logger.Warn(err.Error())
		}
	}
	pgOpts := a2aStoreSettings(f, settings)
	// Resolved after the .env is loaded: Gemini CLI reads GCS_BUCKET_NAME
	// from there too.
	storeURL, fromEnv, err := a2aStoreURL(f, home.Dir, env.Getenv)
	if err != nil {
		return &inputError{msg: err.Error()}
	}
	var store a2a.TaskStore
	if pgstore.IsURL(storeURL) {
		pgOpts.Warn = func(s string) { logger.Warn(s) }
		ps, err := pgstore.Open(ctx, storeURL, pgOpts)
		if err != nil {
			return err
		}
		defer ps.Close()
		store = ps
	} else if storeURL != "" {
		bs, err := blobstore.Open(ctx, storeURL)
		if err != nil && fromEnv {
			err = fmt.Errorf("%w (GCS_BUCKET_NAME is set; --store or --store-dir choose another store)", err)
		}
		var ue *blobstore.URLError
		if errors.As(err, &ue) {
			return &inputError{msg: err.Error()}
		}
		if err != nil {
			return err
		}
		// Closed on return, after the shutdown below has made its final
		// saves.
		defer bs.Close()
		if w := bs.Shared(); w != "" {
			logger.Warn("a2a: task store " + storeURL + ": " + w)
		}
		store = bs
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(f.host, strconv.Itoa(f.port)))
	if err != nil {
		return err
	}
	host := f.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	url := fmt.Sprintf("http://%s:%d/", host, ln.Addr().(*net.TCPAddr).Port)
	cardURL := url
	if ip := net.ParseIP(f.host); ip != nil && ip.IsUnspecified() {
		// Listening on every address: the card names the address each
		// client reached the server at.
		cardURL = ""
	}
	// On by default, as for yolo mode: a server's tools run for whoever
	// reaches it. Tasks may work anywhere beneath --allowed-root
	// (sandbox.go).
	var roots []string
	if f.allowedRoot != "" {
		roots = append(roots, f.allowedRoot)
	}
	_, notice, err := startSandbox(workspaceSettings(ws), nil, true, ws, roots)
	if err != nil {
		ln.Close()
		return err
	}
	defer proc.SetSandbox(nil) // the sandbox ends with the server (tests run many in one process)
	warn := func(s string) { logger.Warn(s) }
	tel := &telemetryRun{stderr: stdio.Stderr} // telemetry.go: telemetry.* settings, for every task
	defer tel.shutdown()
	// MCP prompts are served as slash commands beside the built-in ones.
	commands, stopMCP := setup.Commands(ctx, setup.Options{WorkDir: f.workspace, Env: env.Lookup, Warn: warn, Debug: debugLog})
	defer stopMCP()
	srv, err := a2a.NewServer(a2a.Config{
		Commands:         setup.WithSessionCommands(commands), // lists /compress, /skills, /hooks too
		Workspace:        f.workspace,
		AllowedRoot:      f.allowedRoot,
		AuthToken:        f.token,
		URL:              cardURL,
		NewSession:       a2asession.Factory(setup.Options{Model: f.model, Env: env.Lookup, Warn: warn, Debug: debugLog, IgnorePolicyErrors: f.ignorePolicyErr, Telemetry: tel.observer}),
		YOLO:             f.yolo,
		MaxApprovalMode:  maxMode,
		ListenHost:       f.host,
		AllowedHosts:     f.allowedHosts,
		AllowedOrigins:   f.allowedOrigins,
		Store:            store,
		Retention:        retention,
		AllowPrivatePush: f.allowPrivatePush,
		OnDisconnect:     a2a.DisconnectMode(f.onDisconnect),
		Limits:           a2a.Limits{MaxConcurrentTurns: f.maxTurns, MaxQueuedTurns: f.maxQueued, MaxQueuedMessages: f.maxQueuedMessages, TurnTimeout: f.turnTimeout},
		Logger:           logger,
	})
	if err != nil {
		ln.Close()
		return &inputError{msg: err.Error()}
	}
	printNotice(stdio.Stderr, notice)
	hs := &http.Server{
		Handler:           httpguard.ReadBodyWithin(srv, f.bodyTimeout),
		ReadHeaderTimeout: httpguard.HeaderTimeout,
		IdleTimeout:       2 * time.Minute,
	}
	fmt.Fprintf(stdio.Stdout, "Castor A2A server listening on %s\n", url)
	fmt.Fprintf(stdio.Stdout, "Agent card: %s.well-known/agent-card.json\n", url)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Turns end first, so that open streams receive their final event and
	// close; only then can the HTTP server drain its connections.
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("a2a: shutdown: " + err.Error())
	}
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
