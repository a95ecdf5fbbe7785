package telemetry

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/castor-dev/castor/config"
)

// Targets and protocols, as Gemini CLI 0.61 names them.
const (
	TargetLocal  = "local"
	TargetGCP    = "gcp"
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http"
)

// DefaultEndpoint is Gemini CLI 0.61's OTLP endpoint when none is given:
// a collector on this machine.
const DefaultEndpoint = "http://localhost:4317"

// Flags are the command line's telemetry options; nil means not given.
type Flags struct {
	Enabled    *bool   // --telemetry
	Target     *string // --telemetry-target
	Endpoint   *string // --telemetry-otlp-endpoint
	Protocol   *string // --telemetry-otlp-protocol
	LogPrompts *bool   // --telemetry-log-prompts
	Outfile    *string // --telemetry-outfile
}

// Config is the telemetry in effect, resolved from flags, environment and
// settings.
type Config struct {
	Enabled bool
	// Traces adds the large span attributes (system instructions, tool
	// definitions, and with LogPrompts the messages).
	Traces bool
	Target string
	// Endpoint is the OTLP endpoint as given (DefaultEndpoint when none).
	Endpoint string
	Protocol string
	// LogPrompts sends prompt, response and argument text. Castor's
	// default is false, where Gemini CLI 0.61's is true: text the user
	// typed leaves the machine only when asked.
	LogPrompts bool
	// Outfile, when set, receives everything as JSON lines in place of
	// OTLP.
	Outfile      string
	UseCollector bool
	UseCliAuth   bool
}

// Resolve computes the telemetry configuration as Gemini CLI 0.61's
// resolveTelemetrySettings does: each value from the flag, else its
// GEMINI_TELEMETRY_* variable, else the settings (the endpoint also from
// OTEL_EXPORTER_OTLP_ENDPOINT). OTEL_SDK_DISABLED=true turns telemetry off
// whatever asked for it, as the OpenTelemetry SDKs do. A bad value is an
// error naming where it came from.
func Resolve(f Flags, env config.LookupFunc, st *config.Settings) (Config, error) {
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	c := Config{Target: TargetLocal, Protocol: ProtocolGRPC, Endpoint: DefaultEndpoint}
	var err error
	if c.Enabled, err = boolOf(f.Enabled, env, "GEMINI_TELEMETRY_ENABLED", st, "telemetry.enabled"); err != nil {
		return c, err
	}
	if v, _ := env("OTEL_SDK_DISABLED"); strings.EqualFold(strings.TrimSpace(v), "true") {
		c.Enabled = false
	}
	if c.Traces, err = boolOf(nil, env, "GEMINI_TELEMETRY_TRACES_ENABLED", st, "telemetry.traces"); err != nil {
		return c, err
	}
	if c.LogPrompts, err = boolOf(f.LogPrompts, env, "GEMINI_TELEMETRY_LOG_PROMPTS", st, "telemetry.logPrompts"); err != nil {
		return c, err
	}
	if c.UseCollector, err = boolOf(nil, env, "GEMINI_TELEMETRY_USE_COLLECTOR", st, "telemetry.useCollector"); err != nil {
		return c, err
	}
	// useCliAuth is not supported: the settings table says so of the
	// setting, Start of the variable.
	c.UseCliAuth, _ = boolOf(nil, env, "GEMINI_TELEMETRY_USE_CLI_AUTH", nil, "")
	target, from, err := stringOf(f.Target, "--telemetry-target", env, []string{"GEMINI_TELEMETRY_TARGET"}, st, "telemetry.target")
	if err != nil {
		return c, err
	}
	if target != "" {
		if target != TargetLocal && target != TargetGCP {
			return c, fmt.Errorf("invalid telemetry target %q in %s: valid values are local, gcp", target, from)
		}
		c.Target = target
	}
	protocol, from, err := stringOf(f.Protocol, "--telemetry-otlp-protocol", env, []string{"GEMINI_TELEMETRY_OTLP_PROTOCOL"}, st, "telemetry.otlpProtocol")
	if err != nil {
		return c, err
	}
	if protocol != "" {
		if protocol != ProtocolGRPC && protocol != ProtocolHTTP {
			return c, fmt.Errorf("invalid telemetry OTLP protocol %q in %s: valid values are grpc, http", protocol, from)
		}
		c.Protocol = protocol
	}
	endpoint, from, err := stringOf(f.Endpoint, "--telemetry-otlp-endpoint", env, []string{"GEMINI_TELEMETRY_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"}, st, "telemetry.otlpEndpoint")
	if err != nil {
		return c, err
	}
	if endpoint != "" {
		if _, err := endpointURL(endpoint); err != nil {
			return c, fmt.Errorf("invalid telemetry OTLP endpoint %q in %s: %v", endpoint, from, err)
		}
		c.Endpoint = endpoint
	}
	if c.Outfile, _, err = stringOf(f.Outfile, "--telemetry-outfile", env, []string{"GEMINI_TELEMETRY_OUTFILE"}, st, "telemetry.outfile"); err != nil {
		return c, err
	}
	return c, nil
}

// boolOf reads a boolean from the flag, the variable ("true" or "1" is
// true, anything else false, as in Gemini CLI) or the settings key.
func boolOf(flag *bool, env config.LookupFunc, name string, st *config.Settings, key string) (bool, error) {
	if flag != nil {
		return *flag, nil
	}
	if v, ok := env(name); ok {
		return v == "true" || v == "1", nil
	}
	if st == nil {
		return false, nil
	}
	if raw, ok := st.Get(key); ok && raw != nil {
		b, ok := raw.(bool)
		if !ok {
			return false, fmt.Errorf("%s in %s: want true or false, not %v", key, settingsFile(st, key), raw)
		}
		return b, nil
	}
	return false, nil
}

// stringOf reads a string from the flag, the first variable set, or the
// settings key, and says where it came from.
func stringOf(flag *string, flagName string, env config.LookupFunc, names []string, st *config.Settings, key string) (string, string, error) {
	if flag != nil {
		return strings.TrimSpace(*flag), flagName, nil
	}
	for _, n := range names {
		if v, ok := env(n); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), n, nil
		}
	}
	if st == nil {
		return "", "", nil
	}
	if raw, ok := st.Get(key); ok && raw != nil {
		s, ok := raw.(string)
		if !ok {
			return "", "", fmt.Errorf("%s in %s: want a string, not %v", key, settingsFile(st, key), raw)
		}
		return strings.TrimSpace(s), key + " in " + settingsFile(st, key), nil
	}
	return "", "", nil
}

func settingsFile(st *config.Settings, key string) string {
	if f := st.FileOf(strings.Split(key, ".")...); f != "" {
		return f
	}
	return "settings"
}

// endpointURL parses an OTLP endpoint. Quotes around it (left by a
// shell-quoted variable) are dropped, as Gemini CLI does; a bare host:port
// is taken as plain http://host:port, which Gemini CLI would refuse.
func endpointURL(s string) (*url.URL, error) {
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("no host")
	}
	return u, nil
}
