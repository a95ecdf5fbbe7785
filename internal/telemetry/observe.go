package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/telemetry/otlp"
	"github.com/castor-dev/castor/model"
)

// Gemini CLI 0.61's metric names (packages/core/src/telemetry/metrics.ts)
// and the GenAI semantic conventions' two client metrics.
const (
	metricSessionCount    = "gemini_cli.session.count"
	metricAPIRequestCount = "gemini_cli.api.request.count"
	metricAPIRequestLat   = "gemini_cli.api.request.latency"
	metricTokenUsage      = "gemini_cli.token.usage"
	metricToolCallCount   = "gemini_cli.tool.call.count"
	metricToolCallLatency = "gemini_cli.tool.call.latency"
	metricGenAITokenUsage = "gen_ai.client.token.usage"
	metricGenAIOpDuration = "gen_ai.client.operation.duration"
	metricFileOperations  = "gemini_cli.file.operation.count"
	metricLinesChanged    = "gemini_cli.lines.changed"
	eventUserPrompt       = "gemini_cli.user_prompt"
	eventAPIRequest       = "gemini_cli.api_request"
	eventAPIResponse      = "gemini_cli.api_response"
	eventAPIError         = "gemini_cli.api_error"
	eventToolCall         = "gemini_cli.tool_call"
)

// Span names: Gemini CLI 0.61's operations (GeminiCliOperation), also
// given as gen_ai.operation.name.
const (
	opUserPrompt = "user_prompt"
	opLLMCall    = "llm_call"
	opToolCall   = "tool_call"
	opAgentCall  = "agent_call"
	// genAIOperation is the GenAI conventions' operation of a model call,
	// as Gemini CLI names it on its gen_ai.client metrics.
	genAIOperation = "generate_content"
	// maxAttr bounds a large attribute, as Gemini CLI's
	// truncateForTelemetry does.
	maxAttr = 10000
)

// instruments are Castor's counters and histograms, as Gemini CLI's.
type instruments struct {
	sessions, apiRequests, tokens, toolCalls *instrument[int64]
	fileOps, linesChanged, agentRuns         *instrument[int64]
	compressions, routingFailures            *instrument[int64]
	agentDuration, routingLatency            *instrument[int64]
	apiLatency, toolLatency, genAITokens     *instrument[int64]
	genAIDuration                            *instrument[float64]
}

func (m *instruments) init(mt *meter) {
	counter := func(name, desc string) *instrument[int64] {
		return newInstrument[int64](mt, otlp.KindCounter, name, desc, "")
	}
	histogram := func(name, desc, unit string) *instrument[int64] {
		return newInstrument[int64](mt, otlp.KindHistogram, name, desc, unit)
	}
	m.sessions = counter(metricSessionCount, "Count of CLI sessions started.")
	m.apiRequests = counter(metricAPIRequestCount, "Counts API requests, tagged by model and status.")
	m.apiLatency = histogram(metricAPIRequestLat, "Latency of API requests in milliseconds.", "ms")
	m.tokens = counter(metricTokenUsage, "Counts the total number of tokens used.")
	m.toolCalls = counter(metricToolCallCount, "Counts tool calls, tagged by function name and success.")
	m.toolLatency = histogram(metricToolCallLatency, "Latency of tool calls in milliseconds.", "ms")
	m.genAITokens = histogram(metricGenAITokenUsage, "Number of input and output tokens used.", "token")
	m.genAIDuration = newInstrument[float64](mt, otlp.KindHistogram, metricGenAIOpDuration, "GenAI operation duration.", "s")
	m.fileOps = counter(metricFileOperations, "Counts file operations (create, read, update).")
	m.linesChanged = counter(metricLinesChanged, "Number of lines changed (from file diffs).")
	m.agentRuns = counter(metricAgentRuns, "Counts agent runs, tagged by name and termination reason.")
	m.agentDuration = histogram(metricAgentMillis, "Duration of agent runs in milliseconds.", "ms")
	m.compressions = counter(eventChatCompression, "Counts chat compression events.")
	m.routingLatency = histogram(metricRoutingLatency, "Latency of model routing decisions in milliseconds.", "ms")
	m.routingFailures = counter(metricRoutingFailures, "Counts model routing failures.")
}

// common are the attributes of every datum (Gemini CLI's
// getCommonAttributes, less the Google account and experiments).
func (t *Telemetry) common(sessionID string) []attribute.KeyValue {
	kv := []attribute.KeyValue{attribute.Bool("interactive", t.info.Interactive)}
	if t.info.InstallationID != "" {
		kv = append(kv, attribute.String("installation.id", t.info.InstallationID))
	}
	if sessionID != "" {
		kv = append(kv, attribute.String("session.id", sessionID))
	}
	return slices.Clip(kv) // callers append their own
}

