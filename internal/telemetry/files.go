package telemetry

import (
	"context"
	"fmt"
	"mime"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/castor-dev/castor/agent"
)

// Gemini CLI 0.61's file operations (FileOperation) and their event.
const (
	fileCreate         = "create"
	fileRead           = "read"
	fileUpdate         = "update"
	eventFileOperation = "gemini_cli.file_operation"
)

// fileOperation is what a successful file tool did to one file, as Gemini
// CLI's read_file and write_file log it; ok is false for other calls.
func fileOperation(c *agent.ToolCall) (op, path string, lines int, ok bool) {
	if c.Status != agent.StatusSuccess || c.Result == nil {
		return "", "", 0, false
	}
	switch c.Name {
	case "read_file":
		path = argString(c.Args, "absolute_path", "file_path")
		text := c.Result.LLMText
		if path == "" || text == "" {
			return "", "", 0, false // a binary file's parts: no lines
		}
		return fileRead, path, len(strings.Split(text, "\n")), true
	case "write_file":
		d := c.Result.Diff
		if d == nil {
			return "", "", 0, false
		}
		path = orDefault(d.FilePath, argString(c.Args, "file_path"))
		op = fileUpdate
		if d.OriginalContent == nil {
			op = fileCreate
		}
		return op, path, len(strings.Split(d.NewContent, "\n")), true
	}
	return "", "", 0, false
}

func argString(args map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// fileCalled records a file tool's gemini_cli.file_operation event and
// gemini_cli.file.operation.count, and an edit's gemini_cli.lines.changed
// (the lines the model added and removed, as Gemini CLI counts them from
// the call's diff).
func (t *Telemetry) fileCalled(ctx context.Context, sessionID string, c *agent.ToolCall, end time.Time, common []attribute.KeyValue) {
	if c.Status == agent.StatusSuccess && c.Result != nil && c.Result.Diff != nil && c.Result.Diff.DiffStat != nil {
		st := c.Result.Diff.DiffStat
		for _, ch := range []struct {
			kind string
			n    int
		}{{"added", st.ModelAddedLines}, {"removed", st.ModelRemovedLines}} {
			if ch.n > 0 {
				t.m.linesChanged.Add(ctx, int64(ch.n), append(common,
					attribute.String("type", ch.kind), attribute.String("function_name", c.Name))...)
			}
		}
	}
	op, path, lines, ok := fileOperation(c)
	if !ok {
		return
	}
	kv := []attribute.KeyValue{attribute.String("operation", op), attribute.Int("lines", lines)}
	ext := filepath.Ext(path)
	if mt := mimeType(ext); mt != "" {
		kv = append(kv, attribute.String("mimetype", mt))
	}
	if ext != "" {
		kv = append(kv, attribute.String("extension", ext))
	}
	t.emit(ctx, eventFileOperation, sessionID, fmt.Sprintf("File operation: %s. Lines: %d.", op, lines), end,
		append([]attribute.KeyValue{attribute.String("tool_name", c.Name)}, kv...)...)
	t.m.fileOps.Add(ctx, 1, append(common, kv...)...)
}

// mimeType is the file type of an extension, without parameters
// ("text/html", not "text/html; charset=utf-8"), or "" when unknown.
func mimeType(ext string) string {
	mt, _, _ := strings.Cut(mime.TypeByExtension(ext), ";")
	return strings.TrimSpace(mt)
}
