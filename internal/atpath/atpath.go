// Package atpath finds the @path references in a prompt, with Gemini
// CLI's rules: "@" not preceded by a backslash starts a reference, which
// runs to the first space, comma, semicolon, "!", "?", bracket or brace,
// or to a "." that ends the text or is followed by white space (so
// "look at @main.go." names main.go); a backslash escapes the next
// character ("@my\ file.txt") and a "…" quoted stretch may hold spaces.
package atpath

import "strings"

// Part is a piece of a prompt: text, or a reference.
type Part struct {
	// Text is the literal text, or for a reference the text as typed
	// (with its "@").
	Text string
	// Path is the reference's path, unescaped ("" for text).
	Path string
}

// IsRef reports whether p is a reference.
func (p Part) IsRef() bool { return p.Path != "" }

// Parse splits s into text and references. Text that is only white space
// is dropped, as Gemini CLI drops it.
func Parse(s string) []Part {
	var parts []Part
	last := 0
	addText := func(t string) {
		if strings.TrimSpace(t) != "" {
			parts = append(parts, Part{Text: t})
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '@' || (i > 0 && s[i-1] == '\\') {
			continue
		}
		end := scan(s, i+1)
		if end == i+1 {
			continue
		}
		addText(s[last:i])
		raw := s[i:end]
		parts = append(parts, Part{Text: raw, Path: Unescape(raw[1:])})
		last = end
		i = end - 1
	}
	addText(s[last:])
	return parts
}

// HasRefs reports whether s holds at least one reference.
func HasRefs(s string) bool {
	for _, p := range Parse(s) {
		if p.IsRef() {
			return true
		}
	}
	return false
}

func isStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ';', '!', '?', '(', ')', '[', ']', '{', '}':
		return true
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scan returns the end of the path starting at j.
func scan(s string, j int) int {
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			if k := strings.IndexByte(s[j+1:], '"'); k >= 0 {
				j += k + 2
				continue
			}
			j++
		case c == '\\' && j+1 < len(s) && s[j+1] != '\n' && s[j+1] != '\r':
			j += 2
		case c == '.':
			if j+1 >= len(s) || isSpace(s[j+1]) {
				return j
			}
			j++
		case isStop(c):
			return j
		default:
			j++
		}
	}
	return j
}

// Unescape removes backslash escapes and surrounding double quotes.
func Unescape(p string) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		p = p[1 : len(p)-1]
	}
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
