package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout is how long a request to a server may take when its
// configuration sets no timeout (Gemini CLI's MCP_DEFAULT_TIMEOUT_MSEC).
const DefaultTimeout = 10 * time.Minute

// Transport names how Castor talks to a server.
type Transport string

// Transports.
const (
	TransportStdio Transport = "stdio"
	TransportSSE   Transport = "sse"
	TransportHTTP  Transport = "http"
)

// ServerConfig is one mcpServers entry, with the fields Gemini CLI reads.
type ServerConfig struct {
	// Name is the key of the entry in mcpServers.
	Name string `json:"-"`

	// Stdio servers.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`

	// Remote servers. URL is SSE or streamable HTTP depending on Type
	// (without a type Gemini CLI tries streamable HTTP first and falls back
	// to SSE); HTTPURL is always streamable HTTP (Gemini CLI calls it
	// deprecated but still reads it first).
	URL     string            `json:"url,omitempty"`
	HTTPURL string            `json:"httpUrl,omitempty"`
	Type    string            `json:"type,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// TCP is the legacy websocket transport, which Castor does not speak.
	TCP string `json:"tcp,omitempty"`

	// Timeout bounds each request; zero means DefaultTimeout. In settings it
	// is a number of milliseconds.
	Timeout time.Duration `json:"-"`
	// Trust skips confirmation of this server's tool calls (in trusted
	// folders only, as in Gemini CLI).
	Trust        bool     `json:"trust,omitempty"`
	Description  string   `json:"description,omitempty"`
	IncludeTools []string `json:"includeTools,omitempty"`
	ExcludeTools []string `json:"excludeTools,omitempty"`
	// WrapUntrusted set to false sends the server's text output to the
	// model as it is, instead of fenced in <untrusted_context> tags; nil
	// means true. Gemini CLI fences every server's output, trust: true or
	// not, and has no such key (it ignores it), so a server whose output
	// is known to be safe to treat as instructions opts out here
	// explicitly rather than through trust, which is about approvals.
	WrapUntrusted *bool `json:"wrapUntrusted,omitempty"`

	OAuth *OAuthConfig `json:"oauth,omitempty"`
	// AuthProviderType is dynamic_discovery, google_credentials (ADC,
	// googleauth.go) or service_account_impersonation, which Castor does
	// not implement.
	AuthProviderType     string `json:"authProviderType,omitempty"`
	TargetAudience       string `json:"targetAudience,omitempty"`
	TargetServiceAccount string `json:"targetServiceAccount,omitempty"`

	// Extension names the extension that contributed the server, "" for
	// servers from settings.
	Extension string `json:"-"`
}

// OAuthConfig is a server's oauth block.
type OAuthConfig struct {
	Enabled          bool     `json:"enabled,omitempty"`
	ClientID         string   `json:"clientId,omitempty"`
	ClientSecret     string   `json:"clientSecret,omitempty"`
	AuthorizationURL string   `json:"authorizationUrl,omitempty"`
	Issuer           string   `json:"issuer,omitempty"`
	TokenURL         string   `json:"tokenUrl,omitempty"`
	Scopes           []string `json:"scopes,omitempty"`
	Audiences        []string `json:"audiences,omitempty"`
	RedirectURI      string   `json:"redirectUri,omitempty"`
	TokenParamName   string   `json:"tokenParamName,omitempty"`
	RegistrationURL  string   `json:"registrationUrl,omitempty"`
}

// Transport returns how the server is reached and, for a url without a
// type, whether SSE should be tried when streamable HTTP fails.
func (c *ServerConfig) Transport() (t Transport, sseFallback bool, err error) {
	switch {
	case c.HTTPURL != "":
		return TransportHTTP, false, nil
	case c.URL != "":
		switch c.Type {
		case "sse":
			return TransportSSE, false, nil
		case "http":
			return TransportHTTP, false, nil
		}
		return TransportHTTP, true, nil
	case c.Command != "":
		return TransportStdio, false, nil
	case c.TCP != "":
		return "", false, errors.New("the websocket (tcp) transport is not supported")
	}
	return "", false, errors.New("Invalid configuration: missing httpUrl (for Streamable HTTP), url (for SSE), and command (for stdio).")
}

// wrapsOutput reports whether the server's text output reaches the model
// fenced in <untrusted_context> tags (see WrapUntrusted).
func (c *ServerConfig) wrapsOutput() bool {
	return c.WrapUntrusted == nil || *c.WrapUntrusted
}

// Endpoint returns the URL of a remote server: httpUrl first, then url.
func (c *ServerConfig) Endpoint() string {
	if c.HTTPURL != "" {
		return c.HTTPURL
	}
	return c.URL
}

// RequestTimeout returns Timeout, or DefaultTimeout when it is not set.
func (c *ServerConfig) RequestTimeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// toolEnabled applies includeTools and excludeTools to a server tool name:
// exclusion wins, and an include entry may carry a parenthesised suffix
// ("run(ls)") that still enables the tool, as in Gemini CLI.
func (c *ServerConfig) toolEnabled(name string) bool {
	for _, x := range c.ExcludeTools {
		if x == name {
			return false
		}
	}
	if c.IncludeTools == nil {
		return true
	}
	for _, in := range c.IncludeTools {
		if in == name || strings.HasPrefix(in, name+"(") {
			return true
		}
	}
	return false
}

// ParseServers reads a settings mcpServers object (name → raw entry, as
// config.Settings.MCPServers holds it). Entries that cannot be used are
// left out and described in errs, one per entry, so that one bad entry
// does not cost the others. The result is sorted by name.
func ParseServers(raw map[string]any) (servers []*ServerConfig, errs []error) {
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c, err := ParseServer(name, raw[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		servers = append(servers, c)
	}
	return servers, errs
}

// ParseServer reads one mcpServers entry. raw is what a JSON decoder gives
// for the entry (map[string]any); a json.RawMessage or []byte is decoded
// first. Unknown fields are ignored, as Gemini CLI ignores them; a field of
// the wrong type is an error naming it.
func ParseServer(name string, raw any) (*ServerConfig, error) {
	switch b := raw.(type) {
	case json.RawMessage:
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("mcpServers.%s: %v", name, err)
		}
	case []byte:
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("mcpServers.%s: %v", name, err)
		}
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("mcpServers.%s should be an object, got %s", name, jsonKind(raw))
	}
	p := &fieldParser{prefix: "mcpServers." + name, m: m}
	c := &ServerConfig{
		Name:                 name,
		Command:              p.str("command"),
		Args:                 p.strs("args"),
		Env:                  p.strMap("env"),
		Cwd:                  p.str("cwd"),
		URL:                  p.str("url"),
		HTTPURL:              p.str("httpUrl"),
		Type:                 p.str("type"),
		Headers:              p.strMap("headers"),
		TCP:                  p.str("tcp"),
		Trust:                p.bool("trust"),
		Description:          p.str("description"),
		IncludeTools:         p.strs("includeTools"),
		ExcludeTools:         p.strs("excludeTools"),
		AuthProviderType:     p.str("authProviderType"),
		TargetAudience:       p.str("targetAudience"),
		TargetServiceAccount: p.str("targetServiceAccount"),
	}
	if v, ok := m["wrapUntrusted"]; ok && v != nil {
		b := p.bool("wrapUntrusted")
		c.WrapUntrusted = &b
	}
	if ms, ok := p.num("timeout"); ok {
		if ms < 0 || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
			p.fail("timeout", "a number of milliseconds")
		} else {
			c.Timeout = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if c.Type != "" && c.Type != "sse" && c.Type != "http" {
		p.fail("type", `"sse" or "http"`)
	}
	if om, ok := m["oauth"]; ok && om != nil {
		o, isObj := om.(map[string]any)
		if !isObj {
			p.fail("oauth", "an object")
		} else {
			op := &fieldParser{prefix: p.prefix + ".oauth", m: o}
			c.OAuth = &OAuthConfig{
				Enabled:          op.bool("enabled"),
				ClientID:         op.str("clientId"),
				ClientSecret:     op.str("clientSecret"),
				AuthorizationURL: op.str("authorizationUrl"),
				Issuer:           op.str("issuer"),
				TokenURL:         op.str("tokenUrl"),
				Scopes:           op.strs("scopes"),
				Audiences:        op.strs("audiences"),
				RedirectURI:      op.str("redirectUri"),
				TokenParamName:   op.str("tokenParamName"),
				RegistrationURL:  op.str("registrationUrl"),
			}
			p.errs = append(p.errs, op.errs...)
		}
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return c, nil
}

// fieldParser reads typed fields out of a decoded JSON object, collecting
// one error per field of the wrong type.
type fieldParser struct {
	prefix string
	m      map[string]any
	errs   []error
}

func (p *fieldParser) fail(key, want string) {
	p.errs = append(p.errs, fmt.Errorf("%s.%s should be %s, got %s", p.prefix, key, want, jsonKind(p.m[key])))
}

func (p *fieldParser) str(key string) string {
	v, ok := p.m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.fail(key, "a string")
	}
	return s
}

func (p *fieldParser) bool(key string) bool {
	v, ok := p.m[key]
	if !ok || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		p.fail(key, "a boolean")
	}
	return b
}

func (p *fieldParser) num(key string) (float64, bool) {
	v, ok := p.m[key]
	if !ok || v == nil {
		return 0, false
	}
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		if err == nil {
			return f, true
		}
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	p.fail(key, "a number")
	return 0, false
}

// strs reads an array of strings; nil means the key is absent, which
// differs from an empty list for includeTools.
func (p *fieldParser) strs(key string) []string {
	v, ok := p.m[key]
	if !ok || v == nil {
		return nil
	}
	switch a := v.(type) {
	case []string:
		return append([]string{}, a...)
	case []any:
		out := make([]string, 0, len(a))
		for _, e := range a {
			s, ok := e.(string)
			if !ok {
				p.fail(key, "an array of strings")
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	p.fail(key, "an array of strings")
	return nil
}

func (p *fieldParser) strMap(key string) map[string]string {
	v, ok := p.m[key]
	if !ok || v == nil {
		return nil
	}
	switch o := v.(type) {
	case map[string]string:
		out := make(map[string]string, len(o))
		for k, s := range o {
			out[k] = s
		}
		return out
	case map[string]any:
		out := make(map[string]string, len(o))
		for k, e := range o {
			switch s := e.(type) {
			case string:
				out[k] = s
			case float64, bool:
				// Node stringifies numbers and booleans it puts in an
				// environment or header, so a config that works with Gemini
				// CLI must work here.
				b, _ := json.Marshal(s)
				out[k] = string(b)
			default:
				p.fail(key, "an object of strings")
				return nil
			}
		}
		return out
	}
	p.fail(key, "an object of strings")
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// Filter decides which configured servers may run: mcp.allowed,
// mcp.excluded and the --allowed-mcp-server-names flag.
type Filter struct {
	// Allowed is the consolidated mcp.allowed list; nil or empty allows
	// every server.
	Allowed []string
	// Excluded is the consolidated mcp.excluded list.
	Excluded []string
	// AllowedNames is --allowed-mcp-server-names. When set it replaces
	// Allowed and switches Excluded off, as in Gemini CLI.
	AllowedNames []string
	// Disabled are the servers `mcp disable` switched off (see
	// LoadDisabled); names match without regard to case.
	Disabled []string
}

// Blocked reports whether the server called name may not run, and why (in
// Gemini CLI's words).
func (f Filter) Blocked(name string) (bool, string) {
	allowed, excluded := f.Allowed, f.Excluded
	if len(f.AllowedNames) > 0 {
		allowed, excluded = f.AllowedNames, nil
	}
	if len(allowed) > 0 && !containsTrimmed(allowed, name) {
		return true, fmt.Sprintf("Server '%s' is not in mcp.allowed list. Add it to settings.json mcp.allowed array to enable.", name)
	}
	if containsTrimmed(excluded, name) {
		return true, fmt.Sprintf("Server '%s' is blocked by mcp.excluded. Remove it from settings.json mcp.excluded array to enable.", name)
	}
	if f.IsDisabled(name) {
		return true, fmt.Sprintf("Server '%s' is disabled. Run 'castor mcp enable %s' to enable.", name, name)
	}
	return false, ""
}

// IsDisabled reports whether `mcp disable` switched the server off.
func (f Filter) IsDisabled(name string) bool {
	key := normalizeName(name)
	for _, d := range f.Disabled {
		if normalizeName(d) == key {
			return true
		}
	}
	return false
}

func containsTrimmed(list []string, name string) bool {
	for _, s := range list {
		if strings.TrimSpace(s) == name {
			return true
		}
	}
	return false
}
