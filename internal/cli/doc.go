// Package cli is the castor command: flags, headless runs with Gemini CLI's
// output formats and exit codes, and session management.
//
// # Where things are
//
// Subcommands (a2a-server, mcp, ide, auth, extensions, skills) are listed
// in one place, cli.go. stopsignals.go makes SIGINT, SIGTERM and SIGHUP
// cancel the run's context, so that everything it started is stopped.
// output.go writes the headless output formats; stdoutguard.go stops the
// turn and exits 1 when a write to stdout fails (a broken pipe), SIGPIPE
// being caught, never ignored, for every face; stdoutclosed_unix.go refuses
// a stdout closed before start. sessionid.go checks and claims
// --session-id (chats.Store.Claim). usage.go sorts failures into exit
// codes: a command line that does not parse exits 1, inputError 42 for
// input that parses but cannot be used. streamin.go is the long-lived
// stream-json session (--input-format stream-json): a reader goroutine
// queues user lines and answers setup.Options.Confirm and interrupts while
// a turn runs; streamelicit.go asks the host MCP servers' questions. On a
// terminal, the command opens internal/tui.
package cli
