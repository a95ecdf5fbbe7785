// Package mcp connects Castor to Model Context Protocol servers the way
// Gemini CLI does: it reads the mcpServers entries of settings.json,
// starts or dials every server (stdio, legacy SSE, streamable HTTP)
// concurrently, and bridges what they offer into the engine.
//
// Tools become [tool.Tool] values whose names follow the tool-calling wire
// spec (sanitized server tool names, "server__tool" when names clash, and
// Gemini CLI's current "mcp_server_tool" spelling accepted as an alias).
// Results are turned into Gemini parts exactly as Gemini CLI does: text,
// a bracketed caption plus inlineData for images, audio and binary
// resources, and a one-line text for resource links. Prompts are listed for
// the slash-command registry, and resources are reachable by the model
// through the list_mcp_resources and read_mcp_resource tools.
//
// A server that cannot be started, hangs or crashes never takes a session
// down: the [Manager] records its status and the reason, and a server whose
// connection dropped is reconnected (a stdio server restarted) the next time
// one of its tools is called.
//
// The protocol itself is the official github.com/modelcontextprotocol/go-sdk.
//
// # Where things are
//
// stdio.go runs stdio servers (it skips stdout lines that are not
// JSON-RPC, and records stderr and the exit); procgroup_*.go makes each
// stdio server lead a process group (a job object on Windows) that
// stopping it, or its exit, stops whole (SIGTERM, a grace period,
// SIGKILL). failure.go turns a failure into a Failure (server, command or
// URL, plain words, last stderr lines) that ServerStatus.Failure, Probe
// and dead-server call results carry. progress.go gives every call a
// progress token and turns notifications/progress into the call's live
// output. elicit.go offers form and URL elicitation to every server and
// hands each elicitation/create to Options.Elicit (ElicitRequest →
// ElicitResult, content decoded and checked against the requested schema).
// CommandsBeside names prompt commands as Gemini CLI's resolver does
// (<server>.<name> beside a built-in or another server's prompt);
// ResourceRef and ResourceParts read @server:uri prompt references.
package mcp