// span starts a span with the attributes Gemini CLI gives every one.
func (t *Telemetry) span(ctx context.Context, op, sessionID string, start time.Time, kv ...attribute.KeyValue) (context.Context, *span) {
	kv = append(kv,
		attribute.String("gen_ai.operation.name", op),
		attribute.String("gen_ai.agent.name", ServiceName),
		attribute.String("gen_ai.conversation.id", sessionID),
	)
	return t.tracer.start(ctx, op, start, kv)
}

// emit sends one event log record named as Gemini CLI names it.
func (t *Telemetry) emit(ctx context.Context, name, sessionID, body string, at time.Time, kv ...attribute.KeyValue) {
	r := &otlp.LogRecord{EventName: name, Timestamp: at, ObservedTimestamp: time.Now(),
		Severity: otlp.SeverityInfo, Body: attribute.StringValue(body)}
	all := append(t.common(sessionID), attribute.String("event.name", name), attribute.String("event.timestamp", at.UTC().Format(time.RFC3339Nano)))
	t.logger.emit(ctx, r, append(all, kv...))
}

// TurnStarted opens the turn's user_prompt span and logs
// gemini_cli.user_prompt, with the prompt's text only when LogPrompts.
func (t *Telemetry) TurnStarted(ctx context.Context, turn *agent.ObservedTurn) (context.Context, func(agent.TurnEndReason, error)) {
	kv := []attribute.KeyValue{
		attribute.String("gen_ai.prompt.name", turn.PromptID),
		attribute.String("gen_ai.request.model", turn.Model),
	}
	if t.cfg.Traces && t.cfg.LogPrompts && turn.Prompt != "" {
		kv = append(kv, attribute.String("gen_ai.input.messages", truncate(turn.Prompt)))
	}
	op := opUserPrompt
	if turn.Subagent {
		// A subagent's turn is its parent's agent call, not a prompt
		// the user typed: no gemini_cli.user_prompt event either.
		op = opAgentCall
	}
	ctx, sp := t.span(ctx, op, turn.SessionID, turn.Start, kv...)
	if !turn.Resumed && !turn.Subagent {
		at := []attribute.KeyValue{
			attribute.Int("prompt_length", len([]rune(turn.Prompt))),
			attribute.String("prompt_id", turn.PromptID),
		}
		if t.cfg.LogPrompts {
			at = append(at, attribute.String("prompt", turn.Prompt))
		}
		t.emit(ctx, eventUserPrompt, turn.SessionID, fmt.Sprintf("User prompt. Length: %d.", len([]rune(turn.Prompt))), turn.Start, at...)
	}
	return ctx, func(reason agent.TurnEndReason, err error) {
		if reason != "" {
			sp.SetAttributes(attribute.String("castor.turn.end_reason", string(reason)))
		}
		if err != nil {
			sp.RecordError(err, time.Time{})
			sp.SetError(err.Error())
		}
		sp.End(time.Time{})
	}
}

