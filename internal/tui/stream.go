package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// maxTailLines bounds the part of a streaming answer that is re-rendered
// on every chunk. Finished blocks go to the scrollback and are never
// rendered again, so the work per chunk does not grow with the answer.
const maxTailLines = 40

// stream splits a streaming Markdown answer into finished blocks, printed
// once, and a live tail re-rendered as chunks arrive. A block is finished
// at a blank line outside a code fence; a fence or paragraph longer than
// maxTailLines is cut at a line end (a cut fence is closed, and opened
// again in the tail, so both halves render as code).
type stream struct {
	tail string
}

// Append adds a chunk and returns the Markdown that is now finished ("" if
// none).
func (s *stream) Append(text string) string {
	s.tail += text
	return s.cut()
}

// Flush returns whatever is left and empties the stream.
func (s *stream) Flush() string {
	t := s.tail
	s.tail = ""
	return t
}

// Tail is the unfinished Markdown.
func (s *stream) Tail() string { return s.tail }

func (s *stream) cut() string {
	t := s.tail
	inFence := false
	fence := ""
	cut := -1    // end of the last blank line outside a fence
	lines := 0   // lines since cut
	lastNL := -1 // end of the last complete line
	start := 0
	for start < len(t) {
		nl := strings.IndexByte(t[start:], '\n')
		if nl < 0 {
			break
		}
		line := t[start : start+nl]
		end := start + nl + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if !inFence {
				inFence, fence = true, trimmed
			} else if strings.HasPrefix(trimmed, fence[:3]) && strings.Trim(trimmed, fence[:1]) == "" {
				inFence = false
			}
		case trimmed == "" && !inFence:
			cut, lines = end, 0
		}
		lines++
		lastNL = end
		start = end
	}
	if cut > 0 && (lines <= maxTailLines || lastNL < 0) {
		s.tail = t[cut:]
		return t[:cut]
	}
	if lines > maxTailLines && lastNL > 0 {
		if inFence {
			marker := fence[:3]
			s.tail = fence + "\n" + t[lastNL:]
			return t[:lastNL] + marker + "\n"
		}
		s.tail = t[lastNL:]
		return t[:lastNL]
	}
	return ""
}

// markdown renders Markdown for the terminal at a width, reusing one
// glamour renderer until the width or style changes.
type markdown struct {
	r     *glamour.TermRenderer
	width int
	style string
	plain bool
	// narrow are renderers at the natural widths of tables (mdtable.go).
	narrow map[int]*glamour.TermRenderer
}

func (m *markdown) set(width int, style string, plain bool) {
	if width == m.width && style == m.style && plain == m.plain && (m.r != nil || plain) {
		return
	}
	m.width, m.style, m.plain, m.r, m.narrow = width, style, plain, nil, nil
	if plain {
		return
	}
	m.r = newGlamour(style, max(width-4, 20))
}

// render returns src rendered without leading and trailing blank lines.
func (m *markdown) render(src string) string {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	if m.r == nil {
		return strings.Trim(src, "\n")
	}
	var outs []string
	for _, seg := range splitTables(src) {
		r := m.r
		if seg.table > 0 {
			r = m.tableRenderer(seg.table)
		}
		out, err := r.Render(seg.src)
		if err != nil {
			return strings.Trim(src, "\n")
		}
		if out = trimBlankLines(out); out != "" {
			outs = append(outs, out)
		}
	}
	return strings.Join(outs, "\n\n")
}

// trimBlankLines drops blank lines (spaces and styling only) at both ends
// and the padding on each line, which glamour adds (trimPadding).
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = trimPadding(l)
	}
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
