package builtin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/castor-dev/castor/tool"
)

// writeFileTool is write_file: create or overwrite a whole file.
type writeFileTool struct{ env *Env }

// NewWriteFile returns the write_file tool.
func NewWriteFile(env *Env) tool.Tool { return &writeFileTool{env: env} }

// Name implements tool.Tool.
func (t *writeFileTool) Name() string { return "write_file" }

// DisplayName implements tool.Tool.
func (t *writeFileTool) DisplayName() string { return "WriteFile" }

// Kind implements tool.Tool.
func (t *writeFileTool) Kind() tool.Kind { return tool.KindEdit }

// Description implements tool.Tool.
func (t *writeFileTool) Description() string {
	return "Writes content to a specified file in the local filesystem.\n\n      The user has the ability to modify `content`. If modified, this will be stated in the response."
}

// Schema implements tool.Tool.
func (t *writeFileTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"file_path": map[string]any{
				"type":        "string",
				"description": "The absolute path to the file to write to (e.g., '/home/user/project/file.txt'). Relative paths are resolved against the project root directory.",
			},
			"content": map[string]any{
				"type":        "string",
				"description": "The content to write to the file.",
			},
		},
		"required": []any{"file_path", "content"},
	}
}

// Build implements tool.Tool.
func (t *writeFileTool) Build(args map[string]any) (tool.Call, error) {
	p, _ := argString(args, "file_path")
	if p == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, `Missing or empty "file_path"`)
	}
	content, _ := argString(args, "content")
	abs, terr := t.env.resolveWritePath(p)
	if terr != nil {
		return nil, terr
	}
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Path is a directory, not a file: %s", abs)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Error accessing path properties for validation: %s. Reason: %s", abs, nodeErrorMessage(err))
	}
	return &writeFileCall{env: t.env, args: args, abs: abs, proposed: content, content: content}, nil
}

// writeFileCall is one write; it implements tool.Modifiable so a user may
// change the content before accepting.
type writeFileCall struct {
	env      *Env
	args     map[string]any // as the model sent them, for Env.BeforeEdit
	abs      string
	proposed string // what the model asked for

	mu       sync.Mutex
	content  string // what will be written (proposed unless modified)
	modified bool
}

// Describe implements tool.Call.
func (c *writeFileCall) Describe() string { return "Writing to " + c.env.relPath(c.abs) }

// ApplyUserContent implements tool.Modifiable: the user's version replaces
// the model's, and the model is told so in the result.
func (c *writeFileCall) ApplyUserContent(newContent string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.content = newContent
	c.modified = newContent != c.proposed
}

func (c *writeFileCall) current() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.content, c.modified
}

// readExisting returns the file's current content; exists is false when it
// does not exist, and err is set when it exists but cannot be read.
func (c *writeFileCall) readExisting() (content string, exists bool, err error) {
	b, err := c.env.readFileSafe(c.abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", true, err
	}
	return string(b), true, nil
}

// Confirmation implements tool.Call: an edit confirmation with the unified
// diff from the current content to the proposal.
func (c *writeFileCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	original, _, err := c.readExisting()
	if err != nil {
		// Gemini CLI skips the confirmation of a file it cannot read; the
		// write then fails in Execute without touching the file.
		return nil, nil
	}
	content, _ := c.current()
	name := filepath.Base(c.abs)
	return &tool.ConfirmationDetails{
		Type:            tool.ConfirmEdit,
		Title:           "Confirm Write: " + c.env.relPath(c.abs),
		FileName:        name,
		FilePath:        c.abs,
		FileDiff:        tool.UnifiedDiff(name, original, content),
		OriginalContent: &original,
		NewContent:      content,
	}, nil
}

// Execute implements tool.Call.
func (c *writeFileCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	if ctx.Err() != nil {
		return tool.Fail(tool.ErrCancelled, "Operation cancelled.")
	}
	if _, terr := c.env.resolvePath(c.abs); terr != nil {
		return &tool.Result{LLMText: terr.Message, Display: "Error: Path not in workspace.", Error: terr}
	}
	content, modified := c.current()
	original, exists, err := c.readExisting()
	if errors.Is(err, errOutsideWorkspace) {
		return c.env.writeFailure(c.abs, err)
	}
	if err != nil {
		msg := "Error checking existing file: " + err.Error()
		if name := errnoName(err, ""); name != "" {
			msg = "Error checking existing file '" + c.abs + "': " + nodeErrorMessage(err) + " (" + name + ")"
		}
		return tool.Fail(tool.ErrFileWriteFailure, msg)
	}
	isNew := !exists

	final := content
	// An existing CRLF file stays CRLF whatever line endings the model
	// used; new files are written as given (LF on the platforms we run).
	if !isNew && original != "" && detectLineEnding(original) == "\r\n" {
		final = applyLineEnding(content, "\r\n")
	}
	c.env.beforeEdit(ctx, "write_file", c.args, c.abs)
	var before *string
	if !isNew {
		before = &original
	}
	c.env.diagnoseBefore(ctx, c.abs, before)
	if err := c.env.writeFileSafe(c.abs, []byte(final)); err != nil {
		return c.env.writeFailure(c.abs, err)
	}

	parts := []string{"Successfully overwrote file: " + c.abs + "."}
	if isNew {
		parts[0] = "Successfully created and wrote to new file: " + c.abs + "."
	}
	if modified {
		parts = append(parts, "User modified the `content` to be: "+content)
	}
	snippetBase := original
	if isNew {
		snippetBase = ""
	}
	parts = append(parts, "Here is the updated code:\n"+diffContextSnippet(snippetBase, final, 5))

	var origPtr *string
	if !isNew {
		origPtr = &original
	}
	return c.env.diagnoseAfter(ctx, c.abs, final, &tool.Result{
		LLMText: strings.Join(parts, " "),
		Display: parts[0],
		Diff:    tool.NewFileDiff(c.abs, origPtr, c.proposed, content),
	})
}