// ModelCalled records one model request: an llm_call span (ended at
// once, its start the request's), the api_request and api_response or
// api_error events, and the request, latency and token metrics.
func (t *Telemetry) ModelCalled(ctx context.Context, m *agent.ObservedModelCall) {
	end := m.Start.Add(m.Duration)
	respModel := m.ResponseModel
	if respModel == "" {
		respModel = m.Model
	}
	kv := []attribute.KeyValue{
		attribute.String("gen_ai.request.model", m.Model),
		attribute.String("gen_ai.response.model", respModel),
		attribute.String("gen_ai.prompt.name", m.PromptID),
		attribute.String("gen_ai.provider.name", "gcp.gen_ai"),
	}
	if m.Role != "" && m.Role != "main" {
		kv = append(kv, attribute.String("castor.llm.role", m.Role))
	}
	if u := m.Usage; u != nil {
		kv = append(kv,
			attribute.Int("gen_ai.usage.input_tokens", int(u.PromptTokenCount)),
			attribute.Int("gen_ai.usage.output_tokens", int(u.CandidatesTokenCount)),
		)
	}
	if m.ResponseID != "" {
		kv = append(kv, attribute.String("gen_ai.response.id", m.ResponseID))
	}
	if m.FinishReason != "" {
		kv = append(kv, attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(m.FinishReason)}))
	}
	if t.cfg.Traces && m.Request != nil && m.Request.Config != nil {
		if si := m.Request.Config.SystemInstruction; si != nil {
			kv = append(kv, attribute.String("gen_ai.system_instructions", jsonAttr(si)))
		}
		if len(m.Request.Config.Tools) > 0 {
			kv = append(kv, attribute.String("gen_ai.tool.definitions", jsonAttr(m.Request.Config.Tools)))
		}
	}
	if t.cfg.Traces && t.cfg.LogPrompts {
		if m.Request != nil {
			kv = append(kv, attribute.String("gen_ai.input.messages", jsonAttr(m.Request.Contents)))
		}
		if m.ResponseText != "" {
			kv = append(kv, attribute.String("gen_ai.output.messages", truncate(m.ResponseText)))
		}
	}
	_, sp := t.span(ctx, opLLMCall, m.SessionID, m.Start, kv...)
	if m.Err != nil {
		sp.RecordError(m.Err, end)
		sp.SetError(m.Err.Error())
	}
	sp.End(end)

	common := t.common(m.SessionID)
	ms := m.Duration.Milliseconds()
	role := orDefault(m.Role, "main")
	auth := t.authType(m.SessionID) // as Gemini CLI's api_* events
	req := []attribute.KeyValue{attribute.String("model", m.Model), attribute.String("prompt_id", m.PromptID), attribute.String("role", role)}
	req = append(req, auth...)
	if t.cfg.LogPrompts && m.Request != nil {
		req = append(req, attribute.String("request_text", jsonAttr(m.Request.Contents)))
	}
	t.emit(ctx, eventAPIRequest, m.SessionID, "API request to "+m.Model+".", m.Start, req...)
	genAI := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", genAIOperation),
		attribute.String("gen_ai.provider.name", "gcp.gen_ai"),
		attribute.String("gen_ai.request.model", m.Model),
		attribute.String("gen_ai.response.model", respModel),
	}
	if m.Err != nil {
		status := statusCode(m.Err)
		errType := errorType(m.Err)
		errAttrs := []attribute.KeyValue{
			attribute.String("error.message", m.Err.Error()), attribute.String("error", m.Err.Error()),
			attribute.String("model_name", respModel), attribute.String("model", respModel),
			attribute.Int64("duration", ms), attribute.Int64("duration_ms", ms),
			attribute.String("prompt_id", m.PromptID), attribute.String("role", role),
			status, attribute.String("error.type", errType),
		}
		t.emit(ctx, eventAPIError, m.SessionID,
			fmt.Sprintf("API error for %s. Error: %s. Duration: %dms.", respModel, m.Err.Error(), ms), end,
			append(errAttrs, auth...)...)
		t.m.apiRequests.Add(ctx, 1, append(common,
			attribute.String("model", respModel), status, attribute.String("error_type", errType))...)
		t.m.apiLatency.Record(ctx, ms, append(common, attribute.String("model", respModel))...)
		t.m.genAIDuration.Record(ctx, m.Duration.Seconds(), append(append(common, genAI...), attribute.String("error.type", errType))...)
		return
	}
	var u genai.GenerateContentResponseUsageMetadata
	if m.Usage != nil {
		u = *m.Usage
	}
	resp := []attribute.KeyValue{
		attribute.String("model", respModel), attribute.Int64("duration_ms", ms),
		attribute.Int("input_token_count", int(u.PromptTokenCount)),
		attribute.Int("output_token_count", int(u.CandidatesTokenCount)),
		attribute.Int("cached_content_token_count", int(u.CachedContentTokenCount)),
		attribute.Int("thoughts_token_count", int(u.ThoughtsTokenCount)),
		attribute.Int("tool_token_count", int(u.ToolUsePromptTokenCount)),
		attribute.Int("total_token_count", int(u.TotalTokenCount)),
		attribute.String("prompt_id", m.PromptID), attribute.Int("status_code", 200),
		attribute.String("role", role),
	}
	resp = append(resp, auth...)
	if m.FinishReason != "" {
		resp = append(resp, attribute.StringSlice("finish_reasons", []string{string(m.FinishReason)}))
	}
	if t.cfg.LogPrompts && m.ResponseText != "" {
		resp = append(resp, attribute.String("response_text", m.ResponseText))
	}
	t.emit(ctx, eventAPIResponse, m.SessionID, fmt.Sprintf("API response from %s. Status: 200. Duration: %dms.", respModel, ms), end, resp...)
	t.m.apiRequests.Add(ctx, 1, append(common, attribute.String("model", respModel), attribute.Int("status_code", 200))...)
	t.m.apiLatency.Record(ctx, ms, append(common, attribute.String("model", respModel))...)
	t.m.genAIDuration.Record(ctx, m.Duration.Seconds(), append(common, genAI...)...)
	for _, tk := range []struct {
		kind string
		n    int32
	}{
		{"input", u.PromptTokenCount}, {"output", u.CandidatesTokenCount}, {"cache", u.CachedContentTokenCount},
		{"thought", u.ThoughtsTokenCount}, {"tool", u.ToolUsePromptTokenCount},
	} {
		t.m.tokens.Add(ctx, int64(tk.n), append(common, attribute.String("model", respModel), attribute.String("type", tk.kind))...)
		if tk.kind == "input" || tk.kind == "output" {
			t.m.genAITokens.Record(ctx, int64(tk.n), append(append(common, genAI...), attribute.String("gen_ai.token.type", tk.kind))...)
		}
	}
}

