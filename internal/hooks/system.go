package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/proc"
)

// Options configures a System.
type Options struct {
	// Cwd is the project directory: the hooks' working directory, their
	// "cwd" and $GEMINI_PROJECT_DIR.
	Cwd string
	// TranscriptPath returns the session file's path (may be nil).
	TranscriptPath func() string
	// Env is the environment command hooks start from (KEY=value).
	Env []string
	// Disabled lists hook ids (name, else command) not to run.
	Disabled []string
}

// System holds a session's hooks and runs them; it implements
// agent.Hooks.
type System struct {
	opts   Options
	hooks  []Hook
	events map[agent.HookEvent]bool
}

var _ agent.Hooks = (*System)(nil)

// New returns a System running hooks in Gemini CLI's order: by source
// (runtime, project, user, system, extensions), then as declared; a hook
// with the same name and command as one before it is dropped, and the
// disabled ones are left out.
func New(opts Options, hooks []Hook) *System {
	s := &System{opts: opts, events: map[agent.HookEvent]bool{}}
	sorted := slices.Clone(hooks)
	slices.SortStableFunc(sorted, func(a, b Hook) int { return int(a.Source) - int(b.Source) })
	seen := map[string]bool{}
	for _, h := range sorted {
		if h.Func == nil && slices.Contains(opts.Disabled, h.ID()) {
			continue
		}
		// In-process hooks are never duplicates of one another.
		if k := h.key(); h.Func != nil || !seen[k] {
			seen[k] = true
			if h.Timeout <= 0 {
				h.Timeout = DefaultTimeout
			}
			s.hooks = append(s.hooks, h)
			s.events[h.Event] = true
		}
	}
	return s
}

// Hooks returns the hooks that will run.
func (s *System) Hooks() []Hook { return slices.Clone(s.hooks) }

// Handles reports whether a hook is registered for event.
func (s *System) Handles(event agent.HookEvent) bool { return s != nil && s.events[event] }

