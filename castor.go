// Package castor is the Go SDK of Castor, a Gemini CLI compatible coding
// agent. An Agent drives Gemini over a workspace with the same settings,
// memory files, tools and approval rules as the castor command:
//
//	a, err := castor.New(castor.WithWorkDir("/path/to/project"))
//	if err != nil { ... }
//	defer a.Close()
//	res, err := a.Send(ctx, "what does this project do?")
//	fmt.Println(res.Text)
//
// Stream gives the engine's events as they happen instead.
package castor

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/checkpoint"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// Version is Castor's version, reported by --version and in the
// User-Agent header.
var Version = "0.1.0"

// DefaultModel is the model used when neither an option, the settings nor
// GEMINI_MODEL name one.
const DefaultModel = "gemini-2.5-pro"

// SessionContext is what dynamic instructions (and, later, tools and
// hooks) learn about the session they serve.
type SessionContext struct {
	SessionID  string
	WorkDir    string
	Timestamp  time.Time
	Transcript []*genai.Content
}

// Options is the whole configuration of an Agent. Most programs set it
// through the With… functions given to New.
type Options struct {
	// WorkDir is the workspace root (default: the current directory).
	WorkDir string
	// IncludeDirectories are further workspace directories.
	IncludeDirectories []string
	// Model is the model name (default: settings model.name, GEMINI_MODEL,
	// then DefaultModel).
	Model string
	// Instructions are added where GEMINI.md memory goes in the system
	// instruction; InstructionsFunc computes them for each model call.
	Instructions     string
	InstructionsFunc func(SessionContext) string
	// Tools are custom tools, added to the built-in ones.
	Tools []tool.Tool
	// ApprovalMode overrides general.defaultApprovalMode.
	ApprovalMode policy.Mode
	// AllowedTools are extra --allowed-tools rules.
	AllowedTools []string
	// AllowedMCPServerNames limits the MCP servers started to these
	// (--allowed-mcp-server-names).
	AllowedMCPServerNames []string
	// Confirm answers confirmations synchronously. With it the agent is
	// interactive: calls that need approval are asked for instead of being
	// refused.
	Confirm func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)
	// Interactive makes calls that need approval pause the turn
	// (EventInputRequired) even without Confirm.
	Interactive bool
	// Client replaces the model transport (tests, custom backends).
	Client model.Model
	// FakeResponses replays a Gemini CLI --fake-responses JSONL file;
	// FakeResponsesNonStrict matches entries by method instead of order.
	FakeResponses          string
	FakeResponsesNonStrict bool
	// RecordResponses records the model's responses in the same format.
	RecordResponses string
	// SessionID fixes the session id (default: a new UUID).
	SessionID string
	// Resume continues a recorded session: "latest", a 1-based index or a
	// session id.
	Resume string
	// IDE turns IDE mode on (the --ide flag) whatever the ide.enabled
	// setting says: editor context from the IDE companion, edits confirmed
	// as diffs in the IDE.
	IDE bool
	// History restores a conversation kept elsewhere (a task store): the
	// session continues from it without the environment context being
	// added again.
	History []*genai.Content
	// DisableRecording turns off chat recording under ~/.gemini/tmp.
	DisableRecording bool
	// IgnoreSettings skips settings files, .env and GEMINI.md: only the
	// options count.
	IgnoreSettings bool
	// EnforceTrust refuses a workspace that folder trust does not trust,
	// as headless Gemini CLI does. Without it the workspace counts as
	// trusted: a program that names its work directory vouches for it.
	EnforceTrust bool
	// Getenv reads the environment (default os.LookupEnv-backed).
	Getenv func(string) string
	// HomeDir is the user's home directory (default os.UserHomeDir).
	HomeDir string
	// Retry tunes retries of failed model calls.
	Retry *model.RetryOptions
	// Warn receives non-fatal setup problems (default: ignored).
	Warn func(string)
}

// Option configures an Agent.
type Option func(*Options)

// WithWorkDir sets the workspace root.
func WithWorkDir(dir string) Option { return func(o *Options) { o.WorkDir = dir } }

// WithModel sets the model name.
func WithModel(name string) Option { return func(o *Options) { o.Model = name } }

// WithInstructions adds static instructions to the system instruction.
func WithInstructions(s string) Option { return func(o *Options) { o.Instructions = s } }

// WithInstructionsFunc adds instructions computed for each model call.
func WithInstructionsFunc(f func(SessionContext) string) Option {
	return func(o *Options) { o.InstructionsFunc = f }
}

// WithTools adds custom tools.
func WithTools(tools ...tool.Tool) Option {
	return func(o *Options) { o.Tools = append(o.Tools, tools...) }
}

// WithApprovalMode sets the approval mode.
func WithApprovalMode(m policy.Mode) Option { return func(o *Options) { o.ApprovalMode = m } }

