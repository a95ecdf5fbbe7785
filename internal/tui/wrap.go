package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapLines fits text printed above the live area into limit columns.
// Lines break between words, as people read them: cutting at the limit
// split words ("Ent" / "er sends") in the banner, /help and the session
// list on narrow terminals. A word longer than a line is still cut, and
// a line that starts with spaces keeps them on its continuation lines.
// Most text arrives fitted already (Markdown is laid out to the width);
// it passes unchanged.
func wrapLines(text string, limit int) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) <= limit {
			continue
		}
		body := strings.TrimLeft(l, " ")
		indent := len(l) - len(body)
		if indent > limit/2 {
			indent = 0
			body = l
		}
		lines[i] = wrapWords(body, limit-indent, strings.Repeat(" ", indent))
	}
	return strings.Join(lines, "\n")
}

// hyphenGuard stands in for hyphens while a line is wrapped: ansi.Wrap
// always breaks after a hyphen, which tore "Ctrl-C" and ids apart.
const hyphenGuard = "\u2011"

func wrapWords(s string, limit int, indent string) string {
	guard := !strings.Contains(s, hyphenGuard)
	if guard {
		s = strings.ReplaceAll(s, "-", hyphenGuard)
	}
	out := strings.Split(ansi.Wrap(s, limit, ""), "\n")
	for i, l := range out {
		if guard {
			l = strings.ReplaceAll(l, hyphenGuard, "-")
		}
		out[i] = indent + l
	}
	return strings.Join(out, "\n")
}