// Fire runs the hooks matching in, in parallel unless one of their
// definitions is sequential (then one after another, each seeing the
// input as the previous ones changed it), and merges their outputs.
func (s *System) Fire(ctx context.Context, in *agent.HookInput) (*agent.HookOutput, error) {
	if in.Cwd == "" {
		in.Cwd = s.opts.Cwd
	}
	if in.TranscriptPath == "" && s.opts.TranscriptPath != nil {
		in.TranscriptPath = s.opts.TranscriptPath()
	}
	if in.Timestamp == "" {
		in.Timestamp = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	var plan []*Hook
	sequential := false
	target := in.MatchTarget()
	for i := range s.hooks {
		h := &s.hooks[i]
		if h.Event == in.HookEventName && matches(h, target) {
			plan = append(plan, h)
			sequential = sequential || h.Sequential
		}
	}
	if len(plan) == 0 {
		return nil, nil
	}
	outs := make([]*agent.HookOutput, len(plan))
	errs := make([]error, len(plan))
	if sequential {
		cur := in
		for i, h := range plan {
			outs[i], errs[i] = s.run(ctx, h, cur)
			if outs[i] != nil {
				cur = chain(cur, outs[i])
			}
		}
	} else {
		var wg sync.WaitGroup
		for i, h := range plan {
			wg.Go(func() { outs[i], errs[i] = s.run(ctx, h, in) })
		}
		wg.Wait()
	}
	return Merge(in.HookEventName, outs), errors.Join(errs...)
}

// matches applies a definition's matcher: empty or "*" match everything;
// tool events take a regular expression (a literal when it does not
// compile), lifecycle events an exact value.
func matches(h *Hook, target string) bool {
	m := strings.TrimSpace(h.Matcher)
	if m == "" || m == "*" {
		return true
	}
	switch h.Event {
	case agent.HookBeforeTool, agent.HookAfterTool:
		re, err := regexp.Compile(m)
		if err != nil {
			return m == target
		}
		return re.MatchString(target)
	case agent.HookSessionStart, agent.HookSessionEnd, agent.HookPreCompress, agent.HookNotification:
		return m == target
	}
	return true
}

// chain gives the next sequential hook the input as out changed it.
func chain(in *agent.HookInput, out *agent.HookOutput) *agent.HookInput {
	sp := out.HookSpecificOutput
	if sp == nil {
		return in
	}
	next := in.Clone()
	switch in.HookEventName {
	case agent.HookBeforeAgent:
		if sp.AdditionalContext != "" && next.Prompt != nil {
			p := *next.Prompt + "\n\n" + sp.AdditionalContext
			next.Prompt = &p
		}
	case agent.HookBeforeModel:
		if r := sp.LLMRequest; r != nil && next.LLMRequest != nil {
			if r.Model != "" {
				next.LLMRequest.Model = r.Model
			}
			if r.Messages != nil {
				next.LLMRequest.Messages = r.Messages
			}
			if r.Config != nil {
				next.LLMRequest.Config = r.Config
			}
			if r.ToolConfig != nil {
				next.LLMRequest.ToolConfig = r.ToolConfig
			}
		}
	case agent.HookBeforeTool:
		if sp.ToolInput != nil {
			if next.ToolInput == nil {
				next.ToolInput = map[string]any{}
			}
			maps.Copy(next.ToolInput, sp.ToolInput)
		}
	}
	return next
}

// run runs one hook; the error names the hook and where it is defined.
func (s *System) run(ctx context.Context, h *Hook, in *agent.HookInput) (out *agent.HookOutput, err error) {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	if h.Func != nil {
		defer func() {
			if p := recover(); p != nil {
				out, err = nil, fmt.Errorf("hook %s (%s) panicked: %v", h.label(), h.Origin, p)
			}
		}()
		out, err = h.Func(ctx, in.Clone())
		if err != nil {
			err = fmt.Errorf("hook %s (%s) failed: %w", h.label(), h.Origin, err)
		}
		return out, err
	}
	return s.runCommand(ctx, h, in)
}

func (h *Hook) label() string {
	if h.Name != "" {
		return fmt.Sprintf("%q", h.Name)
	}
	return fmt.Sprintf("%q", h.Command)
}

// runCommand runs a command hook the way Gemini CLI does: through the
// shell, in the project directory, with the input as JSON on stdin and
// $GEMINI_PROJECT_DIR (and $CLAUDE_PROJECT_DIR) set.
func (s *System) runCommand(ctx context.Context, h *Hook, in *agent.HookInput) (*agent.HookOutput, error) {
	stdin, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("hook %s (%s): input: %v", h.label(), h.Origin, err)
	}
	// Gemini CLI pastes the quoted directory over $GEMINI_PROJECT_DIR in
	// the command; setting the variables and letting the shell expand them
	// gives the same result and stays right inside double quotes.
	cmd := exec.CommandContext(ctx, shell(), "-c", h.Command)
	cmd.Dir = in.Cwd
	cmd.Env = append(slices.Clone(s.opts.Env),
		"GEMINI_PROJECT_DIR="+in.Cwd,
		"CLAUDE_PROJECT_DIR="+in.Cwd,
		"GEMINI_CWD="+in.Cwd,
		"GEMINI_SESSION_ID="+in.SessionID,
	)
	for k, v := range h.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &proc.Buffer{Limit: maxOutput}, &proc.Buffer{Limit: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = outputGrace
	// The hook and whatever it starts are ended together on timeout.
	err = proc.New(cmd, proc.Options{Grace: stopGrace}).Run()
	code := 0
	// note is said besides the hook's answer, which still counts.
	var note error
	if err != nil {
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("hook %s (%s) timed out after %v", h.label(), h.Origin, h.Timeout)
		case errors.As(err, &ee) && ee.Exited():
			code = ee.ExitCode()
		case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Exited():
			// The hook exited, but a process it started in the
			// background still holds its stdout or stderr. What it wrote
			// before exiting is its answer: a deny must not be lost
			// because the hook also launched a notifier.
			code = cmd.ProcessState.ExitCode()
			note = fmt.Errorf("hook %s (%s): a process it started kept its output open; what came after %v is ignored", h.label(), h.Origin, outputGrace)
		default:
			return nil, fmt.Errorf("hook %s (%s) could not run: %v", h.label(), h.Origin, err)
		}
	}
	if h.Event == agent.HookBeforeToolSelection && code == 0 {
		if out := toolNames(stdout.String()); out != nil {
			return out, note
		}
	}
	out := Result(code, stdout.String(), stderr.String())
	if code == 126 || code == 127 {
		// The shell could not find or run the command: say which hook and
		// where it is configured, besides blocking as any failure does.
		return out, fmt.Errorf("hook %s (%s) could not run (exit %d): %s", h.label(), h.Origin, code, strings.TrimSpace(stderr.String()))
	}
	return out, note
}

// maxOutput bounds what is kept of a command hook's stdout and of its
// stderr, as the shell tool bounds a command's output.
const maxOutput = 16 << 20

// stopGrace is how long a command hook that timed out, and what it
// started, have between SIGTERM and SIGKILL.
const stopGrace = time.Second

// outputGrace is how long a command hook's output is read after the hook
// exits, while processes it started in the background keep the pipes
// open.
var outputGrace = 5 * time.Second

// toolNames reads a BeforeToolSelection hook's plain-text answer, a
// comma-separated list of tool names, which sets mode ANY.
func toolNames(stdout string) *agent.HookOutput {
	text := strings.TrimSpace(stdout)
	if text == "" || strings.HasPrefix(text, "{") || strings.HasPrefix(text, "\"") {
		return nil
	}
	var names []string
	for n := range strings.SplitSeq(text, ",") {
		n = strings.TrimSpace(n)
		if n == "" || strings.ContainsAny(n, " \t\n") {
			return nil
		}
		names = append(names, n)
	}
	return &agent.HookOutput{HookSpecificOutput: &agent.HookSpecificOutput{ToolConfig: &agent.HookToolConfig{Mode: "ANY", AllowedFunctionNames: names}}}
}

func shell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}
