package agent

import (
	"time"

	"google.golang.org/genai"
)

// request records one model request and forwards it (Config.OnStats).
// The forwarded Stats is built by the same code from an empty recorder,
// so it holds exactly what this request added, and it is sent outside
// the lock: the receiver (a parent session's AddStats) takes its own.
func (r *statsRecorder) request(modelName, role string, latency time.Duration, usage *genai.GenerateContentResponseUsageMetadata, err error) {
	r.addRequest(modelName, role, latency, usage, err)
	if r.forward != nil {
		one := newStatsRecorder()
		one.addRequest(modelName, role, latency, usage, err)
		r.forward(one.s)
	}
}

// toolCall records one finished tool call and forwards it as request
// does.
func (r *statsRecorder) toolCall(c *ToolCall, decision string) {
	r.addToolCall(c, decision)
	if r.forward != nil {
		one := newStatsRecorder()
		one.addToolCall(c, decision)
		r.forward(one.s)
	}
}
