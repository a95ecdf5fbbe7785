// Package command is the registry of slash commands shared by Castor's
// faces: the A2A server lists and runs them (GET /listCommands, POST
// /executeCommand, and the development-tool extension's commands/get and
// command/execute), and other faces can offer the same commands without
// re-implementing them.
//
// A command is a tree: "memory" has the sub-commands "show", "list",
// "refresh" and "add". A command either answers at once (a Result holding
// a message or data) or asks its face to run a prompt through the agent
// (ResultSubmitPrompt, what /init does), since the agent belongs to the
// face, not to the command.
//
// A registry is the one table of a session's commands: each command says
// which faces offer it (Faces). The terminal registers the commands only
// it can carry out (/clear, /theme) in its session's registry, marked
// FaceTerminal, with its action as their Execute; its /help, completion
// and dispatch read that registry, and ACP's available commands and the
// A2A listing read theirs through CommandsFor.
package command

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Argument describes one argument a command accepts.
type Argument struct {
	Name        string
	Description string
	Required    bool
}

// ResultKind says what a Result asks of the face.
type ResultKind string

// Result kinds, named after Gemini CLI's command action types.
const (
	// ResultMessage is text for the user (Content, MessageType).
	ResultMessage ResultKind = "message"
	// ResultData is structured data (Data).
	ResultData ResultKind = "data"
	// ResultSubmitPrompt asks the face to send Content to the agent as a
	// prompt, with the approval mode in Mode.
	ResultSubmitPrompt ResultKind = "submit_prompt"
	// ResultAction carries the face's own follow-up (Action) from a
	// command only that face offers: the terminal's /clear returns the
	// screen work its event loop runs next.
	ResultAction ResultKind = "action"
)

// Clipboard is the Action of a ResultAction made by an engine command for
// a face with a clipboard (the terminal's /plan copy): the face puts Text
// on the user's clipboard, then shows Notice.
type Clipboard struct{ Text, Notice string }

// Face is a set of the faces a command is offered in.
type Face uint8

// The faces. A command offered in none of them (Faces zero) is offered
// in all.
const (
	// FaceTerminal is the interactive terminal UI.
	FaceTerminal Face = 1 << iota
	// FaceACP is the Agent Client Protocol server (available commands).
	FaceACP
	// FaceA2A is the A2A server (listCommands, executeCommand).
	FaceA2A
	// FaceStream is the headless and stream-json input, where a leading
	// "/name" expands a custom command or an MCP prompt.
	FaceStream
)

// Message types of a ResultMessage.
const (
	MessageInfo  = "info"
	MessageError = "error"
)

// Result is what a command produced.
type Result struct {
	Kind ResultKind
	// MessageType is "info" or "error" for ResultMessage.
	MessageType string
	// Content is the message text, or the prompt of a ResultSubmitPrompt.
	Content string
	// Data is the structured answer of a ResultData.
	Data any
	// Mode is the approval mode the prompt of a ResultSubmitPrompt should
	// run with ("" means the face's default).
	Mode string
	// Action is the follow-up of a ResultAction, of a type only the face
	// that made it knows.
	Action any
}

// Payload returns what Gemini CLI's /executeCommand puts in "data": the
// structured data, else the message text.
func (r *Result) Payload() any {
	if r == nil {
		return nil
	}
	if r.Kind == ResultData {
		return r.Data
	}
	return r.Content
}

// Env is what a command may learn about where it runs.
type Env struct {
	// Workspace is the workspace directory; "" when the face has none.
	Workspace string
	// HomeDir stands in for the user's home directory ("" means
	// GEMINI_CLI_HOME or the OS home).
	HomeDir string
	// Trusted says whether the workspace is trusted, which decides whether
	// its memory files and extensions count.
	Trusted bool
}

// Invocation is one run of a command.
type Invocation struct {
	// Path is the full command path, e.g. ["memory", "add"].
	Path []string
	// Args are the words after the command path.
	Args []string
	Env  Env
}

// Command is a slash command. A command with sub-commands may still run
// on its own (Execute), which is its default sub-command.
type Command struct {
	Name        string
	Description string
	Arguments   []Argument
	SubCommands []*Command
	// RequiresWorkspace makes the command refuse to run without
	// Env.Workspace.
	RequiresWorkspace bool
	// Streaming marks commands whose result is a prompt the face streams
	// (Gemini CLI's init).
	Streaming bool
	// Faces are the faces that offer the command; zero means every face.
	// A command that needs one face's machinery (the terminal's /clear
	// and /theme) is registered by that face, marked with it alone, and
	// its Execute is that face's action.
	Faces Face
	// Execute runs the command; nil means the command only groups
	// sub-commands.
	Execute func(ctx context.Context, inv *Invocation) (*Result, error)
}

// Errors returned by Registry.Run.
var (
	// ErrNotFound is a command path that names no command.
	ErrNotFound = errors.New("command not found")
	// ErrNeedsWorkspace is a workspace command run without a workspace.
	ErrNeedsWorkspace = errors.New("command requires a workspace")
)

