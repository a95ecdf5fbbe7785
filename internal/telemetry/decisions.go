package telemetry

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/castor-dev/castor/agent"
)

// Gemini CLI 0.61's names for what the engine decides on its own: a
// history summarised, a prompt's model chosen by the router. The chat
// compression counter has the event's name.
const (
	eventChatCompression  = "gemini_cli.chat_compression"
	eventModelRouting     = "gemini_cli.model_routing"
	metricRoutingLatency  = "gemini_cli.model_routing.latency"
	metricRoutingFailures = "gemini_cli.model_routing.failure.count"
)

// Compressed logs gemini_cli.chat_compression and counts it, with the
// token counts before and after.
func (t *Telemetry) Compressed(ctx context.Context, sessionID string, info agent.CompressionInfo) {
	kv := []attribute.KeyValue{
		attribute.Int("tokens_before", int(info.OriginalTokens)),
		attribute.Int("tokens_after", int(info.NewTokens)),
	}
	t.emit(ctx, eventChatCompression, sessionID, fmt.Sprintf("Chat compression (Saved %d tokens)", info.OriginalTokens-info.NewTokens), time.Now(), kv...)
	t.m.compressions.Add(ctx, 1, append(t.common(sessionID), kv...)...)
}

// Routed logs gemini_cli.model_routing and records the decision's
// latency, and counts it when the router could not ask its classifier.
func (t *Telemetry) Routed(ctx context.Context, r *agent.ObservedRouting) {
	ms := r.Latency.Milliseconds()
	kv := []attribute.KeyValue{
		attribute.String("decision_model", r.Model),
		attribute.String("decision_source", r.Source),
		attribute.Int64("routing_latency_ms", ms),
		attribute.Bool("failed", r.Err != nil),
	}
	if r.Reasoning != "" {
		kv = append(kv, attribute.String("reasoning", truncate(r.Reasoning)))
	}
	if r.Err != nil {
		kv = append(kv, attribute.String("error_message", truncate(r.Err.Error())))
	}
	t.emit(ctx, eventModelRouting, r.SessionID, fmt.Sprintf("Model routing decision. Model: %s, Source: %s", r.Model, r.Source), time.Now(), kv...)
	mkv := append(t.common(r.SessionID),
		attribute.String("routing.decision_model", r.Model),
		attribute.String("routing.decision_source", r.Source),
		attribute.Bool("routing.failed", r.Err != nil),
	)
	if r.Reasoning != "" {
		mkv = append(mkv, attribute.String("routing.reasoning", truncate(r.Reasoning)))
	}
	t.m.routingLatency.Record(ctx, ms, mkv...)
	if r.Err != nil {
		t.m.routingFailures.Add(ctx, 1, append(mkv, attribute.String("routing.error_message", truncate(r.Err.Error())))...)
	}
}

// Gemini CLI 0.61's loop events.
const (
	eventLoopDetected = "gemini_cli.loop_detected"
	eventLoopCheck    = "gemini_cli.llm_loop_check"
	eventLoopDisabled = "gemini_cli.loop_detection_disabled"
)

// LoopDetectionDisabled logs gemini_cli.loop_detection_disabled: the user
// turned loop detection off for the session (the terminal's loop dialog).
func (t *Telemetry) LoopDetectionDisabled(ctx context.Context, sessionID, promptID string) {
	t.emit(ctx, eventLoopDisabled, sessionID, "Loop detection disabled.", time.Now(), attribute.String("prompt_id", promptID))
}

// LoopFound logs gemini_cli.loop_detected.
func (t *Telemetry) LoopFound(ctx context.Context, l *agent.ObservedLoop) {
	kv := []attribute.KeyValue{
		attribute.String("loop_type", l.Type),
		attribute.String("prompt_id", l.PromptID),
		attribute.Int("count", l.Count),
	}
	if l.ConfirmedBy != "" {
		kv = append(kv, attribute.String("confirmed_by_model", l.ConfirmedBy))
	}
	if l.Analysis != "" {
		kv = append(kv, attribute.String("analysis", truncate(l.Analysis)))
	}
	if l.Confidence != 0 {
		kv = append(kv, attribute.Float64("confidence", l.Confidence))
	}
	status := "Attempting recovery"
	if l.Count > 1 {
		status = "Terminating session"
	}
	body := fmt.Sprintf("Loop detected (Strike %d: %s). Type: %s.", l.Count, status, l.Type)
	if l.ConfirmedBy != "" {
		body += " Confirmed by: " + l.ConfirmedBy
	}
	t.emit(ctx, eventLoopDetected, l.SessionID, body, time.Now(), kv...)
}

// LoopChecked logs gemini_cli.llm_loop_check.
func (t *Telemetry) LoopChecked(ctx context.Context, c *agent.ObservedLoopCheck) {
	body := fmt.Sprintf("LLM loop check. Flash confidence: %.2f. Main model (%s) confidence: %.2f", c.FirstConfidence, c.DoubleCheckModel, c.DoubleCheckConfidence)
	if c.DoubleCheckConfidence == -1 {
		body = fmt.Sprintf("LLM loop check. Flash confidence: %.2f. Main model (%s) check skipped", c.FirstConfidence, c.DoubleCheckModel)
	}
	t.emit(ctx, eventLoopCheck, c.SessionID, body, time.Now(),
		attribute.String("prompt_id", c.PromptID),
		attribute.Float64("flash_confidence", c.FirstConfidence),
		attribute.String("main_model", c.DoubleCheckModel),
		attribute.Float64("main_model_confidence", c.DoubleCheckConfidence),
	)
}
