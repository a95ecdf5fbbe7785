package tool

import (
	"fmt"
	"os"
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
// The shell tool (tool/builtin) and MCP results both use it.
func LimitOutput(text, tempDir, toolName, id string, maxChars int) string {
	if maxChars <= 0 {
		maxChars = DefaultOutputLimit
	}
	if utf16Len(text) <= maxChars {
		return text
	}
	file, err := saveOutput(tempDir, toolName, id, text)
	if err != nil {
		file = "(could not save full output: " + err.Error() + ")"
	}
	return truncateOutput(text, file, maxChars)
}

// utf16Len counts s in UTF-16 units, as JavaScript's length does.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// truncateOutput shortens content longer than maxChars (UTF-16 units) to
// Gemini CLI's form: the first 20% and the last 80% of maxChars around an
// omission marker, headed by where the full output was saved. Content
// within the limit is returned unchanged.
func truncateOutput(content, outputFile string, maxChars int) string {
	if utf16Len(content) <= maxChars {
		return content
	}
	u := utf16.Encode([]rune(content))
	head := maxChars / 5
	tail := maxChars - head
	return noticeText(string(utf16.Decode(u[:head])), string(utf16.Decode(u[len(u)-tail:])), head, tail, len(u)-head-tail, outputFile)
}

// noticeText is Gemini CLI's text for a cut output: start and end (of
// headChars and tailChars), omitted characters left out, saved to file.
func noticeText(start, end string, headChars, tailChars, omitted int, file string) string {
	return fmt.Sprintf("Output too large. Showing first %s and last %s characters. For full output see: %s\n%s\n\n... [%s characters omitted] ...\n\n%s",
		thousands(headChars), thousands(tailChars), file, start, thousands(omitted), end)
}

// safeFilePart replaces every character but [A-Za-z0-9_-] with "_" and
// lowercases, so that tool names and call ids make safe file names.
func safeFilePart(s string) string {
	return strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s))
}

// saveOutput saves content, the full output of a call to toolName, as
// <tempDir>/tool-outputs/<tool>_<id>.txt (just <id>.txt when the id
// already starts with the tool name) and returns the file's path.
// tempDir "" uses the system temp directory.
func saveOutput(tempDir, toolName, id, content string) (string, error) {
	p, err := outputPath(tempDir, toolName, id)
	if err != nil {
		return "", err
	}
	return p, os.WriteFile(p, []byte(content), 0o644)
}

// thousands writes n with comma separators, as JavaScript's
// toLocaleString does in the en-US locale Gemini CLI's texts assume.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
