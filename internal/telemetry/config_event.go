package telemetry

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// eventConfig is Gemini CLI 0.61's event of a session's configuration.
const eventConfig = "gemini_cli.config"

// SessionConfig is a session's configuration as it starts.
type SessionConfig struct {
	SessionID, Model, ApprovalMode string
	// AuthType is the auth type in effect; the session's api_* events
	// carry it too.
	AuthType                          string
	Sandbox, RespectGitIgnore         bool
	CoreTools, MCPServers, Extensions []string
	// OutputFormat is text, json or stream-json; "" leaves it out.
	OutputFormat string
}

// SessionStarted logs gemini_cli.config with the attributes Gemini CLI
// 0.61 gives it, less those of what Castor does not have (the embedding
// model, extension ids) and the MCP tools, which connect after the
// session starts.
func (t *Telemetry) SessionStarted(ctx context.Context, c SessionConfig) {
	if c.AuthType != "" {
		t.warnMu.Lock()
		if t.authTypes == nil {
			t.authTypes = map[string]string{}
		}
		t.authTypes[c.SessionID] = c.AuthType
		t.warnMu.Unlock()
	}
	kv := []attribute.KeyValue{
		attribute.String("model", c.Model),
		attribute.Bool("sandbox_enabled", c.Sandbox),
		attribute.String("core_tools_enabled", strings.Join(c.CoreTools, ",")),
		attribute.String("approval_mode", c.ApprovalMode),
		attribute.Bool("api_key_enabled", c.AuthType == "gemini-api-key" || c.AuthType == "vertex-ai"),
		attribute.Bool("vertex_ai_enabled", c.AuthType == "vertex-ai"),
		attribute.Bool("log_user_prompts_enabled", t.cfg.LogPrompts),
		attribute.Bool("file_filtering_respect_git_ignore", c.RespectGitIgnore),
		attribute.String("mcp_servers", strings.Join(c.MCPServers, ",")),
		attribute.Int("mcp_servers_count", len(c.MCPServers)),
		attribute.String("extensions", strings.Join(c.Extensions, ",")),
		attribute.Int("extensions_count", len(c.Extensions)),
	}
	if c.OutputFormat != "" {
		kv = append(kv, attribute.String("output_format", c.OutputFormat))
	}
	if c.AuthType != "" {
		kv = append(kv, attribute.String("auth_type", c.AuthType))
	}
	t.emit(ctx, eventConfig, c.SessionID, "CLI configuration loaded.", time.Now(), kv...)
}

// authType is the auth type of a session SessionStarted was told of.
func (t *Telemetry) authType(sessionID string) []attribute.KeyValue {
	t.warnMu.Lock()
	defer t.warnMu.Unlock()
	if a := t.authTypes[sessionID]; a != "" {
		return []attribute.KeyValue{attribute.String("auth_type", a)}
	}
	return nil
}
