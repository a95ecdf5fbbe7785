// Package telemetry sends Castor's OpenTelemetry traces, metrics and logs
// as Gemini CLI 0.61 does with its telemetry.* settings and --telemetry
// flags: OTLP over gRPC or HTTP to a collector, or JSON lines to a file.
//
// Resolve computes the configuration (flags, then GEMINI_TELEMETRY_*
// variables, then settings); Start builds the pipeline and returns a
// *Telemetry, which is an agent.Observer: the engine tells it of every
// turn (a user_prompt span and the gemini_cli.user_prompt event), model
// request (an llm_call span, gemini_cli.api_request/api_response/api_error
// events, gemini_cli.api.request.*, gemini_cli.token.usage and the GenAI
// gen_ai.client.* metrics) and tool call (a tool_call span, the
// gemini_cli.tool_call event, gemini_cli.tool.call.*), under Gemini CLI's
// names and attributes. Shutdown flushes.
//
// Nothing of OpenTelemetry runs unless telemetry is enabled: the CLI calls
// Start only then, and no exporter dials before its first export. Prompt,
// response and argument text is sent only with logPrompts (off by
// default, unlike Gemini CLI).
package telemetry
