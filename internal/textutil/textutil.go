// Package textutil holds text helpers that Castor packages share where
// they must agree with JavaScript's idea of a string.
package textutil

import (
	"strings"
	"unicode/utf16"
)

// CutUTF16 returns the longest prefix of s that is at most n UTF-16 code
// units long (the unit JavaScript's String.length counts) without
// splitting a character; s itself when it fits. Invalid UTF-8 bytes count
// as one unit each.
func CutUTF16(s string, n int) string {
	if len(s) <= n {
		// Every UTF-16 unit takes at least one UTF-8 byte.
		return s
	}
	units := 0
	for i, r := range s {
		k := utf16.RuneLen(r)
		if k < 0 {
			k = 1
		}
		if units+k > n {
			return s[:i]
		}
		units += k
	}
	return s
}

// Paragraphs joins the parts that are not blank with an empty line
// between them, as instructions and memory are put together.
func Paragraphs(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

// EditDistance is the Levenshtein distance between a and b, in runes:
// how "did you mean …?" suggestions rank known names against a typo.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// WrapUntrusted encloses tool output in <untrusted_context> tags, escaping
// a closing tag inside it, as current Gemini CLI does with MCP and
// web_fetch output: the system prompt tells the model that what the tags
// hold is data, so a command's output or a page cannot end the fence
// early and speak as the user.
func WrapUntrusted(s string) string {
	s = strings.ReplaceAll(s, "</untrusted_context>", "&lt;/untrusted_context&gt;")
	return "<untrusted_context>\n" + s + "\n</untrusted_context>"
}
