package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// defaultTimeout is an export's time, retries included, unless
// OTEL_EXPORTER_OTLP_TIMEOUT says otherwise.
const defaultTimeout = 10 * time.Second

// settings are one signal's OTEL_EXPORTER_OTLP_* settings.
type settings struct {
	headers map[string]string
	timeout time.Duration
	gzip    bool
	tls     *tls.Config // nil: the system's roots, no client certificate
}

// envReader reads the OTEL_EXPORTER_OTLP_* variables the official
// exporters read: the signal's own (OTEL_EXPORTER_OTLP_TRACES_HEADERS)
// over the general one (OTEL_EXPORTER_OTLP_HEADERS). A value that does
// not read is said through warn and not used, as the official exporters
// log it and go on.
type envReader struct {
	getenv   func(string) string
	readFile func(string) ([]byte, error)
	warn     func(string)
}

// lookup is the signal's variable for key, or else the general one, and
// the name it came from.
func (r envReader) lookup(signal, key string) (string, string) {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_" + strings.ToUpper(signal) + "_" + key, "OTEL_EXPORTER_OTLP_" + key} {
		if v := strings.TrimSpace(r.getenv(name)); v != "" {
			return v, name
		}
	}
	return "", ""
}

// settings reads the signal's variables for an exporter speaking
// protocol (ProtocolGRPC or ProtocolHTTP).
func (r envReader) settings(signal, protocol string) settings {
	s := settings{timeout: defaultTimeout}
	// The protocol is telemetry.otlpProtocol's, as in Gemini CLI; a
	// variable asking for another (http/json above all: Castor encodes
	// protobuf only) is said, not silently passed over.
	wire := "grpc"
	if protocol == ProtocolHTTP {
		wire = "http/protobuf"
	}
	if v, name := r.lookup(signal, "PROTOCOL"); name != "" && v != wire {
		r.warn(fmt.Sprintf("%s=%q: not used; OTLP goes as %s, which telemetry.otlpProtocol (grpc or http) chooses", name, v, wire))
	}
	if v, name := r.lookup(signal, "HEADERS"); name != "" {
		s.headers = r.headers(name, v)
	}
	if v, name := r.lookup(signal, "TIMEOUT"); name != "" {
		if ms, err := strconv.Atoi(v); err != nil || ms < 0 {
			r.warn(fmt.Sprintf("%s=%q: want milliseconds; the timeout stays %s", name, v, defaultTimeout))
		} else {
			s.timeout = time.Duration(ms) * time.Millisecond
		}
	}
	if v, name := r.lookup(signal, "COMPRESSION"); name != "" {
		switch v {
		case "gzip":
			s.gzip = true
		case "none":
		default:
			r.warn(fmt.Sprintf("%s=%q: want gzip or none; nothing is compressed", name, v))
		}
	}
	var tc tls.Config
	if v, name := r.lookup(signal, "CERTIFICATE"); name != "" {
		if pem, err := r.readFile(v); err != nil {
			r.warn(fmt.Sprintf("%s: %v", name, err))
		} else if pool := x509.NewCertPool(); !pool.AppendCertsFromPEM(pem) {
			r.warn(fmt.Sprintf("%s: no PEM certificate in %s", name, v))
		} else {
			tc.RootCAs = pool
		}
	}
	if cert, certName := r.lookup(signal, "CLIENT_CERTIFICATE"); certName != "" {
		if key, keyName := r.lookup(signal, "CLIENT_KEY"); keyName != "" {
			if pair, err := r.keyPair(cert, key); err != nil {
				r.warn(fmt.Sprintf("%s and %s: %v", certName, keyName, err))
			} else {
				tc.Certificates = []tls.Certificate{pair}
			}
		}
	}
	if tc.RootCAs != nil || tc.Certificates != nil {
		s.tls = &tc
	}
	return s
}

func (r envReader) keyPair(certFile, keyFile string) (tls.Certificate, error) {
	cert, err := r.readFile(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := r.readFile(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(cert, key)
}

// headers reads name=value pairs separated by commas, the values
// percent-encoded (the W3C Baggage format the specification names); a
// pair that does not read is said and left out.
func (r envReader) headers(name, v string) map[string]string {
	h := map[string]string{}
	for pair := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || !isToken(k) {
			r.warn(fmt.Sprintf("%s: %q is not name=value; left out", name, strings.TrimSpace(pair)))
			continue
		}
		dec, err := url.PathUnescape(val)
		if err != nil {
			r.warn(fmt.Sprintf("%s: the value of %s: %v; left out", name, k, err))
			continue
		}
		h[k] = strings.TrimSpace(dec)
	}
	return h
}

// isToken says whether k is an HTTP header name.
func isToken(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if c > unicode.MaxASCII || !(unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}

// InstrumentKind is the kind of instrument a metric comes from.
type InstrumentKind int

// The instrument kinds Castor's pipeline has.
const (
	KindCounter InstrumentKind = iota
	KindUpDownCounter
	KindHistogram
)

// Aggregation is how an instrument's measurements are summed up.
type Aggregation int

// The aggregations.
const (
	AggregationSum Aggregation = iota
	AggregationExplicitHistogram
	// AggregationExponentialHistogram is base-2 exponential buckets, at
	// most 160 of them, from scale 20 down, as the SDK's defaults.
	AggregationExponentialHistogram
)

// metricPrefs are the metric exporter's temporality and aggregation
// choices.
type metricPrefs struct{ delta, exponential bool }

// temporality is cumulative, or with the delta or lowmemory preference
// delta for counters and histograms (the two preferences differ only for
// asynchronous instruments, which Castor has none of).
func (p metricPrefs) temporality(k InstrumentKind) Temporality {
	if p.delta && k != KindUpDownCounter {
		return DeltaTemporality
	}
	return CumulativeTemporality
}

func (p metricPrefs) aggregation(k InstrumentKind) Aggregation {
	switch {
	case k != KindHistogram:
		return AggregationSum
	case p.exponential:
		return AggregationExponentialHistogram
	}
	return AggregationExplicitHistogram
}

// metricPrefs reads the metric exporter's choices: the SDK's defaults
// (cumulative; explicit-bucket histograms) unless
// OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE or
// OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION says
// otherwise.
func (r envReader) metricPrefs() metricPrefs {
	var p metricPrefs
	const tName = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"
	if v := strings.TrimSpace(r.getenv(tName)); v != "" {
		switch strings.ToLower(v) {
		case "cumulative":
		case "delta", "lowmemory":
			p.delta = true
		default:
			r.warn(fmt.Sprintf("%s=%q: want cumulative, delta or lowmemory; cumulative is used", tName, v))
		}
	}
	const aName = "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION"
	if v := strings.TrimSpace(r.getenv(aName)); v != "" {
		switch strings.ToLower(v) {
		case "explicit_bucket_histogram":
		case "base2_exponential_bucket_histogram":
			p.exponential = true
		default:
			r.warn(fmt.Sprintf("%s=%q: want explicit_bucket_histogram or base2_exponential_bucket_histogram; explicit buckets are used", aName, v))
		}
	}
	return p
}
