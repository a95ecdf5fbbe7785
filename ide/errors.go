package ide

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Problem classifies why a connection to a companion failed.
type Problem string

// Problems, from the first step that can fail to the last.
const (
	// ProblemNoDiscoveryFile: no usable discovery file and no
	// GEMINI_CLI_IDE_WORKSPACE_PATH.
	ProblemNoDiscoveryFile Problem = "no-discovery-file"
	// ProblemWorkspace: the working directory is not inside the IDE's
	// workspace (or the IDE has no folder open).
	ProblemWorkspace Problem = "workspace"
	// ProblemNoPort: neither the file nor GEMINI_CLI_IDE_SERVER_PORT
	// gives a port.
	ProblemNoPort Problem = "no-port"
	// ProblemRefused: nothing listens on the port (a stale file).
	ProblemRefused Problem = "connection-refused"
	// ProblemUnreachable: another network failure.
	ProblemUnreachable Problem = "unreachable"
	// ProblemUnauthorized: the companion rejected the token (HTTP 401).
	ProblemUnauthorized Problem = "unauthorized"
	// ProblemForbidden: the companion refused the request (HTTP 403).
	ProblemForbidden Problem = "forbidden"
	// ProblemProtocol: the companion speaks an MCP version Castor does
	// not.
	ProblemProtocol Problem = "protocol-version"
	// ProblemNotMCP: something answers on the port, but not as an MCP
	// server at /mcp.
	ProblemNotMCP Problem = "not-mcp"
)

// supportedVersions are the MCP versions the client accepts from a
// companion (those of the go-sdk that have a standalone event stream).
var supportedVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// ConnectError explains a failed connection.
type ConnectError struct {
	// Problem is the step that failed.
	Problem Problem
	// Discovery is what discovery found.
	Discovery *Discovery
	// File is the discovery file used, "" when the settings came from the
	// environment.
	File string
	// URL and Port are the endpoint tried.
	URL  string
	Port int
	// Status and Body are the HTTP status and the start of the body of
	// the first failed response.
	Status int
	Body   string
	// ServerVersion is the protocol version the companion answered with.
	ServerVersion string
	// Err is the underlying error.
	Err error
}

// Unwrap returns the underlying error.
func (e *ConnectError) Unwrap() error { return e.Err }

// Error says what failed and what to do about it, in one line.
func (e *ConnectError) Error() string {
	source := "GEMINI_CLI_IDE_* environment variables"
	if e.File != "" {
		source = e.File
	}
	switch e.Problem {
	case ProblemNoDiscoveryFile:
		msg := "no IDE companion found: no discovery file in " + e.dir()
		if bad := e.unusable(); bad != "" {
			msg = "no IDE companion found: no usable discovery file in " + e.dir() + " (" + bad + ")"
		}
		return msg + "; start the companion in your IDE (VS Code: the Gemini CLI Companion extension; any editor: castor ide serve)"
	case ProblemWorkspace:
		var we *WorkspaceError
		if errors.As(e.Err, &we) && we.Kind == "missing" {
			return fmt.Sprintf("%s names no workspace; restart the companion", source)
		}
		if we != nil && we.Kind == "empty" {
			return fmt.Sprintf("the IDE of %s has no folder open; open the project folder in the IDE and try again", source)
		}
		return fmt.Sprintf("the IDE companion of %s is for another workspace: %v", source, e.Err)
	case ProblemNoPort:
		return fmt.Sprintf("%s names no port, and %s is not set", source, EnvServerPort)
	case ProblemRefused:
		return fmt.Sprintf("nothing listens on port %d (connection refused): the companion that wrote %s is not running any more; restart it in your IDE (the file is stale)", e.Port, source)
	case ProblemUnreachable:
		return fmt.Sprintf("cannot reach the IDE companion at %s: %v", e.URL, e.Err)
	case ProblemUnauthorized:
		token := "the auth token from " + source
		if e.Discovery != nil && e.Discovery.AuthToken == "" {
			token = "a request without an auth token (" + source + " has none)"
		}
		return fmt.Sprintf("the IDE companion at %s rejected %s (HTTP 401): another companion now owns port %d, or the file was not rewritten when the companion restarted; restart the companion", e.URL, token, e.Port)
	case ProblemForbidden:
		return fmt.Sprintf("the IDE companion at %s refused the request (HTTP 403%s)", e.URL, e.body())
	case ProblemProtocol:
		v := e.ServerVersion
		if v == "" {
			v = "an unknown version"
		}
		return fmt.Sprintf("the IDE companion at %s speaks MCP protocol version %s, which Castor does not support (it speaks %s); update the companion or Castor",
			e.URL, v, strings.Join(supportedVersions, ", "))
	case ProblemNotMCP:
		if e.Status != 0 {
			return fmt.Sprintf("the server on port %d is not an IDE companion: %s answered HTTP %d %s%s", e.Port, e.URL, e.Status, http.StatusText(e.Status), e.body())
		}
		return fmt.Sprintf("the server on port %d is not an IDE companion speaking MCP at %s: %v", e.Port, e.URL, e.Err)
	}
	if e.Err != nil {
		return "cannot connect to the IDE companion: " + e.Err.Error()
	}
	return "cannot connect to the IDE companion"
}

func (e *ConnectError) dir() string {
	if e.Discovery != nil {
		return e.Discovery.Dir
	}
	return DiscoveryDir("$TMPDIR")
}

func (e *ConnectError) body() string {
	if e.Body == "" {
		return ""
	}
	b := strings.Join(strings.Fields(e.Body), " ")
	if len(b) > 200 {
		b = b[:200] + "…"
	}
	return ": " + b
}

// unusable lists the files found that could not be used.
func (e *ConnectError) unusable() string {
	if e.Discovery == nil {
		return ""
	}
	var parts []string
	for _, c := range e.Discovery.Candidates {
		if c.Err != nil {
			parts = append(parts, c.Name+": "+c.Err.Error())
		}
	}
	return strings.Join(parts, "; ")
}
