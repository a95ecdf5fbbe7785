package otlp

import (
	"context"
	"errors"
	"fmt"
)

// Field numbers of opentelemetry.proto.logs.v1 and its collector.
const (
	logTime         = 1
	logSeverity     = 2
	logSeverityText = 3
	logBody         = 5
	logAttrs        = 6
	logDroppedAttrs = 7
	logFlags        = 8
	logTraceID      = 9
	logSpanID       = 10
	logObserved     = 11
	logEventName    = 12
)

// LogExporter sends log records as OTLP ExportLogsServiceRequests.
type LogExporter struct{ c *client }

// ErrExporterShutdown is what log records and metrics exported after
// Shutdown get, as the SDK's exporters answered.
var ErrExporterShutdown = errors.New("exporter shutdown")

// Export sends records in one request.
func (e *LogExporter) Export(ctx context.Context, records []*LogRecord) error {
	if e.c.stopped() {
		return ErrExporterShutdown
	}
	if len(records) == 0 {
		return nil
	}
	if err := e.c.export(ctx, encodeLogs(records)); err != nil {
		return fmt.Errorf("logs export: %w", err)
	}
	return nil
}

// Shutdown stops the exporter, interrupting an export under way; later
// exports fail.
func (e *LogExporter) Shutdown(ctx context.Context) error { return e.c.shutdown(ctx) }

// ForceFlush has nothing to do: an export is sent before it returns.
func (e *LogExporter) ForceFlush(ctx context.Context) error { return nil }

// encodeLogs is the ExportLogsServiceRequest for records. As the official
// exporter does, an empty resource or scope is left out.
func encodeLogs(records []*LogRecord) []byte {
	e := enc{b: make([]byte, 0, 512*len(records))}
	encodeGrouped(&e, len(records), func(i int) (*Resource, Scope) {
		return records[i].Resource, records[i].Scope
	}, func(r *Resource) bool { return r.Len() > 0 }, func(i int) { e.logRecord(records[i]) })
	return e.b
}

// logRecord writes the fields of one LogRecord.
func (e *enc) logRecord(r *LogRecord) {
	e.fixed64NZ(logTime, unixNano(r.Timestamp))
	e.varintNZ(logSeverity, severity(r.Severity))
	e.stringNZ(logSeverityText, r.SeverityText)
	body := e.open(logBody) // present even when empty, as the official exporter sends it
	e.anyValue(r.Body)
	e.close(body)
	e.keyValues(logAttrs, r.Attributes)
	e.varintNZ(logDroppedAttrs, uint64(clamp32(r.DroppedAttributes)))
	e.fixed32NZ(logFlags, uint32(r.TraceFlags))
	if tid := r.TraceID; tid.IsValid() {
		e.bytes(logTraceID, tid[:])
	}
	if sid := r.SpanID; sid.IsValid() {
		e.bytes(logSpanID, sid[:])
	}
	e.fixed64NZ(logObserved, unixNano(r.ObservedTimestamp))
	e.stringNZ(logEventName, r.EventName)
}

// severity is LogRecord.SeverityNumber: the API's numbers are OTLP's,
// TRACE (1) to FATAL4 (24); anything else is unspecified.
func severity(s Severity) uint64 {
	if s >= 1 && s <= 24 {
		return uint64(s)
	}
	return 0
}
