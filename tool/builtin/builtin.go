// Package builtin holds Castor's built-in tools, one file per tool, with
// the names, schemas and output texts Gemini CLI gives the model.
package builtin

import (
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
	// Gemini CLI's 5 minutes.
	ShellTimeout time.Duration
	// OutputLimit is the number of characters of shell output given to the
	// model before it is truncated and saved; zero means 40,000.
	OutputLimit int
	// MemoryFile is the global GEMINI.md that save_memory appends to.
	MemoryFile string
	// DisableRipgrep makes search_file_content skip ripgrep even when it
	// is installed (tools.useRipgrep: false).
	DisableRipgrep bool
}
