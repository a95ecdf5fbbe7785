package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/tool"
)

// listDirectoryTool is list_directory: the entries directly inside one
// directory, directories first, with file sizes.
type listDirectoryTool struct{ env *Env }

// NewListDirectory returns the list_directory tool.
func NewListDirectory(env *Env) tool.Tool { return &listDirectoryTool{env: env} }

// Name implements tool.Tool.
func (t *listDirectoryTool) Name() string { return "list_directory" }

// DisplayName implements tool.Tool.
func (t *listDirectoryTool) DisplayName() string { return "ReadFolder" }

// Kind implements tool.Tool; Gemini CLI files listing under search.
func (t *listDirectoryTool) Kind() tool.Kind { return tool.KindSearch }

// Description implements tool.Tool.
func (t *listDirectoryTool) Description() string {
	return "Lists the names of files and subdirectories directly within a specified directory path. Can optionally ignore entries matching provided glob patterns."
}

// Schema implements tool.Tool with the wire spec's parameters.
func (t *listDirectoryTool) Schema() map[string]any {
	filterOpt := func(what string) map[string]any {
		return map[string]any{"type": "boolean", "description": what}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path": map[string]any{
				"type":        "string",
				"description": "The absolute path to the directory to list (relative paths are resolved against the project root directory).",
			},
			"ignore": map[string]any{
				"type":        "array",
				"items":       map[string]any{"type": "string"},
				"description": "List of glob patterns to ignore",
			},
			"file_filtering_options": map[string]any{
				"type":        "object",
				"description": "Optional: Whether to respect ignore patterns from .gitignore or .geminiignore",
				"properties": map[string]any{
					"respect_git_ignore":    filterOpt("Optional: Whether to respect .gitignore patterns when listing files. Only available in git repositories. Defaults to true."),
					"respect_gemini_ignore": filterOpt("Optional: Whether to respect .geminiignore patterns when listing files. Defaults to true."),
				},
			},
		},
		"required": []any{"path"},
	}
}

// NormalizeArgs maps today's dir_path onto path.
func (t *listDirectoryTool) NormalizeArgs(args map[string]any) map[string]any {
	return renameArgs(args, map[string]string{"dir_path": "path"})
}

// Build implements tool.Tool.
func (t *listDirectoryTool) Build(args map[string]any) (tool.Call, error) {
	p, _ := argString(args, "path")
	abs, terr := t.env.resolvePath(p)
	if terr != nil {
		return nil, terr
	}
	c := &listDirectoryCall{env: t.env, abs: abs, ignore: argStringList(args, "ignore"),
		opts: tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true}}
	if ffo, ok := args["file_filtering_options"].(map[string]any); ok {
		if b, ok := argBool(ffo, "respect_git_ignore"); ok {
			c.opts.RespectGitIgnore = b
		}
		if b, ok := argBool(ffo, "respect_gemini_ignore"); ok {
			c.opts.RespectGeminiIgnore = b
		}
	}
	for _, pat := range c.ignore {
		c.ignoreRE = append(c.ignoreRE, simpleGlobRegexp(pat))
	}
	return c, nil
}

// simpleGlobRegexp compiles the basename patterns of list_directory's
// ignore parameter the way Gemini CLI does: "*" is any run of characters
// (slashes included), "?" one character, everything else literal.
func simpleGlobRegexp(pat string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range pat {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

type listDirectoryCall struct {
	env      *Env
	abs      string
	ignore   []string
	ignoreRE []*regexp.Regexp
	opts     tool.FilterOptions
}

// Describe implements tool.Call.
func (c *listDirectoryCall) Describe() string { return c.env.relPath(c.abs) }

// Confirmation implements tool.Call; listing needs no approval.
func (c *listDirectoryCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

type dirEntry struct {
	name  string
	isDir bool
	size  int64
}

// Execute implements tool.Call.
func (c *listDirectoryCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	fail := func(t tool.ErrorType, msg, display string) *tool.Result {
		return &tool.Result{LLMText: msg, Display: "Error: " + display, Error: &tool.Error{Type: t, Message: msg}}
	}
	if _, terr := c.env.resolvePath(c.abs); terr != nil {
		return &tool.Result{LLMText: terr.Message, Display: "Path not in workspace.", Error: terr}
	}
	fi, err := os.Stat(c.abs)
	if err != nil {
		return fail(tool.ErrLsExecutionError, "Error listing directory: "+nodeErrorMessage(err), "Failed to list directory.")
	}
	if !fi.IsDir() {
		return fail(tool.ErrPathIsNotADirectory, "Error: Path is not a directory: "+c.abs, "Path is not a directory.")
	}
	names, err := readDirNames(c.abs, c.env.realAllowed())
	if errors.Is(err, errOutsideWorkspace) {
		te := c.env.pathNotInWorkspaceError(c.abs)
		return &tool.Result{LLMText: te.Message, Display: "Path not in workspace.", Error: te}
	}
	if err != nil {
		return fail(tool.ErrLsExecutionError, "Error listing directory: "+nodeErrorMessage(err), "Failed to list directory.")
	}
	if len(names) == 0 {
		return &tool.Result{LLMText: fmt.Sprintf("Directory %s is empty.", c.abs), Display: "Directory is empty."}
	}

	filter := c.env.fileFilter(c.opts)
	ignored := 0
	var entries []dirEntry
	for _, name := range names {
		if ctx.Err() != nil {
			return tool.Fail(tool.ErrCancelled, "Operation cancelled.")
		}
		full := filepath.Join(c.abs, name)
		// Follow symlinks, as Node's fs.stat does; an entry whose stat fails
		// (a dangling link, a file deleted meanwhile) is left out.
		st, err := os.Stat(full)
		if err != nil {
			continue
		}
		if isIgnored(filter, full, st.IsDir()) {
			ignored++
			continue
		}
		if c.matchesIgnore(name) {
			continue
		}
		e := dirEntry{name: name, isDir: st.IsDir()}
		if !e.isDir {
			e.size = st.Size()
		}
		entries = append(entries, e)
	}
	col := textutil.NewCollator()
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].isDir != entries[j].isDir {
			return entries[i].isDir
		}
		return col.Compare(entries[i].name, entries[j].name) < 0
	})

	lines := make([]string, len(entries))
	for i, e := range entries {
		if e.isDir {
			lines[i] = "[DIR] " + e.name
		} else {
			lines[i] = fmt.Sprintf("%s (%d bytes)", e.name, e.size)
		}
	}
	msg := fmt.Sprintf("Directory listing for %s:\n%s", c.abs, strings.Join(lines, "\n"))
	display := fmt.Sprintf("Listed %d item(s).", len(entries))
	if ignored > 0 {
		msg += fmt.Sprintf("\n\n(%d ignored)", ignored)
		display += fmt.Sprintf(" (%d ignored)", ignored)
	}
	return &tool.Result{LLMText: msg, Display: display}
}

func (c *listDirectoryCall) matchesIgnore(name string) bool {
	for _, re := range c.ignoreRE {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// readDirNames lists a directory's entry names, checking on the opened
// directory that it lies where allowed says it may.
func readDirNames(dir string, allowed func(string) bool) ([]string, error) {
	f, err := openVerified(dir, allowed)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
