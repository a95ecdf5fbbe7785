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
package mcp
