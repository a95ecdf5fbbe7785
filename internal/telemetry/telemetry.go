package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/internal/telemetry/otlp"
)

// ServiceName is the service.name of everything Castor sends (the
// OTEL_SERVICE_NAME variable replaces it).
const ServiceName = "castor"

// scopeName names the tracer, meter and logger.
const scopeName = "github.com/castor-dev/castor"

// exportInterval is how often metrics are sent, as Gemini CLI 0.61's
// OTLP and file targets do (OTEL_METRIC_EXPORT_INTERVAL changes it);
// what is left is sent at Shutdown.
const exportInterval = 10 * time.Second

// Info describes the process for every datum sent.
type Info struct {
	// Version is Castor's version (service.version).
	Version string
	// Interactive is set for the terminal's sessions (the interactive
	// attribute).
	Interactive bool
	// InstallationID is the installation.id of every datum (see
	// InstallationID); "" leaves it out.
	InstallationID string
	// Warn receives what the user should know: the configuration's
	// notices at Start, and the first export that fails while the
	// pipeline runs. SetWarn replaces it (the interactive terminal shows
	// them as notices while it holds the screen).
	Warn func(string)
}

// Telemetry is a started OpenTelemetry pipeline: traces, metrics and logs
// sent to one OTLP endpoint or written to one file. It is an
// agent.Observer. The zero of none of its fields is used: make one with
// Start.
type Telemetry struct {
	cfg  Config
	info Info
	file *os.File

	tracer  *tracer
	logger  *logger
	meter   *meter
	exports struct { // the exporters, stopped at Shutdown
		spans   spanExporter
		logs    logExporter
		metrics metricExporter
	}
	m instruments

	shutdownOnce sync.Once
	shutdownErr  error

	warnMu     sync.Mutex
	warn       func(string)
	exportSaid bool              // an export failure has been said
	authTypes  map[string]string // session id → auth type (SessionStarted)
}

// Start starts the pipeline cfg asks for. It must be called only when
// cfg.Enabled: nothing of OpenTelemetry runs otherwise. Nothing is
// connected here: the exporters dial when they first send.
func Start(ctx context.Context, cfg Config, info Info) (*Telemetry, error) {
	if !cfg.Enabled {
		return nil, errors.New("telemetry is not enabled")
	}
	t := &Telemetry{cfg: cfg, info: info}
	t.SetWarn(info.Warn)
	warn := t.say
	if cfg.Target == TargetGCP && !cfg.UseCollector {
		// Gemini CLI writes to Cloud Trace, Monitoring and Logging itself
		// here; Castor links no Google Cloud exporter.
		warn(fmt.Sprintf("telemetry.target gcp: Castor has no direct Google Cloud exporter; it sends OTLP to %s instead. Run an OpenTelemetry Collector there with the googlecloud exporter (and set telemetry.useCollector to true to silence this).", t.where()))
	}
	if cfg.UseCliAuth {
		warn("telemetry.useCliAuth: Castor does not sign telemetry with its own credentials; the OTLP endpoint's own authentication applies (OTEL_EXPORTER_OTLP_HEADERS).")
	}
	st := readSettings(os.Getenv, info.Version, warn)
	var (
		spans   spanExporter
		metrics metricExporter
		logs    logExporter
		err     error
	)
	if cfg.Outfile != "" {
		spans, metrics, logs, err = t.fileExporters(cfg.Outfile)
	} else {
		spans, metrics, logs, err = otlpExporters(cfg, info.Version, warn)
	}
	if err != nil {
		return nil, err
	}
	t.run(ctx, st, spans, logs, metrics)
	return t, nil
}

// run starts the pipeline on the exporters. A failed export while
// Castor runs is said once (exportFailed), as a warning where the
// session's go: never a log line of its own on stderr, which would
// garble the interactive terminal's screen.
func (t *Telemetry) run(ctx context.Context, st envSettings, spans spanExporter, logs logExporter, metrics metricExporter) {
	scope := otlp.Scope{Name: scopeName}
	t.exports.spans, t.exports.logs, t.exports.metrics = spans, logs, metrics
	t.tracer = &tracer{res: st.res, scope: scope, sampler: st.sampler,
		out: newBatcher(st.spans, spans.ExportSpans, t.exportFailed)}
	t.logger = &logger{res: st.res, scope: scope, out: newBatcher(st.logs, logs.Export, t.exportFailed)}
	t.meter = newMeter(metrics, st.res, scope, st, t.exportFailed)
	t.m.init(t.meter)
	t.m.sessions.Add(ctx, 1, t.common("")...)
}

