package builtin

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/castor-dev/castor/tool"
)

// readFileTool is read_file: one file's content for the model, text as is
// (no line numbers) and media as inline data.
//
// It is declared with the wire spec's parameters (absolute_path, offset,
// limit: 0-based offset and a line count) and also accepts today's Gemini
// CLI spelling (file_path, start_line, end_line: 1-based and inclusive). The
// paging advice in a truncated result names the parameters the model used.
type readFileTool struct{ env *Env }

// NewReadFile returns the read_file tool.
func NewReadFile(env *Env) tool.Tool { return &readFileTool{env: env} }

// Name implements tool.Tool.
func (t *readFileTool) Name() string { return "read_file" }

// DisplayName implements tool.Tool.
func (t *readFileTool) DisplayName() string { return "ReadFile" }

// Kind implements tool.Tool.
func (t *readFileTool) Kind() tool.Kind { return tool.KindRead }

// Description implements tool.Tool.
func (t *readFileTool) Description() string {
	return "Reads and returns the content of a specified file. If the file is large, the content will be truncated. The tool's response will clearly indicate if truncation has occurred and will provide details on how to read more of the file using the 'offset' and 'limit' parameters. Handles text, images (PNG, JPG, GIF, WEBP, SVG, BMP), audio files (MP3, WAV, AIFF, AAC, OGG, FLAC), and PDF files. For text files, it can read specific line ranges."
}

// Schema implements tool.Tool with the wire spec's parameters.
func (t *readFileTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"absolute_path": map[string]any{
				"type":        "string",
				"description": "The absolute path to the file to read (e.g., '/home/user/project/file.txt'). Relative paths are resolved against the project root directory.",
			},
			"offset": map[string]any{
				"type":        "number",
				"description": "Optional: For text files, the 0-based line number to start reading from. Requires 'limit' to be set. Use for paginating through large files.",
			},
			"limit": map[string]any{
				"type":        "number",
				"description": "Optional: For text files, maximum number of lines to read. Use with 'offset' to paginate through large files. If omitted, reads the entire file (if feasible, up to a default limit).",
			},
		},
		"required": []any{"absolute_path"},
	}
}

// NormalizeArgs maps today's file_path onto absolute_path so that schema
// validation accepts it; start_line and end_line stay as they are (the
// schema does not forbid extra properties) and Build reads them.
func (t *readFileTool) NormalizeArgs(args map[string]any) map[string]any {
	return renameArgs(args, map[string]string{"file_path": "absolute_path"})
}

// Build implements tool.Tool.
func (t *readFileTool) Build(args map[string]any) (tool.Call, error) {
	_, newStyle := args["file_path"]
	_, hasStart := args["start_line"]
	_, hasEnd := args["end_line"]
	newStyle = newStyle || hasStart || hasEnd
	pathParam := "absolute_path"
	if _, ok := args["file_path"]; ok {
		pathParam = "file_path"
	}

	p, _ := argString(args, "absolute_path")
	if strings.TrimSpace(p) == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, "The '%s' parameter must be non-empty.", pathParam)
	}
	abs, terr := t.env.resolvePath(p)
	if terr != nil {
		return nil, terr
	}
	c := &readFileCall{env: t.env, abs: abs, param: p, newStyle: newStyle}

	if newStyle {
		var err *tool.Error
		if c.startLine, err = lineArg(args, "start_line"); err != nil {
			return nil, err
		}
		if c.endLine, err = lineArg(args, "end_line"); err != nil {
			return nil, err
		}
		if c.startLine > 0 && c.endLine > 0 && c.startLine > c.endLine {
			return nil, tool.Errorf(tool.ErrInvalidParams, "start_line cannot be greater than end_line")
		}
	} else {
		if v, ok := argNumber(args, "offset"); ok {
			if v < 0 {
				return nil, tool.Errorf(tool.ErrInvalidParams, "Offset must be a non-negative number")
			}
			c.offset, c.hasOffset = int(math.Floor(min(v, maxLineArg))), true
		}
		if v, ok := argNumber(args, "limit"); ok {
			if v <= 0 {
				return nil, tool.Errorf(tool.ErrInvalidParams, "Limit must be a positive number")
			}
			c.limit = int(math.Ceil(min(v, maxLineArg)))
		}
	}

	f := t.env.fileFilter(tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true})
	if isIgnored(f, abs, false) {
		return nil, tool.Errorf(tool.ErrInvalidParams, "File path '%s' is ignored by configured ignore patterns.", abs)
	}
	return c, nil
}

