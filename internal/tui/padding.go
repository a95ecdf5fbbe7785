package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// trimPadding drops the spaces a line is padded with on the right, escape
// sequences or not: glamour pads every line of a block to the wrap width
// with styled spaces ("\x1b[38;5;252m \x1b[m" each), which
// strings.TrimRight does not see. Padded lines cost rows when the
// terminal narrows: it reflows each padded line into two, so a resize
// while an answer streamed left blank rows between its paragraphs, and
// the live area's tail took more rows than the renderer counted.
// Spaces on a background colour are drawn, not padding, and stay; the
// escape sequences among the dropped spaces stay too (a reset must not
// be lost).
func trimPadding(line string) string {
	if !strings.HasSuffix(ansi.Strip(line), " ") {
		return line
	}
	type token struct {
		s       string
		printed bool // not an escape sequence (graphemes, controls)
		pad     bool // a space without a background colour
	}
	var toks []token
	bg := false
	var state byte
	for s := line; s != ""; {
		seq, width, n, next := ansi.DecodeSequence(s, state, nil)
		if n <= 0 {
			return line
		}
		state, s = next, s[n:]
		if width == 0 && strings.HasPrefix(seq, "\x1b") {
			if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
				bg = sgrBackground(seq[2:len(seq)-1], bg)
			}
			toks = append(toks, token{s: seq})
			continue
		}
		toks = append(toks, token{s: seq, printed: true, pad: seq == " " && !bg})
	}
	end := len(toks)
	for end > 0 && (!toks[end-1].printed || toks[end-1].pad) {
		end--
	}
	var b strings.Builder
	for i, t := range toks {
		if i < end || !t.printed {
			b.WriteString(t.s)
		}
	}
	return b.String()
}

// sgrBackground reports whether a background colour is set after the SGR
// sequence with parameters params, bg saying whether one was before.
func sgrBackground(params string, bg bool) bool {
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' })
	if params == "" {
		return false
	}
	for i := 0; i < len(ps); i++ {
		p, sub, _ := strings.Cut(ps[i], ":")
		switch {
		case p == "" || p == "0" || p == "49":
			bg = false
		case p == "38" || p == "48" || p == "58":
			// A colour: 5;n or 2;r;g;b follow, unless written with colons.
			if p == "48" {
				bg = true
			}
			if sub == "" && i+1 < len(ps) {
				switch ps[i+1] {
				case "5":
					i += 2
				case "2":
					i += 4
				}
			}
		case len(p) == 2 && p[0] == '4' && p[1] >= '0' && p[1] <= '7',
			len(p) == 3 && p[:2] == "10" && p[2] >= '0' && p[2] <= '7':
			bg = true
		}
	}
	return bg
}
