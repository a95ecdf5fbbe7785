package castor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/setup"
)

// HookEvent names a point of the agent loop where hooks run.
type HookEvent = agent.HookEvent

// The hook events, with Gemini CLI's names.
const (
	SessionStart        = agent.HookSessionStart
	SessionEnd          = agent.HookSessionEnd
	BeforeAgent         = agent.HookBeforeAgent
	AfterAgent          = agent.HookAfterAgent
	BeforeModel         = agent.HookBeforeModel
	AfterModel          = agent.HookAfterModel
	BeforeToolSelection = agent.HookBeforeToolSelection
	BeforeTool          = agent.HookBeforeTool
	AfterTool           = agent.HookAfterTool
	PreCompress         = agent.HookPreCompress
	Notification        = agent.HookNotification
)

// HookInput is what a hook receives: the common fields, then those of
// its event (ToolName and ToolInput for tool events, Prompt for agent
// events, LLMRequest for model events…). It is what command hooks read as
// JSON.
type HookInput = agent.HookInput

// HookOutput is what a hook answers; nil means "nothing to say".
type HookOutput = agent.HookOutput

// HookSpecificOutput holds an event's own output fields
// (AdditionalContext, ToolInput, LLMResponse, ToolConfig…).
type HookSpecificOutput = agent.HookSpecificOutput

// LLMRequest, LLMResponse and HookToolConfig are the stable views of
// model requests and responses that model hooks read and return.
type (
	LLMRequest     = agent.LLMRequest
	LLMMessage     = agent.LLMMessage
	LLMResponse    = agent.LLMResponse
	LLMCandidate   = agent.LLMCandidate
	LLMContent     = agent.LLMContent
	HookToolConfig = agent.HookToolConfig
	TailToolCall   = agent.TailToolCall
)

// HookFunc is a hook written in Go. An error is shown as a warning and
// does not stop the agent; to block or halt, return Block or Halt.
type HookFunc func(ctx context.Context, in *HookInput, sc SessionContext) (*HookOutput, error)

// Hook is a programmatic hook. Matcher selects tools (a regular
// expression) for BeforeTool and AfterTool, and the source, reason,
// trigger or notification type for lifecycle events; empty or "*"
// matches everything. Hooks whose Sequential is set run one after
// another, each seeing the input as the previous one changed it.
type Hook struct {
	Event      HookEvent
	Name       string
	Matcher    string
	Sequential bool
	// Timeout bounds one run (default one minute).
	Timeout time.Duration
	Func    HookFunc
}

// WithHooks adds programmatic hooks; they run with those of the
// settings files, before them. A hook without a Func or with an Event
// that is not one of the hook events makes New fail with a *ConfigError.
func WithHooks(hooks ...Hook) Option {
	return func(o *options) {
		for _, h := range hooks {
			f := h.Func
			if f == nil {
				// New refuses it, naming the hook (checkOptions).
				o.Hooks = append(o.Hooks, setup.RuntimeHook{Event: h.Event, Name: h.Name})
				continue
			}
			o.Hooks = append(o.Hooks, setup.RuntimeHook{
				Event: h.Event, Name: h.Name, Matcher: h.Matcher, Sequential: h.Sequential, Timeout: h.Timeout,
				// Numbered as checkOptions numbers them, across every WithHooks.
				Origin: fmt.Sprintf("%s hook %d of WithHooks", h.Event, len(o.Hooks)+1),
				Func: func(ctx context.Context, a *setup.Agent, in *agent.HookInput) (*agent.HookOutput, error) {
					sc := newSessionContext(a, hookTime(in.Timestamp))
					sc.TranscriptPath = in.TranscriptPath
					return f(ctx, in, sc)
				},
			})
		}
	}
}

func hookTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Now()
	}
	return t
}

// Block returns an output that denies: a BeforeTool hook blocks the call
// (the model is told "Tool execution blocked: <reason>"), a BeforeAgent
// hook drops the prompt, an AfterAgent hook sends reason back to the
// model as a new prompt, an AfterTool hook replaces the result.
func Block(reason string) *HookOutput {
	return &HookOutput{Decision: "deny", Reason: reason}
}

// Halt returns an output that stops the whole agent loop (continue:
// false).
func Halt(reason string) *HookOutput {
	f := false
	return &HookOutput{Continue: &f, StopReason: reason}
}

// AddContext returns an output whose additional context reaches the
// model inside <hook_context> (SessionStart, BeforeAgent, AfterTool).
func AddContext(text string) *HookOutput {
	return &HookOutput{HookSpecificOutput: &HookSpecificOutput{AdditionalContext: text}}
}

// RunAsCommand runs the hook as a command hook of a settings file: it
// reads the input from stdin, calls Func and prints its output as JSON,
// then exits with the code Gemini CLI expects (0; 1 with the error on
// stderr when Func fails or panics, never the 2 that would block). The
// hook's Matcher is not applied: the
// settings' matcher selects when the command runs.
func (h Hook) RunAsCommand() {
	os.Exit(h.RunCommand(context.Background(), os.Stdin, os.Stdout, os.Stderr))
}

// RunCommand is RunAsCommand with explicit streams; it returns the exit
// code instead of exiting.
func (h Hook) RunCommand(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "hook %s: reading stdin: %v\n", h.Name, err)
		return 1
	}
	var in HookInput
	if err := json.Unmarshal(data, &in); err != nil {
		fmt.Fprintf(stderr, "hook %s: stdin is not a hook input: %v\n", h.Name, err)
		return 1
	}
	if h.Event != "" && in.HookEventName != "" && in.HookEventName != h.Event {
		fmt.Fprintf(stderr, "hook %s handles %s, not %s\n", h.Name, h.Event, in.HookEventName)
		return 1
	}
	if h.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.Timeout)
		defer cancel()
	}
	if h.Func == nil {
		fmt.Fprintf(stderr, "hook %s has no Func\n", h.Name)
		return 1
	}
	sc := commandContext(in.SessionID, in.Cwd, in.TranscriptPath, hookTime(in.Timestamp))
	out, err := h.callFunc(ctx, &in, sc)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if out == nil {
		return 0
	}
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		fmt.Fprintf(stderr, "hook %s: writing output: %v\n", h.Name, err)
		return 1
	}
	return 0
}

// callFunc calls the hook's Func, turning a panic into an error: a Go
// program dying of a panic exits 2, which Gemini CLI reads as a hook
// that blocks, not one that failed.
func (h Hook) callFunc(ctx context.Context, in *HookInput, sc SessionContext) (out *HookOutput, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("hook %s panicked: %v", h.Name, p)
		}
	}()
	return h.Func(ctx, in, sc)
}
