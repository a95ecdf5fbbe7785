package builtin

// Line endings: a file keeps the ones it had when a tool rewrites it.

import (
	"strings"
)

// detectLineEnding returns "\r\n" when content uses Windows line endings
// anywhere and "\n" otherwise, the test Gemini CLI's edit tools use to decide
// how to write a file back.
func detectLineEnding(content string) string {
	if strings.Contains(content, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// normalizeLineEndings converts CRLF line endings to LF.
func normalizeLineEndings(s string) string {
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// applyLineEnding converts s to use eol: with "\r\n" every line ending
// becomes CRLF (existing CRLFs are not doubled); with "\n" s is returned
// unchanged, since new LF content needs no conversion.
func applyLineEnding(s, eol string) string {
	if eol != "\r\n" {
		return s
	}
	return strings.ReplaceAll(normalizeLineEndings(s), "\n", "\r\n")
}
