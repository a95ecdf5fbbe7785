package cli

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/internal/httpguard"
	"github.com/castor-dev/castor/internal/mcpserve"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/policy"
)

// mcpTokenEnv names the variable holding the bearer token of
// `castor mcp serve --http`; without it a token is made and printed.
const mcpTokenEnv = "CASTOR_MCP_TOKEN"

type mcpServeFlags struct {
	http            string
	model           string
	maxApprovalMode string
	skipTrust       bool
}

// newMCPServeCommand is `castor mcp serve`: Castor as an MCP server, on
// stdio or streamable HTTP (internal/mcpserve).
func newMCPServeCommand(ctx context.Context, stdio IO) *cobra.Command {
	var f mcpServeFlags
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve Castor as an MCP server (stdio, or streamable HTTP with --http)",
		Long: `Serve Castor as an MCP server to other agents: the tools prompt, list_sessions
and read_session, on stdin/stdout, or with --http ADDR on streamable HTTP at
http://ADDR/mcp with a bearer token (` + mcpTokenEnv + `, or one made and printed).
Sessions run in the current directory and are recorded as interactive ones are.
The approval mode a client asks for is capped by --max-approval-mode.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCPServe(ctx, &f, stdio)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on ADDR (host:port; a loopback host unless another is named) instead of stdio")
	fl.StringVarP(&f.model, "model", "m", "", "the model sessions use")
	fl.StringVar(&f.maxApprovalMode, "max-approval-mode", "default", "the most a client may ask for (plan, default, auto_edit or yolo)")
	fl.BoolVar(&f.skipTrust, "skip-trust", false, "trust the current folder for this server")
	return c
}

func runMCPServe(ctx context.Context, f *mcpServeFlags, stdio IO) error {
	maxMode, err := policy.ParseMode(f.maxApprovalMode)
	if err != nil {
		return &usageError{msg: "--max-approval-mode: " + err.Error()}
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	stderr := termtext.NewWriter(stdio.Stderr)
	warn := func(s string) { fmt.Fprintf(stderr, "Warning: %s\n", s) }
	tel := &telemetryRun{stderr: stderr} // telemetry.go: telemetry.* settings, for every session
	defer tel.shutdown()
	srv := mcpserve.New(mcpserve.Config{
		// Nobody can be asked whether to trust the folder: as in a
		// headless run, an untrusted one is refused with how to trust it.
		Base:            setup.Options{WorkDir: wd, Model: f.model, Warn: warn, EnforceTrust: !f.skipTrust, Telemetry: tel.observer},
		MaxApprovalMode: maxMode,
	})
	if f.http == "" {
		// One writer for the SDK and parseGuard (streamin.go's lockedWriter).
		out := &lockedWriter{w: stdio.Stdout}
		in := newParseGuard(stdio.Stdin, out, warn) // mcpserveinput.go
		err := srv.MCP().Run(ctx, mcpserve.WithErrorCodes(&mcp.IOTransport{Reader: in, Writer: nopWriteCloser{out}}))
		if err != nil && (errors.Is(err, io.EOF) || ctx.Err() != nil) {
			return nil
		}
		return err
	}
	return serveMCPHTTP(ctx, srv, f.http, stdio)
}

func serveMCPHTTP(ctx context.Context, srv *mcpserve.Server, addr string, stdio IO) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return &usageError{msg: fmt.Sprintf("--http %q: %v (want host:port, e.g. 127.0.0.1:8765)", addr, err)}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	token := os.Getenv(mcpTokenEnv)
	made := token == ""
	if made {
		b := make([]byte, 24)
		rand.Read(b)
		token = hex.EncodeToString(b)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	// One protocol server for every connection: the tools hold no
	// per-client state beyond the request's session.
	shared := srv.MCP()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return shared }, &mcp.StreamableHTTPOptions{
		Logger: slog.New(slog.NewTextHandler(stdio.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", bearer(token, h))
	door := httpguard.New(httpguard.Options{ListenHost: host})
	hs := &http.Server{Handler: door.Handler(mux, nil), ReadHeaderTimeout: httpguard.HeaderTimeout}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(stdio.Stdout, "Castor MCP server listening on %s\n", url)
	if made {
		fmt.Fprintf(stdio.Stdout, "Bearer token: %s (set %s to choose it)\n", token, mcpTokenEnv)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// bearer admits requests carrying "Authorization: Bearer token".
func bearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="castor"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
