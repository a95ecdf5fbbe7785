// Package castor is the Go SDK of Castor, a Gemini CLI compatible coding
// agent. An Agent drives Gemini over a workspace with the same settings,
// memory files, tools and approval rules as the castor command:
//
//	a, err := castor.New(ctx, castor.WithWorkDir("/path/to/project"))
//	if err != nil { ... }
//	defer a.Close()
//	res, err := a.Send(ctx, "what does this project do?")
//	fmt.Println(res.Text)
//
// Stream gives the engine's events as they happen instead. One turn runs
// at a time per Agent; separate Agents run side by side. Cancelling a
// turn's context stops it and leaves the agent ready for the next prompt.
//
// Tools of the program (NewTool) run unasked unless made with AskFirst
// (or a policy file's rule asks); the built-in edit and shell tools ask.
// Someone must answer, or the call is refused: WithConfirm answers from
// code at once, WithPausedConfirmations stops the turn until
// Session().Answer and Resume.
//
// Tests and examples replace Gemini with a scripted model:
// WithClient(fake.Script(...)) from package model/fake. An agent reads
// the user's settings and records its session under ~/.gemini like the
// castor command; WithoutSettings, WithHomeDir(t.TempDir()) and
// WithoutRecording keep a test apart from the machine it runs on.
//
// The package is a small facade: the engine is package agent, and the
// wiring of settings, credentials, tools and servers is shared with the
// castor command.
package castor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/sdkopts"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// Version is Castor's version, reported by --version and in the
// User-Agent header.
var Version = version.Version

// DefaultModel is the model used when neither an option, GEMINI_MODEL nor
// the settings name one: "auto", routed per prompt as Gemini CLI does.
const DefaultModel = setup.DefaultModel

// Option configures an Agent. Options that add (tools, instructions,
// hooks, allowed tools, directories, skills, subagents, extensions,
// policy files, warnings) add to what earlier ones gave; options that set
// one value (the work dir, model, client, approval mode, confirm
// function, environment…) take the last one given. A nil Option is
// skipped. Options that cannot go together (WithResume with WithSessionID
// or WithHistory) make New fail with a *ConfigError.
type Option func(*options)

// options is what the options build: the assembly's options, kept out of
// the API so that they can change without breaking a program.
type options struct {
	setup.Options
	// askUser and planApproval answer questions (questions.go).
	askUser      func(ctx context.Context, questions []tool.Question) (map[string]string, error)
	planApproval func(ctx context.Context, plan PlanReview) (tool.PlanVerdict, error)
}

// resolve applies opts in order, skipping nil ones.
func resolve(opts []Option) setup.Options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o.Options
}

// The SDK's other public packages (acp) build agents from the same
// options; they read them through sdkopts rather than the root package
// exporting how an Option is made.
func init() {
	sdkopts.Resolve = func(v any) setup.Options { return resolve(v.([]Option)) }
}

// WithWorkDir sets the workspace root (default: the current directory).
func WithWorkDir(dir string) Option { return func(o *options) { o.WorkDir = dir } }

// WithIncludeDirectories adds workspace directories beside the root.
func WithIncludeDirectories(dirs ...string) Option {
	return func(o *options) { o.IncludeDirectories = append(o.IncludeDirectories, dirs...) }
}

// WithModel sets the model name (default: GEMINI_MODEL, settings
// model.name, then DefaultModel). Gemini CLI's aliases (pro, flash,
// flash-lite, auto) are accepted.
func WithModel(name string) Option { return func(o *options) { o.Model = name } }

// WithInstructions adds static instructions to the system instruction,
// after earlier ones.
func WithInstructions(s string) Option {
	return func(o *options) { o.Instructions = textutil.Paragraphs(o.Instructions, s) }
}

