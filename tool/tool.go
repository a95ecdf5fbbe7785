package tool

import (
	"context"

	"google.golang.org/genai"
)

// Kind classifies what a tool does; approval policy and UIs use it.
type Kind string

// Tool kinds, as Gemini CLI names them.
const (
	KindRead        Kind = "read"
	KindEdit        Kind = "edit"
	KindDelete      Kind = "delete"
	KindMove        Kind = "move"
	KindSearch      Kind = "search"
	KindExecute     Kind = "execute"
	KindThink       Kind = "think"
	KindAgent       Kind = "agent"
	KindFetch       Kind = "fetch"
	KindCommunicate Kind = "communicate"
	KindPlan        Kind = "plan"
	KindSwitchMode  Kind = "switch_mode"
	KindOther       Kind = "other"
)

// ReadOnly reports whether tools of this kind never change anything, so
// that they may run without approval and in plan mode.
func (k Kind) ReadOnly() bool {
	switch k {
	case KindRead, KindSearch, KindThink:
		return true
	}
	return false
}

// Tool is something the model can call.
type Tool interface {
	// Name is the function name the model uses.
	Name() string
	// DisplayName is the human name shown in UIs (e.g. "ReadFile").
	DisplayName() string
	// Description tells the model what the tool does.
	Description() string
	// Kind classifies the tool.
	Kind() Kind
	// Schema is the JSON Schema of the tool's parameters.
	Schema() map[string]any
	// Build checks args beyond the schema (which the registry has already
	// validated) and returns a call ready to confirm and execute. A returned
	// *Error is given to the model as is.
	Build(args map[string]any) (Call, error)
}

// Call is one validated invocation of a tool.
type Call interface {
	// Describe says in one line what the call will do.
	Describe() string
	// Confirmation returns what a user must see to approve the call, or nil
	// when the call needs no approval whatever the policy says (for example
	// an edit that changes nothing).
	Confirmation(ctx context.Context) (*ConfirmationDetails, error)
	// Execute runs the call. Live output, if the tool has any, goes to out,
	// which may be nil. Execute reports failures in Result.Error, not by
	// panicking; ctx cancellation must stop it promptly.
	Execute(ctx context.Context, out func(string)) *Result
}

// Aliased is implemented by tools that also answer to older names and
// parameter spellings (Gemini CLI renamed several tools over time).
type Aliased interface {
	// Aliases lists other names the model may use for this tool.
	Aliases() []string
}

// ArgNormalizer is implemented by tools that accept several spellings of
// their parameters. Normalize runs before schema validation and maps the
// other spellings onto the declared ones.
type ArgNormalizer interface {
	NormalizeArgs(args map[string]any) map[string]any
}

// Declaration builds the function declaration sent to the model.
func Declaration(t Tool) *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:                 t.Name(),
		Description:          t.Description(),
		ParametersJsonSchema: t.Schema(),
	}
}

type callIDKey struct{}

// WithCallID returns a context that carries the id of the call being
// executed, so tools can name what they save after it.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns the id of the call being executed, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

type checkpointKey struct{}

// WithCheckpointRecorder returns a context in which RecordCheckpoint
// hands record the name of a checkpoint taken for the executing call: the
// engine reports it with the call (agent.ToolCall.Checkpoint).
func WithCheckpointRecorder(ctx context.Context, record func(name string)) context.Context {
	return context.WithValue(ctx, checkpointKey{}, record)
}

// RecordCheckpoint tells the engine the name of the checkpoint taken
// before the executing call's edit; without a recorder it does nothing.
func RecordCheckpoint(ctx context.Context, name string) {
	if record, _ := ctx.Value(checkpointKey{}).(func(string)); record != nil && name != "" {
		record(name)
	}
}

type promptIDKey struct{}

// WithPromptID returns a context that carries the id of the user prompt
// whose turn is executing the call ("<session>########<n>"), so tools and
// their hooks can tie what they record to it (checkpoints do).
func WithPromptID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, promptIDKey{}, id)
}

// PromptID returns the id of the prompt the executing call belongs to, or
// "".
func PromptID(ctx context.Context) string {
	id, _ := ctx.Value(promptIDKey{}).(string)
	return id
}
