// Package acp is Castor's Agent Client Protocol face: it serves ACP v1
// (newline-delimited JSON-RPC over any reader and writer, stdio for
// `castor --acp`) with github.com/coder/acp-go-sdk, one assembled
// session (internal/setup) per ACP session, mapping the engine's events
// to session/update notifications and its confirmations to
// session/request_permission. When the client offers them, file text and
// shell commands of the built-in tools go through the client's editor
// (fs/*) and terminals (terminal/*).
//
// # Where things are
//
// mapping.go maps engine events to session/update; commands.go offers the
// session's slash commands and sends available_commands_update when they
// change; elicit.go asks a client that advertises elicitation; authkey.go
// makes authenticate with gemini-api-key fail when no key can be found.
// session/load replays the recorded session. A new prompt cancels the
// session's running one and waits for it, as Gemini CLI's does. The line
// filter in front of the SDK answers what the SDK would only log or die on
// (malformed lines, messages over its 10 MiB reader), and a failed write
// to the client ends Serve as the end of its input does (the SDK only
// drops such writes).
package acp