// WithInstructionsFunc adds instructions computed for each model call,
// after those of earlier calls of this option.
func WithInstructionsFunc(f func(SessionContext) string) Option {
	if f == nil {
		return nil
	}
	return func(o *options) {
		prev := o.InstructionsFunc
		o.InstructionsFunc = func(i setup.Info) string {
			s := f(newSessionContext(i.Agent, i.Timestamp))
			if prev == nil {
				return s
			}
			return textutil.Paragraphs(prev(i), s)
		}
	}
}

// WithTools adds custom tools beside the built-in ones. A call whose
// Confirmation returns details is asked about through WithConfirm (or
// paused, with WithPausedConfirmations) unless the approval mode or a rule
// allows it, and refused when there is no one to ask; one whose
// Confirmation returns nil runs. A tool made with NewTool runs unasked
// unless made with AskFirst or asked about by a policy file's rule (see
// NewTool). A tool named like a built-in replaces it. A nil tool, a name
// Gemini does not accept or two tools of the same name make New fail
// with a *ConfigError.
func WithTools(tools ...tool.Tool) Option {
	return func(o *options) { o.Tools = append(o.Tools, tools...) }
}

// WithTrustedTools adds custom tools that always run without
// confirmation.
func WithTrustedTools(tools ...tool.Tool) Option {
	return func(o *options) {
		o.Tools = append(o.Tools, tools...)
		for _, t := range tools {
			// A nil tool is reported by New, which can return an error.
			if t != nil {
				o.TrustedTools = append(o.TrustedTools, t.Name())
			}
		}
	}
}

// WithApprovalMode sets the approval mode (default: the settings'
// general.defaultApprovalMode, else policy.ModeDefault). A mode policy
// does not know makes New fail with a *ConfigError.
func WithApprovalMode(m policy.Mode) Option { return func(o *options) { o.ApprovalMode = m } }

// WithAllowedTools adds rules for tools that run without confirmation, as
// --allowed-tools takes them ("write_file", "run_shell_command(git status)").
func WithAllowedTools(rules ...string) Option {
	return func(o *options) { o.AllowedTools = append(o.AllowedTools, rules...) }
}

// WithAllowedMCPServers limits the MCP servers started to these names.
func WithAllowedMCPServers(names ...string) Option {
	return func(o *options) { o.AllowedMCPServerNames = append(o.AllowedMCPServerNames, names...) }
}

// WithConfirm answers confirmations synchronously: every call that needs
// approval is given to f, and the turn goes on with its decision. A
// Decision whose Outcome is not valid (the zero Decision) refuses the
// call, as tool.Cancel does. An error from f leaves the call unanswered:
// the turn pauses with it in Result.Pending, and Send (or Stream's last
// pair) returns the error, so the program may answer the call later with
// Session().Answer and Resume.
func WithConfirm(f func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)) Option {
	return func(o *options) { o.Confirm = f }
}

// WithPausedConfirmations makes calls that need approval pause the turn
// (agent.EventInputRequired; Result.Pending) instead of being refused,
// for programs that answer later with Answer and Resume.
func WithPausedConfirmations() Option { return func(o *options) { o.Interactive = true } }

// WithClient replaces the model transport (a custom backend, or the
// scripted model of package model/fake).
func WithClient(m model.Model) Option { return func(o *options) { o.Client = m } }

// WithSessionID fixes the id of a new session (default: a new UUID). It
// always starts a new conversation, even when a session of that id was
// recorded before: WithResume continues one.
func WithSessionID(id string) Option { return func(o *options) { o.SessionID = id } }

// WithResume continues the recorded session with this id ("latest" for
// the newest of the workspace), as the castor command's --resume does.
// The recording keeps the conversation, not a turn paused for
// confirmations: calls that were waiting are dropped. To take up a paused
// turn in a new agent, keep Session().History() and
// Session().PausedCalls() and give them to the new agent's
// Session().Continue. New returns a *ResumeError when the session cannot
// be found or read.
func WithResume(sessionID string) Option { return func(o *options) { o.Resume = sessionID } }

