package builtin

// The text matching behind replace and smart_edit. Everything here works on
// LF-normalised strings and is pure, so the fuzz tests can hammer it without
// touching the filesystem.

import (
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// editMatch is the outcome of looking for old in a file's content.
type editMatch struct {
	// Occurrences is how many places matched (0 when nothing did).
	Occurrences int
	// Content is the file content with every match replaced; it equals the
	// input when nothing matched.
	Content string
	// Strategy names the matcher that found the occurrences ("exact" or
	// "flexible"), for telemetry and tests.
	Strategy string
}

// editExactMatch counts the non-overlapping occurrences of old in content and
// replaces all of them with repl. The replacement is literal: Go's
// strings.ReplaceAll never interprets "$" sequences, which is the bug
// Gemini CLI's safeLiteralReplace exists to avoid in JavaScript.
func editExactMatch(content, old, repl string) editMatch {
	if old == "" {
		return editMatch{Content: content}
	}
	n := strings.Count(content, old)
	if n == 0 {
		return editMatch{Content: content}
	}
	out := strings.ReplaceAll(content, old, repl)
	return editMatch{Occurrences: n, Content: editRestoreTrailingNewline(content, out), Strategy: "exact"}
}

// editFlexibleMatch finds windows of whole lines whose trimmed text equals
// the trimmed lines of old, and replaces each window with repl re-indented
// to the indentation of the window's first line. It catches the commonest
// model mistake, wrong indentation, without letting the match drift inside
// a line. Windows do not overlap; the scan resumes after each replacement.
func editFlexibleMatch(content, old, repl string) editMatch {
	search := editSplitLines(strings.TrimSuffix(old, "\n"))
	allBlank := true
	for i, l := range search {
		search[i] = strings.TrimSpace(l)
		if search[i] != "" {
			allBlank = false
		}
	}
	// A search of blank lines would match every run of blank lines in the
	// file; exact matching already had its chance at those.
	if allBlank {
		return editMatch{Content: content}
	}
	source := editSplitKeepEOL(content)
	var replLines []string
	if repl != "" {
		replLines = editSplitLines(strings.TrimSuffix(repl, "\n"))
	}
	var b strings.Builder
	n := 0
	i := 0
	for i < len(source) {
		if i+len(search) <= len(source) && editWindowMatches(source[i:i+len(search)], search) {
			n++
			window := source[i : i+len(search)]
			if len(replLines) > 0 {
				indent := editLeadingIndent(window[0])
				b.WriteString(strings.Join(editReindent(replLines, indent), "\n"))
				if strings.HasSuffix(window[len(window)-1], "\n") {
					b.WriteByte('\n')
				}
			}
			i += len(search)
			continue
		}
		b.WriteString(source[i])
		i++
	}
	if n == 0 {
		return editMatch{Content: content}
	}
	return editMatch{Occurrences: n, Content: editRestoreTrailingNewline(content, b.String()), Strategy: "flexible"}
}

// editWindowMatches reports whether every line of window, trimmed, equals
// the corresponding trimmed search line.
func editWindowMatches(window, search []string) bool {
	for j, l := range window {
		if strings.TrimSpace(l) != search[j] {
			return false
		}
	}
	return true
}

// editSplitLines splits s on "\n"; "" gives one empty line.
func editSplitLines(s string) []string { return strings.Split(s, "\n") }

// editSplitKeepEOL splits s into lines that keep their "\n", so that joining
// them gives s back; a final line without "\n" is kept, "" gives none.
func editSplitKeepEOL(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// editLeadingIndent returns the spaces and tabs that start line.
func editLeadingIndent(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// editReindent moves lines to indent: the first line's indentation is the
// reference, replaced by indent on every line that starts with it; other
// lines are trimmed and given indent; blank lines become empty.
func editReindent(lines []string, indent string) []string {
	ref := editLeadingIndent(lines[0])
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
			out[i] = ""
		case strings.HasPrefix(l, ref):
			out[i] = indent + l[len(ref):]
		default:
			out[i] = indent + strings.TrimLeft(l, " \t")
		}
	}
	return out
}

// editRestoreTrailingNewline makes modified end with a newline exactly when
// original did: an edit of the last lines must not add or drop the file's
// final newline behind the user's back.
func editRestoreTrailingNewline(original, modified string) string {
	had := strings.HasSuffix(original, "\n")
	has := strings.HasSuffix(modified, "\n")
	switch {
	case had && !has:
		return modified + "\n"
	case !had && has:
		return modified[:len(modified)-1]
	}
	return modified
}

// editOmissionPrefixes are the phrases that, followed (or preceded) by an
// ellipsis on a line of their own, mean the model left code out.
var editOmissionPrefixes = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"rest of":           true,
		"rest of method":    true,
		"rest of methods":   true,
		"rest of code":      true,
		"unchanged code":    true,
		"unchanged method":  true,
		"unchanged methods": true,
	}
}}

