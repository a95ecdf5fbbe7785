// Package proc runs the commands Castor starts for the user and its
// extensions: the shell tool's, the TUI's "!" commands, the SDK's
// SessionContext.Shell, command hooks, discovered tools and stdio MCP
// servers. It is the one place that knows how to keep a command and
// everything it starts together: a process group of its own on Unix
// (a job object on Windows), stopped as a whole with SIGTERM, a grace
// period, then SIGKILL. It also holds the bounded output buffer those
// runners share and the order in which their environments are built.
//
// TestOneProcessGroupImplementation keeps it the only place: process
// group and job object calls anywhere else in the module fail it.
package proc