// WithConfirm answers confirmations synchronously (see Options.Confirm).
func WithConfirm(f func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)) Option {
	return func(o *Options) { o.Confirm = f }
}

// WithClient replaces the model transport.
func WithClient(m model.Model) Option { return func(o *Options) { o.Client = m } }

// WithFakeResponses replays a --fake-responses JSONL file.
func WithFakeResponses(path string) Option { return func(o *Options) { o.FakeResponses = path } }

// WithOptions sets every option at once.
func WithOptions(all Options) Option { return func(o *Options) { *o = all } }

// Agent is a configured Castor agent with one conversation.
type Agent struct {
	opts        Options
	session     *agent.Session
	env         *environment
	closers     []func() error
	checkpoints *checkpoint.Service
}

// Result is the outcome of Send.
type Result struct {
	// Text is the text of the model's last response.
	Text string
	// SessionID identifies the conversation.
	SessionID string
	// Stats are the session's metrics so far.
	Stats agent.Stats
	// Pending lists the calls waiting for confirmation when the turn paused.
	Pending []*agent.ToolCall
}

// New builds an agent: it loads settings, memory and credentials the way
// the castor command does, and starts (or resumes) a session.
func New(opts ...Option) (*Agent, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	return build(o)
}

// Session returns the engine session, for faces that need all of it.
func (a *Agent) Session() *agent.Session { return a.session }

// SessionID returns the session id.
func (a *Agent) SessionID() string { return a.session.ID() }

// Model returns the model in use.
func (a *Agent) Model() string { return a.session.Model() }

// Stream sends a prompt and returns the engine's events.
func (a *Agent) Stream(ctx context.Context, prompt string) iter.Seq2[*agent.Event, error] {
	return a.session.Send(ctx, genai.NewPartFromText(prompt))
}

// Send sends a prompt and waits for the turn to end.
func (a *Agent) Send(ctx context.Context, prompt string) (*Result, error) {
	var text strings.Builder
	newTurn := false
	for ev, err := range a.Stream(ctx, prompt) {
		if err != nil {
			return &Result{Text: text.String(), SessionID: a.SessionID(), Stats: a.session.Stats()}, err
		}
		switch ev.Type {
		case agent.EventContent:
			if newTurn {
				text.Reset()
				newTurn = false
			}
			text.WriteString(ev.Text)
		case agent.EventToolCall:
			newTurn = true
		}
	}
	return &Result{Text: text.String(), SessionID: a.SessionID(), Stats: a.session.Stats(), Pending: a.session.Pending()}, nil
}

// Checkpoint is a snapshot taken before an edit (general.checkpointing).
type Checkpoint struct {
	// Name identifies the checkpoint for RestoreCheckpoint.
	Name string
	// Tool is the edit tool that was about to run, and FilePath the file.
	Tool     string
	FilePath string
}

// ErrCheckpointingOff is returned when general.checkpointing.enabled is
// not set.
var ErrCheckpointingOff = errors.New("checkpointing is not enabled: set general.checkpointing.enabled in settings.json")

// Checkpoints lists the checkpoints of this project, oldest first.
func (a *Agent) Checkpoints() ([]Checkpoint, error) {
	if a.checkpoints == nil {
		return nil, ErrCheckpointingOff
	}
	infos, err := a.checkpoints.List()
	if err != nil {
		return nil, err
	}
	out := make([]Checkpoint, len(infos))
	for i, in := range infos {
		out[i] = Checkpoint{Name: in.Checkpoint, Tool: in.Tool, FilePath: in.FilePath}
	}
	return out, nil
}

// RestoreCheckpoint rolls the workspace files and the conversation back to
// the checkpoint called name.
func (a *Agent) RestoreCheckpoint(ctx context.Context, name string) error {
	if a.checkpoints == nil {
		return ErrCheckpointingOff
	}
	d, err := a.checkpoints.Restore(ctx, name)
	if err != nil {
		return err
	}
	if d.ClientHistory != nil {
		return a.session.SetHistory(d.ClientHistory)
	}
	return nil
}

// Close releases what the agent holds (recording files, recorders).
func (a *Agent) Close() error {
	var first error
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	a.closers = nil
	return first
}

// ConfigError is a problem in settings or options (the CLI exits 52).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ResumeError is a session that cannot be resumed (the CLI exits 42).
type ResumeError struct{ Err error }

func (e *ResumeError) Error() string { return "Error resuming session: " + e.Err.Error() }
func (e *ResumeError) Unwrap() error { return e.Err }

// UntrustedError is a workspace that folder trust refuses (the CLI exits
// 55).
type UntrustedError struct{ Err error }

func (e *UntrustedError) Error() string { return e.Err.Error() }
func (e *UntrustedError) Unwrap() error { return e.Err }

func configErrorf(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}
