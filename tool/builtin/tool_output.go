package builtin

// Oversized tool output: cut for the model and saved whole under the
// project temp dir, as Gemini CLI does.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// toolOutputsDir is the directory under the project temp dir where
// oversized tool outputs are saved.
const toolOutputsDir = "tool-outputs"

// formatThousands renders n with comma separators, as JavaScript's
// toLocaleString does in the en-US locale Gemini CLI's texts assume.
func formatThousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b bytes.Buffer
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// truncateToolOutput shortens content longer than maxChars (counted in
// UTF-16 units) to Gemini CLI's form: the first 20% and the last 80% of
// maxChars around an omission marker, headed by where the full output was
// saved. Content within the limit is returned unchanged.
func truncateToolOutput(content, outputFile string, maxChars int) string {
	if utf16Len(content) <= maxChars {
		return content
	}
	u := utf16.Encode([]rune(content))
	head := maxChars / 5
	tail := maxChars - head
	omitted := len(u) - head - tail
	return fmt.Sprintf("Output too large. Showing first %s and last %s characters. For full output see: %s\n%s\n\n... [%s characters omitted] ...\n\n%s",
		formatThousands(head), formatThousands(tail), outputFile,
		string(utf16.Decode(u[:head])), formatThousands(omitted), string(utf16.Decode(u[len(u)-tail:])))
}

// sanitizeFilenamePart replaces every character but [A-Za-z0-9_-] with "_"
// so that tool names and call ids make safe file names.
func sanitizeFilenamePart(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// saveToolOutput saves content, the full output of a call to toolName, as
// <tempDir>/tool-outputs/<tool>_<id>.txt (just <id>.txt when the id already
// starts with the tool name) and returns the file's path. tempDir "" uses
// the system temp directory.
func saveToolOutput(tempDir, toolName, id, content string) (string, error) {
	if tempDir == "" {
		tempDir = os.TempDir()
	}
	safeTool := strings.ToLower(sanitizeFilenamePart(toolName))
	safeID := strings.ToLower(sanitizeFilenamePart(id))
	name := safeTool + "_" + safeID + ".txt"
	if strings.HasPrefix(safeID, safeTool) {
		name = safeID + ".txt"
	}
	dir := filepath.Join(tempDir, toolOutputsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return "", err
	}
	return p, nil
}