// WithHistory starts from a conversation kept elsewhere, without the
// environment context being added again.
func WithHistory(h []*genai.Content) Option { return func(o *options) { o.History = h } }

// WithoutRecording turns off session recording under ~/.gemini/tmp.
func WithoutRecording() Option { return func(o *options) { o.DisableRecording = true } }

// WithoutSettings ignores settings files, .env files and GEMINI.md memory:
// only the options count.
func WithoutSettings() Option { return func(o *options) { o.IgnoreSettings = true } }

// WithEnv sets the environment the agent reads (credentials, endpoints,
// GEMINI_MODEL…) instead of the process environment. The workspace's
// .env file is layered on top for this agent only; the process
// environment is never changed.
func WithEnv(lookup func(key string) (string, bool)) Option {
	return func(o *options) { o.Env = config.LookupFunc(lookup) }
}

// WithHomeDir sets the user's home directory (default: the OS one).
func WithHomeDir(dir string) Option { return func(o *options) { o.HomeDir = dir } }

// WithRetry tunes retries of failed model calls.
func WithRetry(r model.RetryOptions) Option { return func(o *options) { o.Retry = &r } }

// WithMaxBudgetUSD ends a turn before a model call that would take the
// agent's cost past usd US dollars (StopBudget); it wins over the
// model.maxBudgetUsd setting. The project's model.dailyBudgetUsd applies
// too.
func WithMaxBudgetUSD(usd float64) Option { return func(o *options) { o.MaxBudgetUSD = usd } }

// WithIDE turns IDE mode on: editor context from the IDE companion, edits
// confirmed as diffs in the IDE.
func WithIDE() Option { return func(o *options) { o.IDE = true } }

// WithDebugLog receives the agent's debug lines: its MCP servers'
// start-up ("MCP server 'x' connected over stdio"), their stderr and the
// tools it skipped. Without it they are dropped; they never go to the
// program's standard logger.
func WithDebugLog(f func(string)) Option {
	if f == nil {
		return nil
	}
	return func(o *options) { o.Debug = f }
}

// WithWarnings receives non-fatal problems found while building the
// agent (a missing include directory, an MCP server that did not start)
// and, during Send and Resume, those of the turn (a hook that failed or
// could not run) and hooks' messages for the user (systemMessage, a
// settings-file hook's exit-1 warning); Stream gives the latter as
// agent.EventWarning and agent.EventHookMessage events instead.
func WithWarnings(f func(string)) Option {
	if f == nil {
		return nil
	}
	return func(o *options) {
		prev := o.Warn
		o.Warn = func(s string) {
			if prev != nil {
				prev(s)
			}
			f(s)
		}
	}
}

// Agent is a configured Castor agent with one conversation. Its methods
// may be called from several goroutines, but one turn runs at a time:
// Send, Stream or Resume while another turn runs fails with
// agent.ErrBusy. Two Agents are independent and may run at once.
type Agent struct {
	a *setup.Agent

	// life ends when Close starts, cancelling the running turn. mu
	// guards closed and turns, so that exactly one of Close and the end
	// of the last running turn releases the assembly.
	life    context.Context
	stop    context.CancelFunc
	mu      sync.Mutex
	closed  bool
	turns   int
	release sync.Once
	err     error // of the release, once done
	// warn is WithWarnings' function, given the warnings of the turns
	// Send and Resume run (Stream's caller sees them as events).
	warn func(string)
}

// ErrClosed is returned by Send, Stream and Resume after Close, and by a
// turn that Close cancelled.
var ErrClosed = errors.New("castor: the agent is closed")

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
	// StopReason says why the turn ended, so that a caller tells a
	// model's answer from a hook's halt (whose reason is then Text), a
	// pause for confirmations, or a turn the engine stopped.
	StopReason StopReason
	// CostUSD is what the session's model calls cost so far, in US
	// dollars, and TurnCostUSD this turn's share, priced by the
	// providers' models entries or Gemini's public prices (cached input
	// at its own price); both are 0 when no model used has a price.
	CostUSD, TurnCostUSD float64
}