// Registry holds the top-level commands. It is safe for concurrent use.
type Registry struct {
	mu   sync.RWMutex
	cmds []*Command
}

// NewRegistry returns a registry holding cmds.
func NewRegistry(cmds ...*Command) *Registry {
	r := &Registry{}
	for _, c := range cmds {
		r.Register(c)
	}
	return r
}

// Register adds a top-level command; a command with the same name
// replaces the earlier one, so an embedder can override a built-in.
func (r *Registry) Register(c *Command) {
	if c == nil || c.Name == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, old := range r.cmds {
		if old.Name == c.Name {
			r.cmds[i] = c
			return
		}
	}
	r.cmds = append(r.cmds, c)
}

// Unregister removes the top-level command c if it is still the one
// registered under its name, and reports whether it did: a command that
// has since been replaced (a custom command of the same name) stays. It
// lets a source whose commands change (an MCP server's prompts) take back
// exactly the ones it registered.
func (r *Registry) Unregister(c *Command) bool {
	if c == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, old := range r.cmds {
		if old == c {
			r.cmds = append(r.cmds[:i:i], r.cmds[i+1:]...)
			return true
		}
	}
	return false
}

// Commands returns the top-level commands sorted by name.
func (r *Registry) Commands() []*Command {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := append([]*Command(nil), r.cmds...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// OfferedIn reports whether face offers c.
func (c *Command) OfferedIn(face Face) bool { return c.Faces == 0 || c.Faces&face != 0 }

// CommandsFor returns the top-level commands face offers, sorted by name:
// the listing a face shows its users.
func (r *Registry) CommandsFor(face Face) []*Command {
	var out []*Command
	for _, c := range r.Commands() {
		if c.OfferedIn(face) {
			out = append(out, c)
		}
	}
	return out
}

// Lookup resolves the longest command path at the start of words and
// returns the command, its path and the remaining words. A single word
// holding spaces ("memory list", as Gemini CLI's /executeCommand sends it)
// is split first.
func (r *Registry) Lookup(words ...string) (*Command, []string, []string) {
	var split []string
	for _, w := range words {
		split = append(split, strings.Fields(w)...)
	}
	if len(split) == 0 {
		return nil, nil, nil
	}
	r.mu.RLock()
	level := r.cmds
	r.mu.RUnlock()
	var found *Command
	n := 0
	for n < len(split) {
		var next *Command
		for _, c := range level {
			if c.Name == split[n] {
				next = c
				break
			}
		}
		if next == nil {
			break
		}
		found, level = next, next.SubCommands
		n++
	}
	if found == nil {
		return nil, nil, split
	}
	return found, split[:n], split[n:]
}

// Find looks up the command named by path (in words, or one word holding
// spaces), to run in env, and returns it with its path. It fails with
// ErrNotFound when path names no command, and with ErrNeedsWorkspace when
// the command needs a workspace env lacks.
func (r *Registry) Find(env Env, path ...string) (*Command, []string, error) {
	c, p, rest := r.Lookup(path...)
	if c == nil || len(rest) > 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, strings.Join(path, " "))
	}
	if err := needsWorkspace(c, p, env); err != nil {
		return nil, nil, err
	}
	return c, p, nil
}

// Run looks up the command named by path, then runs it with args.
func (r *Registry) Run(ctx context.Context, path []string, args []string, env Env) (*Result, error) {
	c, p, err := r.Find(env, path...)
	if err != nil {
		return nil, err
	}
	return r.run(ctx, c, p, args, env)
}

// RunLine runs a whole command line ("memory add buy milk"): the longest
// command path, then its arguments.
func (r *Registry) RunLine(ctx context.Context, line string, env Env) (*Result, error) {
	c, p, rest := r.Lookup(strings.TrimPrefix(strings.TrimSpace(line), "/"))
	if c == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, strings.TrimSpace(line))
	}
	return r.run(ctx, c, p, rest, env)
}

// needsWorkspace refuses a command that needs a workspace env lacks.
func needsWorkspace(c *Command, path []string, env Env) error {
	if c.RequiresWorkspace && env.Workspace == "" {
		return fmt.Errorf("%w: %s", ErrNeedsWorkspace, strings.Join(path, " "))
	}
	return nil
}

func (r *Registry) run(ctx context.Context, c *Command, path, args []string, env Env) (*Result, error) {
	if err := needsWorkspace(c, path, env); err != nil {
		return nil, err
	}
	if c.Execute == nil {
		return nil, fmt.Errorf("%w: %s needs a sub-command", ErrNotFound, strings.Join(path, " "))
	}
	return c.Execute(ctx, &Invocation{Path: path, Args: args, Env: env})
}

// Info returns an informational message result.
func Info(format string, args ...any) *Result {
	return &Result{Kind: ResultMessage, MessageType: MessageInfo, Content: fmt.Sprintf(format, args...)}
}

// Error returns an error message result: the command ran but could not do
// what was asked, which the face reports to the user.
func Error(format string, args ...any) *Result {
	return &Result{Kind: ResultMessage, MessageType: MessageError, Content: fmt.Sprintf(format, args...)}
}
