// Package acp is the SDK's ACP mode: it serves Castor agents to editors
// and other clients over the Agent Client Protocol (ACP v1,
// newline-delimited JSON-RPC on any reader and writer, stdio for an
// editor), and connects Go programs to ACP agents as clients.
//
// A Server builds one Castor session per ACP session from the same
// options castor.New takes, so an SDK agent's custom tools, instructions
// and settings are served as they are; the client answers tool
// confirmations (session/request_permission), and when it offers them
// the built-in tools read and write files in its editor and run shell
// commands in its terminals. `castor --acp` is this server on stdio.
//
// Protocol types come from github.com/coder/acp-go-sdk, which this
// package wraps.
package acp

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/castor-dev/castor"
	iacp "github.com/castor-dev/castor/internal/acp"
	"github.com/castor-dev/castor/internal/sdkopts"
)

// Server serves agents built from castor options over ACP. Each ACP
// session gets its own agent in the session's cwd; the options WithWorkDir,
// WithConfirm, WithSessionID and WithResume are decided by the protocol
// instead (the client's cwd, its permission answers, session/new and
// session/load).
type Server struct {
	// Name, Title and Version identify the agent in initialize (default
	// "castor", "Castor" and Castor's version).
	Name, Title, Version string
	// Log receives diagnostics and warnings (default os.Stderr); the
	// protocol stream carries nothing else.
	Log io.Writer

	opts []castor.Option
}

// NewServer returns a server building its agents with opts, as castor.New
// would.
func NewServer(opts ...castor.Option) *Server { return &Server{opts: opts} }

// Serve answers the ACP client that writes to r and reads from w until
// the client closes r, a write to w fails (the client stopped reading;
// Log says so) or ctx is cancelled; running turns are then cancelled and
// every session closed with its record intact, and Serve returns nil.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	srv := &iacp.Server{Options: sdkopts.Resolve(s.opts), Name: s.Name, Title: s.Title, Version: s.Version, Log: s.Log}
	return srv.Serve(ctx, r, w)
}

// ServeStdio serves the client on the process's stdin and stdout, as an
// editor that launched the program expects. It catches SIGPIPE for the
// rest of the process's life, as `castor --acp` does: an editor that
// closes its end of stdout would otherwise kill the program on the next
// write, with no session closed and no word on stderr. The signal is
// caught, not ignored, so the programs tools start still die of it.
func (s *Server) ServeStdio(ctx context.Context) error {
	catchBrokenPipes()
	return s.Serve(ctx, os.Stdin, os.Stdout)
}

// catchSIGPIPE registers once per process: a registration is never
// undone, and a program may serve many times.
var catchSIGPIPE sync.Once

// catchBrokenPipes makes a write to a pipe whose reader went away fail
// with EPIPE, which Serve sees, instead of killing the process.
func catchBrokenPipes() {
	catchSIGPIPE.Do(func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) })
}

// Serve serves agents built from opts over ACP on r and w; see
// Server.Serve.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts ...castor.Option) error {
	return NewServer(opts...).Serve(ctx, r, w)
}
