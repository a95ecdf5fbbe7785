// Package builtin holds Castor's built-in tools, one file per tool, with
// the names, schemas and output texts Gemini CLI gives the model.
package builtin

import (
	"context"
	"time"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// Env is what built-in tools need from the session around them.
type Env struct {
	// Workspace bounds every path a tool may touch.
	Workspace *tool.Workspace
	// Filter returns the ignore filter for the given options; nil means
	// nothing is ignored.
	Filter func(tool.FilterOptions) tool.FileFilter
	// TempDir is the project's temporary directory (~/.gemini/tmp/<slug>),
	// where large outputs are saved.
	TempDir string
	// Model and ModelName serve the tools that call the model themselves
	// (smart_edit's correction pass, web_fetch, google_web_search).
	Model     model.Model
	ModelName string
	// ShellTimeout bounds a shell command's run without output; zero means
	// Gemini CLI's 5 minutes, a negative value no bound at all (setting
	// tools.shell.inactivityTimeout at 0 or below).
	ShellTimeout time.Duration
	// OutputLimit is the number of characters of shell output given to the
	// model before it is truncated and saved; zero means 40,000.
	OutputLimit int
	// MemoryFile is the global GEMINI.md that save_memory appends to.
	MemoryFile string
	// SearchMaxMatches is the default cap on search_file_content's
	// matches (setting tools.grepMaxMatches); zero means Gemini CLI's 100.
	SearchMaxMatches int
	// DisableRipgrep makes search_file_content skip ripgrep even when it
	// is installed (tools.useRipgrep: false).
	DisableRipgrep bool
	// AllowPrivateHosts lets web_fetch fetch loopback, link-local and
	// private addresses (setting tools.webFetch.allowPrivateAddresses),
	// for local development servers; by default they are refused so that
	// a prompt injection cannot reach the user's network.
	AllowPrivateHosts bool
	// BeforeEdit, when set, is called by write_file, replace and
	// smart_edit just before they write, once the edit has been validated
	// and approved; checkpointing snapshots the workspace here. It cannot
	// stop the edit: whatever goes wrong is the hook's to report.
	BeforeEdit func(ctx context.Context, e Edit)
	// Environ, when set, is the environment shell commands start from
	// (the process's plus the workspace's .env values); nil means the
	// process environment.
	Environ func() []string
	// Redact, when set, filters the shell's environment just before a
	// command starts (security.environmentVariableRedaction: secrets are
	// withheld); nil passes it whole.
	Redact func(environ []string) []string
	// MemoryChanged, when set, is called after save_memory changed the
	// memory file, so that the session reloads the memory it gives the
	// model.
	MemoryChanged func()
	// Files, when set, serves the text read_file, write_file and the edit
	// tools read and write, in place of the local disk (an ACP client's
	// editor buffers); other tools and binary files stay local.
	Files TextFiles
	// Shell, when set, runs run_shell_command's foreground commands in
	// place of a local bash (an ACP client's terminal).
	Shell func(ctx context.Context, cmd ShellCommand) ShellOutcome
	// Plan, when set, is plan mode (general.plan.enabled): All offers
	// enter_plan_mode and exit_plan_mode, and in plan mode the edit tools
	// write file names into the plans directory.
	Plan *Plan
	// Diagnostics, when set, gives write_file, replace and smart_edit
	// the language servers' new problems in the file they wrote
	// (internal/lsp): BeforeEdit runs just before the write, and
	// AfterEdit's note, when not empty, joins the result.
	Diagnostics EditDiagnostics
	// Background, when set, keeps run_shell_command's is_background
	// processes for list_background_processes and read_background_output;
	// nil leaves them running unwatched.
	Background *Background
}

// EditDiagnostics is what the edit tools ask of the language servers.
// The texts are given rather than read back, as Env.Files may serve
// them from an editor's buffers.
type EditDiagnostics interface {
	// BeforeEdit is given the file's content before the edit (nil for a
	// new file).
	BeforeEdit(ctx context.Context, path string, old *string)
	// AfterEdit is given what was written and returns the note.
	AfterEdit(ctx context.Context, path, content string) string
}

// diagnoseBefore and diagnoseAfter run Env.Diagnostics when set.
func (e *Env) diagnoseBefore(ctx context.Context, path string, old *string) {
	if e != nil && e.Diagnostics != nil {
		e.Diagnostics.BeforeEdit(ctx, path, old)
	}
}

// touched tells Env.Diagnostics, when it wants to know (a Touched
// method), that read_file read path: the file's language server starts
// then, in the background, so that the edit that follows finds it ready.
func (e *Env) touched(path string) {
	if e == nil {
		return
	}
	if t, ok := e.Diagnostics.(interface{ Touched(path string) }); ok {
		t.Touched(path)
	}
}

// diagnoseAfter adds the note of new problems to r (the model's text and
// Notes).
func (e *Env) diagnoseAfter(ctx context.Context, path, content string, r *tool.Result) *tool.Result {
	if e == nil || e.Diagnostics == nil {
		return r
	}
	if note := e.Diagnostics.AfterEdit(ctx, path, content); note != "" {
		r.LLMText += " " + note
		r.Notes = note
	}
	return r
}

// Edit is a file change about to be written, as Env.BeforeEdit sees it.
type Edit struct {
	// Tool is the edit tool's name and Args the call's arguments as the
	// model sent them.
	Tool string
	Args map[string]any
	// Path is the absolute path about to be written.
	Path string
	// CallID and PromptID identify the call and the user prompt whose
	// turn made it (empty outside the engine).
	CallID, PromptID string
}

// beforeEdit runs Env.BeforeEdit when one is set.
func (e *Env) beforeEdit(ctx context.Context, toolName string, args map[string]any, path string) {
	if e == nil || e.BeforeEdit == nil {
		return
	}
	e.BeforeEdit(ctx, Edit{Tool: toolName, Args: args, Path: path, CallID: tool.CallID(ctx), PromptID: tool.PromptID(ctx)})
}
