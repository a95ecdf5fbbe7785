package builtin

// The "Here is the updated code:" snippet that write_file and replace
// show the model after an edit.

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// diffContextSnippet returns the parts of newContent that differ from
// originalContent with contextLines lines around each change, gaps marked
// "...", as Gemini CLI's getDiffContextSnippet builds the "Here is the
// updated code:" text of write_file and replace. A new file (empty
// original) or an unchanged one yields newContent whole.
func diffContextSnippet(originalContent, newContent string, contextLines int) string {
	if originalContent == "" {
		return newContent
	}
	snippet, changed := changeSnippet(normalizeLineEndings(originalContent), normalizeLineEndings(newContent), contextLines)
	if !changed {
		return newContent
	}
	return snippet
}

// changeSnippet returns the lines of after that a line diff finds changed
// relative to before, each with contextLines lines around it, gaps marked
// "..."; changed is false when the diff finds nothing. It is the common
// part of diffContextSnippet and editSnippet, which differ in how they
// treat line endings.
func changeSnippet(before, after string, contextLines int) (snippet string, changed bool) {
	newLines := strings.Split(after, "\n")
	type span struct{ start, end int }
	var merged []span
	for _, d := range lcs.DiffLines(splitLinesKeepEnds(before), splitLinesKeepEnds(after)) {
		r := span{max(0, d.ReplStart-contextLines), min(len(newLines), d.ReplEnd+contextLines)}
		if n := len(merged); n > 0 && r.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, r.end)
			continue
		}
		merged = append(merged, r)
	}
	if len(merged) == 0 {
		return "", false
	}
	var parts []string
	last := 0
	for _, r := range merged {
		if r.start > last {
			parts = append(parts, "...")
		}
		parts = append(parts, strings.Join(newLines[r.start:r.end], "\n"))
		last = r.end
	}
	if last < len(newLines) {
		parts = append(parts, "...")
	}
	return strings.Join(parts, "\n"), true
}

// splitLinesKeepEnds splits s into lines that keep their "\n", the tokens a
// line diff compares (a last line without newline differs from the same
// line with one).
func splitLinesKeepEnds(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