// editDetectOmissions returns the omission placeholders in text, one
// normalised token ("rest of code ...") per placeholder line. It accepts
// Gemini CLI's forms ("// rest of methods ...", "(unchanged code ...)") and,
// beyond them, the ellipsis-first form models write just as often
// ("// ... rest of code") and "#" comments.
func editDetectOmissions(text string) []string {
	var out []string
	for _, line := range strings.Split(normalizeLineEndings(text), "\n") {
		if tok := editOmissionToken(line); tok != "" {
			out = append(out, tok)
		}
	}
	return out
}

// editOmissionToken returns the normalised placeholder on line, or "".
func editOmissionToken(line string) string {
	t := strings.TrimSpace(line)
	for _, p := range []string{"//", "#"} {
		if strings.HasPrefix(t, p) {
			t = strings.TrimSpace(t[len(p):])
			break
		}
	}
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	i := strings.Index(t, "...")
	if i < 0 {
		return ""
	}
	before := strings.Join(strings.Fields(strings.ToLower(t[:i])), " ")
	after := strings.TrimSpace(t[i+3:])
	if before == "" {
		// Ellipsis first: "... rest of code" (optionally with more dots).
		after = strings.TrimLeft(after, ".")
		phrase := strings.Join(strings.Fields(strings.ToLower(after)), " ")
		if editOmissionPrefixes.Get()[phrase] {
			return phrase + " ..."
		}
		return ""
	}
	if !editOmissionPrefixes.Get()[before] || strings.Trim(after, ".") != "" {
		return ""
	}
	return before + " ..."
}

// editOmissionError is the validation text Gemini CLI gives when new_string
// introduces a placeholder that old_string did not have.
const editOmissionError = "`new_string` contains an omission placeholder (for example 'rest of methods ...'). Provide exact literal replacement text."

// editIntroducesOmission reports whether newStr has a placeholder oldStr
// lacks (a placeholder present in both is real file content being moved).
func editIntroducesOmission(oldStr, newStr string) bool {
	added := editDetectOmissions(newStr)
	if len(added) == 0 {
		return false
	}
	have := map[string]bool{}
	for _, p := range editDetectOmissions(oldStr) {
		have[p] = true
	}
	for _, p := range added {
		if !have[p] {
			return true
		}
	}
	return false
}

// editSnippet returns the parts of newContent that changed relative to
// original, each with contextLines lines around it, separated by "..."
// lines: the "Here is the updated code:" text that spares the model a
// verification read. A new file (original "") is returned whole.
func editSnippet(original, newContent string, contextLines int) string {
	if original == "" {
		return newContent
	}
	// Unlike diffContextSnippet it leaves line endings alone: the edit
	// tools pass LF text already, and the snippet shows only lines that
	// are in newContent.
	snippet, changed := changeSnippet(original, newContent, contextLines)
	if !changed {
		return newContent
	}
	return snippet
}