// StopReason says why a turn ended (Result.StopReason).
type StopReason string

// Why a turn ends.
const (
	// StopCompleted: the model answered; Text is its answer.
	StopCompleted StopReason = "completed"
	// StopPaused: calls wait for confirmation (Result.Pending); answer
	// them and call Resume.
	StopPaused StopReason = "paused"
	// StopHalted: a hook stopped the turn (continue: false, Hook's
	// Halt); Text is the hook's reason, not a model's answer.
	StopHalted StopReason = "halted"
	// StopBlocked: a BeforeAgent hook refused the prompt; Text is its
	// reason.
	StopBlocked StopReason = "blocked"
	// StopCancelled: the context was cancelled, or every call of a batch
	// was cancelled, so the model was not called again.
	StopCancelled StopReason = "cancelled"
	// StopMaxTurns: model.maxSessionTurns was reached
	// (agent.ErrMaxSessionTurns).
	StopMaxTurns StopReason = "max_turns"
	// StopLoop: loop detection stopped the model (agent.ErrLoopDetected).
	StopLoop StopReason = "loop"
	// StopBudget: the next model call would have crossed a spending
	// limit (WithMaxBudgetUSD, model.maxBudgetUsd, model.dailyBudgetUsd);
	// nothing was sent and the history is kept, so a later turn with a
	// higher budget goes on (the error is a *model.BudgetError).
	StopBudget StopReason = "budget"
	// StopError: the turn failed; the error says why.
	StopError StopReason = "error"
)

// stopReason is the StopReason of a turn that ended with err.
func stopReason(err error) StopReason {
	switch {
	case errors.Is(err, agent.ErrMaxSessionTurns):
		return StopMaxTurns
	case errors.Is(err, agent.ErrLoopDetected):
		return StopLoop
	case errors.Is(err, model.ErrBudget):
		return StopBudget
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return StopCancelled
	}
	return StopError
}

// turnStop maps the engine's reason for a turn's end to a StopReason.
var turnStop = lazy.Value[map[agent.TurnEndReason]StopReason]{New: func() map[agent.TurnEndReason]StopReason {
	return map[agent.TurnEndReason]StopReason{
		agent.TurnCompleted: StopCompleted,
		agent.TurnCancelled: StopCancelled,
		agent.TurnStopped:   StopHalted,
		agent.TurnBlocked:   StopBlocked,
	}
}}

// New builds an agent: it loads settings, memory and credentials the way
// the castor command does, and starts (or resumes) a session. Cancelling
// ctx stops the start-up (MCP servers, IDE handshake, sign-in).
func New(ctx context.Context, opts ...Option) (*Agent, error) {
	o := resolve(opts)
	if err := checkOptions(&o); err != nil {
		return nil, err
	}
	if o.Confirm != nil {
		o.Confirm = reportingConfirm(o.Confirm)
	}
	if o.Elicit == nil {
		o.Elicit = declineElicit(o.Warn)
	}
	a, err := setup.New(ctx, o)
	if err != nil {
		return nil, sdkError(err, &o) // sdkerrors.go
	}
	life, stop := context.WithCancel(context.Background())
	return &Agent{a: a, life: life, stop: stop, warn: o.Warn}, nil
}

