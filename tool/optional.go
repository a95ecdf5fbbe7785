package tool

// Optional behaviour a Tool may add, asked for with a type assertion
// (Aliased and ArgNormalizer sit beside Tool in tool.go).

// ServerTool is implemented by tools that belong to a server (MCP tools):
// policy rules that name a server (mcpServerName, "server__tool") match
// them by ServerName.
type ServerTool interface {
	// ServerName is the configured name of the tool's server.
	ServerName() string
}

// TrustedTool is implemented by tools whose source the user trusts (an
// MCP server with trust: true in a trusted folder): their calls need no
// confirmation, so faces that refuse unconfirmed calls allow them by name.
type TrustedTool interface {
	// Trusted reports whether the tool's calls need no confirmation.
	Trusted() bool
}