// SetWarn sends the pipeline's warnings to w from now on (nil: dropped).
func (t *Telemetry) SetWarn(w func(string)) {
	if w == nil {
		w = func(string) {}
	}
	t.warnMu.Lock()
	t.warn = w
	t.warnMu.Unlock()
}

// say gives one warning to the current Warn.
func (t *Telemetry) say(s string) {
	t.warnMu.Lock()
	w := t.warn
	t.warnMu.Unlock()
	w(s)
}

// exportFailed hears of failed exports: the first failure is said,
// the rest are not (a collector that is down fails every export, and
// Shutdown sums up what was lost).
func (t *Telemetry) exportFailed(err error) {
	t.warnMu.Lock()
	said := t.exportSaid
	t.exportSaid = true
	t.warnMu.Unlock()
	if !said {
		t.say(fmt.Sprintf("telemetry to %s: %s (later failures are not shown)", t.where(), oneLine(err.Error())))
	}
}

// oneLine folds a multi-line error into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// where says where the data goes, for messages.
func (t *Telemetry) where() string {
	if t.cfg.Outfile != "" {
		return t.cfg.Outfile
	}
	return t.cfg.Endpoint + " (OTLP/" + t.cfg.Protocol + ")"
}

// Shutdown sends what is left and stops the pipeline, within ctx's
// deadline; later calls return the first one's result.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.shutdownOnce.Do(func() {
		var errs []error
		// Each signal flushes then stops its exporter; spans first, as
		// they are what a user looks for first.
		if t.tracer != nil {
			errs = append(errs, t.tracer.out.shutdown(ctx), t.exports.spans.Shutdown(ctx))
		}
		if t.logger != nil {
			errs = append(errs, t.logger.out.shutdown(ctx), t.exports.logs.Shutdown(ctx))
		}
		if t.meter != nil {
			errs = append(errs, t.meter.shutdown(ctx), t.exports.metrics.Shutdown(ctx))
		}
		if t.file != nil {
			errs = append(errs, t.file.Close())
		}
		// The three signals usually fail alike (a collector that is
		// down): each distinct failure is said once.
		var msgs []string
		for _, err := range errs {
			if err != nil && !slices.Contains(msgs, err.Error()) {
				msgs = append(msgs, err.Error())
			}
		}
		if len(msgs) > 0 {
			t.shutdownErr = fmt.Errorf("telemetry to %s not all sent: %s", t.where(), strings.Join(msgs, "; "))
		}
	})
	return t.shutdownErr
}

// otlpExporters makes the three OTLP exporters for the endpoint. The
// OTEL_EXPORTER_OTLP_* variables for headers, timeouts, compression and
// certificates apply as the OpenTelemetry Go exporters read them; the
// endpoint is the one resolved (which OTEL_EXPORTER_OTLP_ENDPOINT may be).
// What does not read in those variables is said through warn.
func otlpExporters(cfg Config, version string, warn func(string)) (spanExporter, metricExporter, logExporter, error) {
	u, err := endpointURL(cfg.Endpoint)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("telemetry OTLP endpoint %q: %v", cfg.Endpoint, err)
	}
	// HTTP appends v1/traces, v1/metrics and v1/logs to the endpoint's
	// path, as Gemini CLI does; gRPC takes the origin alone, plaintext
	// for http://, TLS for https://.
	ex, err := otlp.New(otlp.Config{
		Endpoint:  u,
		Protocol:  cfg.Protocol,
		UserAgent: strings.TrimSuffix("castor/"+version, "/"),
		Warn:      func(s string) { warn("telemetry: " + s) },
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("telemetry: %w", err)
	}
	return ex.Spans, ex.Metrics, ex.Logs, nil
}

// fileExporters write spans, metrics and logs to one file as JSON, one
// object a line, appended as Gemini CLI's file exporters do.
func (t *Telemetry) fileExporters(path string) (*fileSpans, *fileMetrics, *fileLogs, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("telemetry outfile: %w", err)
	}
	t.file = f
	// The three exporters share the file (see outfile.go).
	out := newJSONLines(f)
	return &fileSpans{fileSink{out: out}}, &fileMetrics{fileSink{out: out}}, &fileLogs{fileSink{out: out}}, nil
}