// checkOptions refuses what the options cannot mean, before anything
// starts, rather than letting one option silently win or a nil panic deep
// in the assembly.
func checkOptions(o *setup.Options) error {
	if err := compileOutputSchema(o); err != nil { // outputschema.go
		return err
	}
	if i := slices.Index(o.Tools, nil); i >= 0 {
		return &ConfigError{Err: fmt.Errorf("WithTools: tool %d of %d is nil", i+1, len(o.Tools))}
	}
	seen := map[string]bool{}
	for _, t := range o.Tools {
		name := t.Name()
		if err := checkToolName(name); err != nil {
			return &ConfigError{Err: fmt.Errorf("WithTools: %w", err)}
		}
		if seen[name] {
			return &ConfigError{Err: fmt.Errorf("WithTools: two tools are named %q", name)}
		}
		seen[name] = true
	}
	if o.ApprovalMode != "" {
		m, err := policy.ParseMode(string(o.ApprovalMode))
		if err != nil {
			return &ConfigError{Err: fmt.Errorf("WithApprovalMode: %w", err)}
		}
		o.ApprovalMode = m
	}
	for i, h := range o.Hooks {
		if !slices.Contains(agent.HookEvents, h.Event) {
			return &ConfigError{Err: fmt.Errorf("WithHooks: hook %d (%q): unknown event %q", i+1, h.Name, h.Event)}
		}
		if h.Func == nil {
			return &ConfigError{Err: fmt.Errorf("WithHooks: hook %d (%q, %s) has no Func", i+1, h.Name, h.Event)}
		}
	}
	if o.Resume != "" && o.SessionID != "" {
		return &ConfigError{Err: fmt.Errorf("WithResume(%q) and WithSessionID(%q) cannot go together: a resumed session keeps its id", o.Resume, o.SessionID)}
	}
	if o.Resume != "" && o.History != nil {
		return &ConfigError{Err: fmt.Errorf("WithResume(%q) and WithHistory cannot go together: a resumed session starts from its recording", o.Resume)}
	}
	return nil
}

// Session returns the engine session, for programs that need all of it
// (Answer and Resume after a paused turn, history, pending calls).
func (a *Agent) Session() *agent.Session { return a.a.Session }

// SessionID returns the session id.
func (a *Agent) SessionID() string { return a.a.Session.ID() }

// Model returns the model that gave the latest answer (the modelVersion
// it sent) once one has answered, and until then the model the agent
// asks for, as given: an alias such as auto or pro stands for the model
// it resolves to after the first answer. Each agent.EventFinished names
// the version of its own answer.
func (a *Agent) Model() string {
	if m := a.a.Session.LastModel(); m != "" {
		return m
	}
	return a.a.Session.Model()
}

// Stream sends a prompt and returns the engine's events. A leading
// "/name args" naming a custom command (an extension's, or a .toml under
// .gemini/commands) sends that command's prompt, and @path includes the
// file, as the castor command does.
//
// The turn runs while the caller ranges over the events; stopping early
// (break) ends the turn there. Cancelling ctx stops the model call or the
// running tools: the last pair carries ctx's error, the conversation
// keeps what happened so far, and the agent takes the next prompt.
func (a *Agent) Stream(ctx context.Context, prompt string) iter.Seq2[*agent.Event, error] {
	// Nothing happens until the caller ranges: a custom command's !{…}
	// runs then, and a Close in between is seen.
	return a.turn(ctx, func(ctx context.Context) iter.Seq2[*agent.Event, error] {
		parts, err := a.a.ExpandPrompt(ctx, prompt)
		if err != nil {
			err = sdkPromptError(err) // sdkerrors.go
			return func(yield func(*agent.Event, error) bool) { yield(nil, err) }
		}
		return a.a.Session.Send(withSession(ctx, a.a), parts...)
	})
}

