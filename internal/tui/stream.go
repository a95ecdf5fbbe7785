package tui

import (
	"strings"

	"github.com/castor-dev/castor/internal/mdterm"
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
// renderer until the width or style changes. The renderer is made on the
// first render, so a terminal that never shows an answer never makes one.
type markdown struct {
	r     *mdterm.Renderer
	width int
	style string
	plain bool
}

func (m *markdown) set(width int, style string, plain bool) {
	if width == m.width && style == m.style && plain == m.plain {
		return
	}
	m.width, m.style, m.plain, m.r = width, style, plain, nil
}

// mdIndent is the margin of an answer's lines.
const mdIndent = "  "

// render returns src rendered without leading and trailing blank lines.
func (m *markdown) render(src string) string {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	if m.plain {
		return strings.Trim(src, "\n")
	}
	if m.r == nil {
		t := mdterm.Theme{}
		switch m.style {
		case "dark":
			t = mdterm.DarkTheme
		case "light":
			t = mdterm.LightTheme
		}
		m.r = mdterm.New(max(m.width-4, 20)-len(mdIndent), t)
	}
	lines := strings.Split(m.r.Render(src), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = mdIndent + l
		}
	}
	return strings.Join(lines, "\n")
}
