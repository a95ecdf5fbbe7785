package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// DefaultOutputLimit is Gemini CLI's tools.truncateToolOutputThreshold:
// the characters of a tool's text output given to the model before it is
// cut.
const DefaultOutputLimit = 40000

// LimitOutput applies Gemini CLI's tool output truncation to text, the
// output of a call (toolName, id): within maxChars (counted in UTF-16
// units, as JavaScript counts) it is returned unchanged; beyond, the whole
// text is saved as <tempDir>/tool-outputs/<tool>_<id>.txt and the model
// gets the first 20% and last 80% of maxChars around an omission marker,
// headed by where the full output is. maxChars ≤ 0 means
// DefaultOutputLimit.
//
// tool/builtin's shell tool applies the same form to its output; MCP
// results use this.
func LimitOutput(text, tempDir, toolName, id string, maxChars int) string {
	if maxChars <= 0 {
		maxChars = DefaultOutputLimit
	}
	u := utf16.Encode([]rune(text))
	if len(u) <= maxChars {
		return text
	}
	file, err := saveOutput(tempDir, toolName, id, text)
	if err != nil {
		file = "(could not save full output: " + err.Error() + ")"
	}
	head := maxChars / 5
	tail := maxChars - head
	return fmt.Sprintf("Output too large. Showing first %s and last %s characters. For full output see: %s\n%s\n\n... [%s characters omitted] ...\n\n%s",
		thousands(head), thousands(tail), file,
		string(utf16.Decode(u[:head])), thousands(len(u)-head-tail), string(utf16.Decode(u[len(u)-tail:])))
}

func saveOutput(tempDir, toolName, id, content string) (string, error) {
	if tempDir == "" {
		tempDir = os.TempDir()
	}
	safe := func(s string) string {
		return strings.ToLower(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
				return r
			}
			return '_'
		}, s))
	}
	name := safe(toolName) + "_" + safe(id) + ".txt"
	if strings.HasPrefix(safe(id), safe(toolName)) {
		name = safe(id) + ".txt"
	}
	dir := filepath.Join(tempDir, "tool-outputs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, []byte(content), 0o644)
}

// thousands writes n with comma separators (en-US), as Gemini CLI does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