// ToolCalled records one ended tool call: a tool_call span, the
// gemini_cli.tool_call event (arguments only with LogPrompts) and the
// tool call count and latency metrics.
func (t *Telemetry) ToolCalled(ctx context.Context, o *agent.ObservedToolCall) {
	c := o.Call
	start, end := c.Started, c.Ended
	if start.IsZero() {
		start = time.Now()
	}
	if end.Before(start) {
		end = start
	}
	toolType, server := "native", ""
	if sn, ok := c.Tool.(interface{ ServerName() string }); ok && sn.ServerName() != "" {
		toolType, server = "mcp", sn.ServerName()
	}
	success := c.Status == agent.StatusSuccess
	kv := []attribute.KeyValue{
		attribute.String("gen_ai.tool.name", c.Name),
		attribute.String("gen_ai.tool.call_id", c.ID),
		attribute.String("gen_ai.prompt.name", c.PromptID),
	}
	if c.Tool != nil {
		kv = append(kv, attribute.String("gen_ai.tool.description", truncate(c.Tool.Description())))
	}
	if t.cfg.Traces && t.cfg.LogPrompts {
		kv = append(kv, attribute.String("gen_ai.input.messages", jsonAttr(c.Args)))
		if c.Result != nil {
			kv = append(kv, attribute.String("gen_ai.output.messages", truncate(c.Result.ResponseText())))
		}
	}
	_, sp := t.span(ctx, opToolCall, o.SessionID, start, kv...)
	var errMsg, errType string
	if c.Result != nil && c.Result.Error != nil {
		errMsg, errType = c.Result.Error.Message, string(c.Result.Error.Type)
	}
	if !success {
		sp.SetError(orDefault(errMsg, string(c.Status)))
	}
	sp.End(end)

	ms := end.Sub(start).Milliseconds()
	at := []attribute.KeyValue{
		attribute.String("function_name", c.Name), attribute.Int64("duration_ms", ms),
		attribute.Bool("success", success), attribute.String("prompt_id", c.PromptID),
		attribute.String("tool_type", toolType),
		attribute.Int64("start_time", start.UnixMilli()), attribute.Int64("end_time", end.UnixMilli()),
	}
	if o.Decision != "" {
		at = append(at, attribute.String("decision", o.Decision))
	}
	if server != "" {
		at = append(at, attribute.String("mcp_server_name", server))
	}
	if t.cfg.LogPrompts && c.Args != nil {
		at = append(at, attribute.String("function_args", jsonAttr(c.Args)))
	}
	if errMsg != "" {
		at = append(at, attribute.String("error", errMsg), attribute.String("error.message", errMsg))
		if errType != "" {
			at = append(at, attribute.String("error_type", errType), attribute.String("error.type", errType))
		}
	}
	body := "Tool call: " + c.Name
	if o.Decision != "" {
		body += ". Decision: " + o.Decision
	}
	body += fmt.Sprintf(". Success: %t. Duration: %dms.", success, ms)
	t.emit(ctx, eventToolCall, o.SessionID, body, end, at...)

	common := t.common(o.SessionID)
	count := append(common, attribute.String("function_name", c.Name), attribute.Bool("success", success), attribute.String("tool_type", toolType))
	if o.Decision != "" {
		count = append(count, attribute.String("decision", o.Decision))
	}
	t.m.toolCalls.Add(ctx, 1, count...)
	t.m.toolLatency.Record(ctx, ms, append(common, attribute.String("function_name", c.Name))...)
	t.fileCalled(ctx, o.SessionID, c, end, common)
	t.agentCalled(ctx, o.SessionID, c, start, end, common)
}

// statusCode is the status_code attribute of a failed request: the
// service's HTTP status, else "error" as Gemini CLI says.
func statusCode(err error) attribute.KeyValue {
	var ae *model.APIError
	if errors.As(err, &ae) && ae.StatusCode != 0 {
		return attribute.Int("status_code", ae.StatusCode)
	}
	return attribute.String("status_code", "error")
}

// errorType names a failure's kind.
func errorType(err error) string {
	var ae *model.APIError
	switch {
	case errors.As(err, &ae):
		if ae.Status != "" {
			return ae.Status
		}
		return "ApiError"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	}
	return "unknown"
}

func jsonAttr(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return truncate(string(b))
}

// truncate bounds a large attribute as Gemini CLI's truncateForTelemetry.
func truncate(s string) string {
	if len(s) <= maxAttr {
		return s
	}
	return strings.ToValidUTF8(s[:maxAttr], "") + "...[TRUNCATED: original length " + strconv.Itoa(len(s)) + "]"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
