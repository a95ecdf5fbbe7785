package otlp

import (
	"context"
	"fmt"
)

// Field numbers of opentelemetry.proto.trace.v1 and its collector.
const (
	spanTraceID      = 1
	spanSpanID       = 2
	spanTraceState   = 3
	spanParentSpanID = 4
	spanName         = 5
	spanKind         = 6
	spanStart        = 7
	spanEnd          = 8
	spanAttrs        = 9
	spanDroppedAttrs = 10
	spanEvents       = 11
	spanDroppedEvts  = 12
	spanLinks        = 13
	spanDroppedLinks = 14
	spanStatus       = 15
	spanFlags        = 16

	eventTime         = 1
	eventName         = 2
	eventAttrs        = 3
	eventDroppedAttrs = 4

	linkTraceID      = 1
	linkSpanID       = 2
	linkTraceState   = 3
	linkAttrs        = 4
	linkDroppedAttrs = 5
	linkFlags        = 6

	statusMessage = 2
	statusCode    = 3

	// SpanFlags: the context's remoteness is known, and is remote.
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// SpanExporter sends spans as OTLP ExportTraceServiceRequests.
type SpanExporter struct{ c *client }

// ExportSpans sends spans in one request.
func (e *SpanExporter) ExportSpans(ctx context.Context, spans []*Span) error {
	if len(spans) == 0 {
		return nil
	}
	if err := e.c.export(ctx, encodeSpans(spans)); err != nil {
		return fmt.Errorf("traces export: %w", err)
	}
	return nil
}

// Shutdown stops the exporter, interrupting an export under way; later
// exports fail.
func (e *SpanExporter) Shutdown(ctx context.Context) error { return e.c.shutdown(ctx) }

// encodeSpans is the ExportTraceServiceRequest for spans.
func encodeSpans(spans []*Span) []byte {
	spans = dropNil(spans)
	e := enc{b: make([]byte, 0, 512*len(spans))}
	encodeGrouped(&e, len(spans), func(i int) (*Resource, Scope) {
		return spans[i].Resource, spans[i].InstrumentationScope
	}, func(r *Resource) bool { return r != nil }, func(i int) { e.span(spans[i]) })
	return e.b
}

func dropNil(spans []*Span) []*Span {
	for i, s := range spans {
		if s == nil {
			out := append([]*Span(nil), spans[:i]...)
			for _, s := range spans[i+1:] {
				if s != nil {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return spans
}

// span writes the fields of one Span.
func (e *enc) span(s *Span) {
	sc := s.SpanContext
	tid, sid := sc.TraceID, sc.SpanID
	e.bytes(spanTraceID, tid[:])
	e.bytes(spanSpanID, sid[:])
	e.stringNZ(spanTraceState, sc.TraceState)
	parent := s.Parent
	if psid := parent.SpanID; psid.IsValid() {
		e.bytes(spanParentSpanID, psid[:])
	}
	e.stringNZ(spanName, s.Name)
	e.varintNZ(spanKind, kind(s.SpanKind))
	e.fixed64NZ(spanStart, unixNano(s.StartTime))
	e.fixed64NZ(spanEnd, unixNano(s.EndTime))
	e.keyValues(spanAttrs, s.Attributes)
	e.varintNZ(spanDroppedAttrs, uint64(clamp32(s.DroppedAttributes)))
	for _, ev := range s.Events {
		m := e.open(spanEvents)
		e.fixed64NZ(eventTime, unixNano(ev.Time))
		e.stringNZ(eventName, ev.Name)
		e.keyValues(eventAttrs, ev.Attributes)
		e.varintNZ(eventDroppedAttrs, uint64(clamp32(ev.DroppedAttributeCount)))
		e.close(m)
	}
	e.varintNZ(spanDroppedEvts, uint64(clamp32(s.DroppedEvents)))
	for _, l := range s.Links {
		m := e.open(spanLinks)
		ltid, lsid := l.SpanContext.TraceID, l.SpanContext.SpanID
		e.bytes(linkTraceID, ltid[:])
		e.bytes(linkSpanID, lsid[:])
		e.stringNZ(linkTraceState, l.SpanContext.TraceState)
		e.keyValues(linkAttrs, l.Attributes)
		e.varintNZ(linkDroppedAttrs, uint64(clamp32(l.DroppedAttributeCount)))
		e.fixed32(linkFlags, flagsOf(l.SpanContext.TraceFlags, l.SpanContext))
		e.close(m)
	}
	e.varintNZ(spanDroppedLinks, uint64(clamp32(s.DroppedLinks)))
	st := s.Status
	m := e.open(spanStatus)
	e.stringNZ(statusMessage, st.Description)
	e.varintNZ(statusCode, statusOf(st.Code))
	e.close(m)
	e.fixed32(spanFlags, flagsOf(sc.TraceFlags, parent))
}

// flagsOf is the W3C trace flags and whether the context (the parent
// for a span, the linked context for a link) is remote.
func flagsOf(tf TraceFlags, ctx SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if ctx.Remote {
		f |= flagIsRemote
	}
	return f
}

// kind is Span.SpanKind: the API's kinds are OTLP's, but for unknown.
func kind(k SpanKind) uint64 {
	if k >= SpanKindInternal && k <= SpanKindConsumer {
		return uint64(k)
	}
	return 0
}

// statusOf is Status.StatusCode (UNSET 0, OK 1, ERROR 2).
func statusOf(c StatusCode) uint64 {
	switch c {
	case StatusOK:
		return 1
	case StatusError:
		return 2
	}
	return 0
}
