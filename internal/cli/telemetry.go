package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/telemetry"
	"github.com/castor-dev/castor/internal/version"
)

// telemetryFlush bounds the flush at exit: a collector that is down costs
// the run at most this, not the exporters' own retries. A longer
// OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds, the exporters' own bound)
// lengthens it, for a collector known to be slow.
const telemetryFlush = 5 * time.Second

// flushBound is how long the flush at exit may take.
func flushBound(getenv func(string) string) time.Duration {
	ms, err := strconv.Atoi(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TIMEOUT")))
	if err != nil || ms <= 0 {
		return telemetryFlush
	}
	return max(telemetryFlush, time.Duration(ms)*time.Millisecond)
}

// telemetryRun is the run's telemetry: Gemini CLI 0.61's --telemetry*
// flags, and the pipeline started when the first session's settings turn
// it on. One pipeline serves every session of the process (ACP's chats,
// the terminal's /resume); nothing of OpenTelemetry starts otherwise.
type telemetryRun struct {
	// The flags' values; changed says which the user gave.
	enabled, logPrompts                 bool
	target, endpoint, protocol, outfile string
	changed                             func(name string) bool
	// interactive and stderr describe the run; set before any session.
	interactive bool
	stderr      io.Writer
	// outputFormat is the run's -o (text, json, stream-json); "" for
	// the servers.
	outputFormat string
	mu           sync.Mutex
	t            *telemetry.Telemetry // started by the first session that turns telemetry on
}

// addTelemetryFlags declares the telemetry flags on the root command.
func (r *telemetryRun) addTelemetryFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&r.enabled, "telemetry", false, "send OpenTelemetry traces, metrics and logs (overrides telemetry.enabled)")
	fl.StringVar(&r.target, "telemetry-target", "", "telemetry target: local or gcp (overrides telemetry.target)")
	fl.StringVar(&r.endpoint, "telemetry-otlp-endpoint", "", "the OTLP endpoint telemetry goes to (overrides telemetry.otlpEndpoint and OTEL_EXPORTER_OTLP_ENDPOINT)")
	fl.StringVar(&r.protocol, "telemetry-otlp-protocol", "", "the OTLP protocol: grpc or http (overrides telemetry.otlpProtocol)")
	fl.BoolVar(&r.logPrompts, "telemetry-log-prompts", false, "include prompts, answers and tool arguments in telemetry (overrides telemetry.logPrompts)")
	fl.StringVar(&r.outfile, "telemetry-outfile", "", "write telemetry to this file as JSON lines instead of OTLP (overrides telemetry.outfile)")
	r.changed = func(name string) bool { return fl.Changed(name) }
}

// flags are the flags the user gave (nil where not given).
func (r *telemetryRun) flags() telemetry.Flags {
	if r.changed == nil {
		return telemetry.Flags{}
	}
	var f telemetry.Flags
	if r.changed("telemetry") {
		f.Enabled = &r.enabled
	}
	if r.changed("telemetry-log-prompts") {
		f.LogPrompts = &r.logPrompts
	}
	str := func(name string, v *string) *string {
		if r.changed(name) {
			return v
		}
		return nil
	}
	f.Target = str("telemetry-target", &r.target)
	f.Endpoint = str("telemetry-otlp-endpoint", &r.endpoint)
	f.Protocol = str("telemetry-otlp-protocol", &r.protocol)
	f.Outfile = str("telemetry-outfile", &r.outfile)
	return f
}

// observer is setup.Options.Telemetry: it resolves the telemetry of a
// session and starts the pipeline the first time it is on. The
// pipeline's warnings go where the session's do (the interactive
// terminal's notices, stderr, a2a-server's log), the latest session's.
func (r *telemetryRun) observer(st *config.Settings, env config.LookupFunc, warn func(string)) (agent.Observer, error) {
	cfg, err := telemetry.Resolve(r.flags(), env, st)
	if err != nil || !cfg.Enabled {
		return nil, err
	}
	if warn == nil {
		warn = r.stderrWarn
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.t == nil {
		// Gemini CLI's ~/.gemini/installation_id, shared with it; on a
		// home that cannot hold it the id is this run's alone, as Gemini
		// CLI's is then.
		id, _ := telemetry.InstallationID(config.ResolveHome(env).Dir)
		t, err := telemetry.Start(context.Background(), cfg, telemetry.Info{
			Version:        version.Version,
			Interactive:    r.interactive,
			InstallationID: id,
			Warn:           warn,
		})
		if err != nil {
			return nil, err
		}
		r.t = t
	}
	r.t.SetWarn(warn)
	return sessionTelemetry{r.t, r.outputFormat}, nil
}

// sessionTelemetry is the pipeline as one session's Observer: told of the
// session's start, it logs gemini_cli.config.
type sessionTelemetry struct {
	*telemetry.Telemetry
	outputFormat string
}

// SessionStarted is setup.SessionStartObserver.
func (s sessionTelemetry) SessionStarted(st setup.SessionStart) {
	s.Telemetry.SessionStarted(context.Background(), telemetry.SessionConfig{
		SessionID: st.SessionID, Model: st.Model, ApprovalMode: st.ApprovalMode, AuthType: st.AuthType,
		Sandbox: st.Sandbox, RespectGitIgnore: st.RespectGitIgnore,
		CoreTools: st.CoreTools, MCPServers: st.MCPServers, Extensions: st.Extensions,
		OutputFormat: s.outputFormat,
	})
}

// stderrWarn says a warning on stderr.
func (r *telemetryRun) stderrWarn(s string) {
	fmt.Fprintf(r.stderr, "Warning: %s\n", oneLine(s))
}

// shutdown flushes what the pipeline holds, within flushBound; a
// failure is a warning, the run's outcome stands. It runs after the
// interactive terminal has left the screen: its warnings go to stderr.
func (r *telemetryRun) shutdown() {
	r.mu.Lock()
	t := r.t
	r.mu.Unlock()
	if t == nil {
		return
	}
	t.SetWarn(r.stderrWarn)
	ctx, cancel := context.WithTimeout(context.Background(), flushBound(os.Getenv))
	defer cancel()
	if err := t.Shutdown(ctx); err != nil {
		r.stderrWarn(err.Error())
	}
}
