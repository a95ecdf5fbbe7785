// Package version holds Castor's version, shared by the binary, the SDK
// and every face that reports it (User-Agent, agent cards, MCP client info)
// without importing the SDK package.
package version

// Version is Castor's version. Release builds set it with
// -ldflags "-X github.com/castor-dev/castor/internal/version.Version=…".
var Version = "0.1.0"