// lineArg reads an optional 1-based line number parameter.
func lineArg(args map[string]any, key string) (int, *tool.Error) {
	v, present := args[key]
	if !present || v == nil {
		return 0, nil
	}
	n, ok := argNumber(args, key)
	if !ok {
		return 0, tool.Errorf(tool.ErrInvalidParams, "params/%s must be number", key)
	}
	if n < 1 {
		return 0, tool.Errorf(tool.ErrInvalidParams, "%s must be at least 1", key)
	}
	return int(min(n, maxLineArg)), nil
}

// maxLineArg bounds line numbers and counts from the model, so that absurd
// values cannot overflow the window arithmetic; no file has this many lines.
const maxLineArg = 1 << 31

type readFileCall struct {
	env   *Env
	abs   string
	param string

	newStyle           bool
	startLine, endLine int // new style, 1-based inclusive, 0 = unset
	offset, limit      int // spec style, 0-based offset, 0 limit = unset
	hasOffset          bool
}

// Describe implements tool.Call.
func (c *readFileCall) Describe() string { return c.env.relPath(c.abs) }

// Confirmation implements tool.Call; reading needs no approval.
func (c *readFileCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

// window returns the 1-based inclusive line range to read (0 = open).
func (c *readFileCall) window() (int, int) {
	if c.newStyle {
		start, end := c.startLine, c.endLine
		if start > 0 && end == 0 {
			// A start without an end reads the default window from there,
			// not the rest of a possibly huge file.
			end = start + defaultMaxLines - 1
		}
		return start, end
	}
	if !c.hasOffset && c.limit == 0 {
		return 0, 0
	}
	limit := c.limit
	if limit == 0 {
		limit = defaultMaxLines
	}
	return c.offset + 1, c.offset + limit
}

// Execute implements tool.Call.
func (c *readFileCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	if err := ctx.Err(); err != nil {
		return tool.Fail(tool.ErrCancelled, "Operation cancelled.")
	}
	// The path is checked again: a symlink may have been retargeted since
	// the call was built.
	if _, terr := c.env.resolvePath(c.abs); terr != nil {
		return &tool.Result{LLMText: terr.Message, Display: "Path not in workspace.", Error: terr}
	}
	start, end := c.window()
	fc := c.env.readFileForModel(c.abs, start, end)
	if fc.Err != nil {
		display := fc.Display
		if display == "" {
			display = "Error reading file"
		}
		return &tool.Result{LLMText: fc.Text, Display: display, Error: fc.Err}
	}
	if fc.Part != nil {
		return &tool.Result{LLMPart: fc.Part, Display: fc.Display}
	}
	text := fc.Text
	if w := fc.Window; w != nil && w.Truncated() {
		text = c.truncationHeader(*w) + text
	}
	c.env.touched(c.abs)
	return &tool.Result{LLMText: text, Display: fc.Display}
}

// truncationHeader is Gemini CLI's notice before a partial file, with the
// paging advice in the parameter style of the call.
func (c *readFileCall) truncationHeader(w textWindow) string {
	action := fmt.Sprintf("Action: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: %d.", w.LastLine)
	if c.newStyle {
		action = fmt.Sprintf("Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: %d.", w.LastLine+1)
	}
	return fmt.Sprintf("\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines %d-%d of %d total lines.\n%s\n\n--- FILE CONTENT (truncated) ---\n",
		w.FirstLine, w.LastLine, w.TotalLines, action)
}
