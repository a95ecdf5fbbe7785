package agent

import (
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// EventType says what an Event reports.
type EventType string

// Event types.
const (
	// EventContent carries a chunk of model text in Text.
	EventContent EventType = "content"
	// EventThought carries a model thought in Thought.
	EventThought EventType = "thought"
	// EventToolCall reports a tool call entering a new status; Call holds a
	// snapshot of it.
	EventToolCall EventType = "tool_call"
	// EventToolOutput carries live output of an executing call in Text.
	EventToolOutput EventType = "tool_output"
	// EventRetry and EventFallback report what the transport did (Notice).
	EventRetry    EventType = "retry"
	EventFallback EventType = "model_fallback"
	// EventCompressed reports that history was compressed (Compression).
	EventCompressed EventType = "chat_compressed"
	// EventLoopDetected reports that the model was stopped repeating itself;
	// Text says how.
	EventLoopDetected EventType = "loop_detected"
	// EventMaxSessionTurns reports that model.maxSessionTurns was reached.
	EventMaxSessionTurns EventType = "max_session_turns"
	// EventInputRequired reports that the turn is paused until the pending
	// confirmations (Session.Pending) are answered and Resume is called;
	// Text holds the text of the model response whose calls wait, the
	// turn's answer so far.
	EventInputRequired EventType = "input_required"
	// EventFinished reports the end of one model response: FinishReason,
	// Usage, Model.
	EventFinished EventType = "finished"
	// EventCitation carries citations of a response in Text.
	EventCitation EventType = "citation"
	// EventWarning carries a non-fatal problem in Text.
	EventWarning EventType = "warning"
	// EventToolBatchStart opens the tool calls of one model response:
	// CallIDs lists them in the order the model made them. It comes after
	// the response's EventFinished and before the first EventToolCall of
	// the batch.
	EventToolBatchStart EventType = "tool_batch_start"
	// EventToolBatchEnd closes a batch once every call in CallIDs is
	// terminal (after their last EventToolCall) and their responses are in
	// history, before anything of the next model call (compression
	// included). Reason is TurnCancelled when the user cancelled every
	// call, in which case the responses do not go back to the model and
	// the turn ends; otherwise it is empty, and the next model call follows
	// unless the turn fails (context cancelled, fatal tool error). A batch
	// paused with EventInputRequired ends in the Resume that finishes it; a
	// paused batch abandoned by a new Send ends without this event (see
	// RepairHistory).
	EventToolBatchEnd EventType = "tool_batch_end"
	// EventTurnEnd is the last event of a turn that ended without an
	// error and without pausing: Reason says why it ended and Text holds
	// the turn's final answer, the text of its last model response (what
	// Gemini CLI's JSON output calls "response").
	EventTurnEnd EventType = "turn_end"
)

// TurnEndReason says why a turn ended (EventTurnEnd) or why a tool batch
// ended it (EventToolBatchEnd).
type TurnEndReason string

// Reasons a turn ends.
const (
	// TurnCompleted: the model answered without calling tools.
	TurnCompleted TurnEndReason = "completed"
	// TurnCancelled: the user cancelled every call of a batch (through
	// Config.Confirm, Answer and Resume, or an IDE's diff), so the
	// cancelled responses were added to history and the model was not
	// called again, as Gemini CLI does; the next prompt carries them.
	TurnCancelled TurnEndReason = "cancelled"
)

// Event is one thing that happened in a session.
type Event struct {
	Type EventType
	// Time is when the event was produced.
	Time time.Time
	// PromptID identifies the user prompt being served.
	PromptID string
	// Text is model text (EventContent), live tool output (EventToolOutput),
	// citations, a warning/loop explanation or the turn's answer
	// (EventTurnEnd, EventInputRequired).
	Text string
	// Thought is the parsed thought (EventThought).
	Thought *Thought
	// Call is a snapshot of a tool call (EventToolCall, EventToolOutput).
	Call *ToolCall
	// Notice is a transport notice (EventRetry, EventFallback).
	Notice *model.Notice
	// Model is the model version that answered (EventFinished) or the model
	// in use.
	Model string
	// ResponseID is the model response's id (its trace id): set on
	// EventFinished, and on EventContent and EventThought as soon as the
	// response has told it, so that faces can tag each chunk.
	ResponseID   string
	FinishReason genai.FinishReason
	Usage        *genai.GenerateContentResponseUsageMetadata
	Compression  *CompressionInfo
	// CallIDs are the calls of a tool batch (EventToolBatchStart,
	// EventToolBatchEnd).
	CallIDs []string
	// Reason says why the turn ended (EventTurnEnd, EventToolBatchEnd).
	Reason TurnEndReason
}

// Thought is a model thought split as Gemini CLI splits it: the first
// **bold** span is the subject, the rest the description.
type Thought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// CompressionInfo describes a history compression.
type CompressionInfo struct {
	OriginalTokens int32
	NewTokens      int32
	Status         string
}

// Status is a tool call's lifecycle state.
type Status string

// Tool call statuses, in lifecycle order.
const (
	StatusValidating       Status = "validating"
	StatusScheduled        Status = "scheduled"
	StatusAwaitingApproval Status = "awaiting_approval"
	StatusExecuting        Status = "executing"
	StatusSuccess          Status = "success"
	StatusError            Status = "error"
	StatusCancelled        Status = "cancelled"
)

// Terminal reports whether s ends the lifecycle.
func (s Status) Terminal() bool {
	return s == StatusSuccess || s == StatusError || s == StatusCancelled
}

// ToolCall is the state of one tool call requested by the model.
type ToolCall struct {
	ID       string
	Name     string
	Args     map[string]any
	PromptID string
	Status   Status
	// Tool is the resolved tool; nil when the name is unknown.
	Tool tool.Tool
	// Description says in one line what the call does.
	Description string
	// Confirmation is set while the call awaits approval.
	Confirmation *Confirmation
	// Outcome is the user's answer, when one was needed.
	Outcome tool.Outcome
	// LiveOutput is the output so far of an executing call.
	LiveOutput string
	// Result is set once the call is terminal.
	Result *tool.Result
	// Response is the functionResponse parts sent to the model.
	Response []*genai.Part
	Started  time.Time
	Ended    time.Time

	// Checkpoint names the checkpoint taken before the call's edit
	// (general.checkpointing), once the call has run
	// (tool.RecordCheckpoint).
	Checkpoint string

	call tool.Call
	hk   callHooks
}

func (c *ToolCall) snapshot() *ToolCall {
	cp := *c
	return &cp
}

// Confirmation is a pending request for a user's approval of a tool call.
// A face answers it with Answer, either while handling the event (the turn
// then goes on at once) or later, after the turn paused with
// EventInputRequired, followed by Session.Resume.
type Confirmation struct {
	CallID  string
	Details *tool.ConfirmationDetails
	// OnceOnly is set when the session's policy counts every answer as
	// once (security.disableAlwaysAllow): a face then offers no "always
	// allow" choice, whatever its wire's usual options are.
	OnceOnly bool

	mu       sync.Mutex
	decision *tool.Decision
}

// Answer records the user's decision. Only the first answer counts.
func (c *Confirmation) Answer(d tool.Decision) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.decision == nil {
		c.decision = &d
	}
}

// Decision returns the recorded decision, if any.
func (c *Confirmation) Decision() (tool.Decision, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.decision == nil {
		return tool.Decision{}, false
	}
	return *c.decision, true
}