// turn runs one turn of the engine: refused after Close, cancelled by
// Close, and watched for the confirm function's errors.
func (a *Agent) turn(ctx context.Context, run func(context.Context) iter.Seq2[*agent.Event, error]) iter.Seq2[*agent.Event, error] {
	return func(yield func(*agent.Event, error) bool) {
		a.mu.Lock()
		if a.closed {
			a.mu.Unlock()
			yield(nil, ErrClosed)
			return
		}
		a.turns++
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.turns--
			last := a.closed && a.turns == 0
			a.mu.Unlock()
			if last {
				a.releaseAll()
			}
		}()
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(a.life, func() { cancel(ErrClosed) })()
		for ev, err := range watchConfirm(ctx, run) {
			if err != nil && errors.Is(context.Cause(ctx), ErrClosed) {
				// Say why the turn was cancelled, not only that it was.
				err = fmt.Errorf("%w: %w", ErrClosed, err)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// Send sends a prompt and waits for the turn to end. On an error the
// Result still holds the session id and stats; see Stream for
// cancellation.
func (a *Agent) Send(ctx context.Context, prompt string) (*Result, error) {
	return a.collect(a.Stream(ctx, prompt))
}

// Resume continues a turn that paused for confirmations once each was
// answered (Session().Answer), and waits for it to end.
func (a *Agent) Resume(ctx context.Context) (*Result, error) {
	return a.collect(a.turn(ctx, func(ctx context.Context) iter.Seq2[*agent.Event, error] {
		return a.a.Session.Resume(withSession(ctx, a.a))
	}))
}

// collect waits for the turn to end; Result.Text is the engine's answer
// for the turn (agent.EventTurnEnd, or EventInputRequired when it paused).
func (a *Agent) collect(events iter.Seq2[*agent.Event, error]) (*Result, error) {
	s := a.a.Session
	text := ""
	var stop StopReason
	before, _, _ := s.Stats().Cost(a.a.Price)
	result := func(stop StopReason) *Result {
		r := &Result{Text: text, SessionID: s.ID(), Stats: s.Stats(), Pending: s.Pending(), StopReason: stop}
		r.CostUSD, _, _ = r.Stats.Cost(a.a.Price)
		r.TurnCostUSD = r.CostUSD - before
		return r
	}
	for ev, err := range events {
		if err != nil {
			return result(stopReason(err)), err
		}
		switch ev.Type {
		case agent.EventTurnEnd:
			text = ev.Text
			stop = cmp.Or(turnStop.Get()[ev.Reason], StopCompleted)
		case agent.EventInputRequired:
			text, stop = ev.Text, StopPaused
		case agent.EventWarning, agent.EventHookMessage:
			// A hook's message is for the user: under Send the program's
			// warnings are the only way to it (a settings-file hook that
			// exits 1 says "Warning: ..." so).
			if a.warn != nil {
				a.warn(ev.Text)
			}
		}
	}
	return result(stop), nil
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
	if a.a.Checkpoints == nil {
		return nil, ErrCheckpointingOff
	}
	infos, err := a.a.Checkpoints.List()
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
	if a.a.Checkpoints == nil {
		return ErrCheckpointingOff
	}
	d, err := a.a.Checkpoints.Restore(ctx, name)
	if err != nil {
		return err
	}
	if d.ClientHistory != nil {
		return a.a.Session.SetHistory(d.HistoryBeforeCall())
	}
	return nil
}

// Close releases what the agent holds (MCP servers, recording files, the
// IDE connection). A turn still running is cancelled, and what it uses is
// released as soon as it has ended; Close does not wait for it, so a loop
// over Stream's events may call Close. Later calls do nothing.
func (a *Agent) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	idle := a.turns == 0
	a.mu.Unlock()
	a.stop()
	if !idle {
		return nil
	}
	return a.releaseAll()
}

// releaseAll closes the assembly, once.
func (a *Agent) releaseAll() error {
	a.release.Do(func() { a.err = a.a.Close() })
	return a.err
}

// ConfigError is a problem in settings or options: a malformed settings
// file, an option New cannot use. (The castor command exits 52.)
type ConfigError struct {
	// Err is the problem, naming the file and key or the option.
	Err error
}

// Error says what is wrong.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *ConfigError) Unwrap() error { return e.Err }

// UntrustedError is a workspace that folder trust refuses. (The castor
// command exits 55.)
type UntrustedError struct {
	// Err says which folder, and how to trust it.
	Err error
}

// Error says which folder is not trusted.
func (e *UntrustedError) Error() string { return e.Err.Error() }

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *UntrustedError) Unwrap() error { return e.Err }
