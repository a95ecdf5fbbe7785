package telemetry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

// settings writes a user settings file and loads it.
func settings(t *testing.T, json string) *config.Settings {
	t.Helper()
	home := t.TempDir()
	if json != "" {
		if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(json), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := config.Load(config.LoadOptions{Workspace: t.TempDir(), HomeDir: home, Env: config.EnvMap(nil)})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func ptr[T any](v T) *T { return &v }

func TestResolve(t *testing.T) {
	t.Parallel()
	def := Config{Target: TargetLocal, Protocol: ProtocolGRPC, Endpoint: DefaultEndpoint}
	with := func(f func(*Config)) Config { c := def; f(&c); return c }
	tests := []struct {
		name     string
		flags    Flags
		env      map[string]string
		settings string
		want     Config
		err      string // a part of the error
	}{
		{name: "off by default", want: def},
		{name: "settings", settings: `{"telemetry": {"enabled": true, "target": "gcp", "otlpEndpoint": "http://collector:4318",
			"otlpProtocol": "http", "logPrompts": true, "traces": true, "outfile": "/tmp/t.log", "useCollector": true}}`,
			want: Config{Enabled: true, Traces: true, Target: TargetGCP, Endpoint: "http://collector:4318", Protocol: ProtocolHTTP,
				LogPrompts: true, Outfile: "/tmp/t.log", UseCollector: true}},
		{name: "environment over settings", settings: `{"telemetry": {"enabled": false, "otlpEndpoint": "http://a:1", "logPrompts": true}}`,
			env:  map[string]string{"GEMINI_TELEMETRY_ENABLED": "1", "GEMINI_TELEMETRY_OTLP_ENDPOINT": "http://b:2", "GEMINI_TELEMETRY_LOG_PROMPTS": "yes"},
			want: with(func(c *Config) { c.Enabled, c.Endpoint = true, "http://b:2" })},
		{name: "OTEL_EXPORTER_OTLP_ENDPOINT after GEMINI_TELEMETRY_OTLP_ENDPOINT", settings: `{"telemetry": {"otlpEndpoint": "http://a:1"}}`,
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4317"},
			want: with(func(c *Config) { c.Endpoint = "http://otel:4317" })},
		{name: "flags over environment", flags: Flags{Enabled: ptr(false), Endpoint: ptr("127.0.0.1:9"), Protocol: ptr("http"), LogPrompts: ptr(true)},
			env:  map[string]string{"GEMINI_TELEMETRY_ENABLED": "true", "GEMINI_TELEMETRY_OTLP_PROTOCOL": "grpc"},
			want: with(func(c *Config) { c.Endpoint, c.Protocol, c.LogPrompts = "127.0.0.1:9", ProtocolHTTP, true })},
		{name: "OTEL_SDK_DISABLED wins", flags: Flags{Enabled: ptr(true)}, env: map[string]string{"OTEL_SDK_DISABLED": "true"}, want: def},
		{name: "bad target names the flag", flags: Flags{Target: ptr("cloud")}, err: `invalid telemetry target "cloud" in --telemetry-target`},
		{name: "bad protocol names the file", settings: `{"telemetry": {"otlpProtocol": "udp"}}`, err: `"udp" in telemetry.otlpProtocol in `},
		{name: "bad endpoint names the variable", env: map[string]string{"GEMINI_TELEMETRY_OTLP_ENDPOINT": "ftp://x"}, err: "in GEMINI_TELEMETRY_OTLP_ENDPOINT"},
		{name: "a setting of the wrong type", settings: `{"telemetry": {"enabled": "yes"}}`, err: "telemetry.enabled in "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Resolve(tc.flags, config.EnvMap(tc.env), settings(t, tc.settings))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func FuzzEndpointURL(f *testing.F) {
	for _, s := range []string{"127.0.0.1:4317", "http://localhost:4318/otlp", `"https://c:443"`, "ftp://x", "", "http://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := endpointURL(s)
		if err != nil {
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("endpointURL(%q) = %v", s, u)
		}
	})
}
