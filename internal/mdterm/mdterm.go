// Package mdterm renders the Markdown a model writes for a terminal, the way
// Gemini CLI's own renderer does: line by line, headings, lists, block
// quotes, rules, pipe tables, fenced code with syntax highlighting, and
// inline emphasis, code and links, word-wrapped to a width.
//
// It is Castor's own, small on purpose: it allocates nothing until the
// first render, so the faces that never render Markdown (-p, A2A, ACP,
// the SDK) pay nothing for it at start.
package mdterm

import (
	"image/color"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/charmbracelet/x/ansi"
)

// Theme holds the colours of one terminal background.
type Theme struct {
	Text, Accent, Dim, Code color.Color
	// Syntax colours for code blocks.
	Keyword, String, Comment, Number color.Color
}

// DarkTheme and LightTheme are the colours of the TUI's dark and light
// themes (Catppuccin Mocha and Latte). Written as the color.RGBA that
// lipgloss.Color("#rrggbb") returns, so that the compiler lays them out
// and no code runs for them at start.
var (
	DarkTheme = Theme{
		Text: color.RGBA{0xCD, 0xD6, 0xF4, 0xff}, Accent: color.RGBA{0x89, 0xB4, 0xFA, 0xff}, Dim: color.RGBA{0x7F, 0x84, 0x9C, 0xff},
		Code: color.RGBA{0xF5, 0xC2, 0xE7, 0xff}, Keyword: color.RGBA{0xCB, 0xA6, 0xF7, 0xff}, String: color.RGBA{0xA6, 0xE3, 0xA1, 0xff},
		Comment: color.RGBA{0x7F, 0x84, 0x9C, 0xff}, Number: color.RGBA{0xFA, 0xB3, 0x87, 0xff},
	}
	LightTheme = Theme{
		Text: color.RGBA{0x4C, 0x4F, 0x69, 0xff}, Accent: color.RGBA{0x1E, 0x66, 0xF5, 0xff}, Dim: color.RGBA{0x8C, 0x8F, 0xA1, 0xff},
		Code: color.RGBA{0xEA, 0x76, 0xCB, 0xff}, Keyword: color.RGBA{0x88, 0x39, 0xEF, 0xff}, String: color.RGBA{0x40, 0xA0, 0x2B, 0xff},
		Comment: color.RGBA{0x8C, 0x8F, 0xA1, 0xff}, Number: color.RGBA{0xFE, 0x64, 0x0B, 0xff},
	}
)

// Renderer renders Markdown at one width and theme. Not safe for
// concurrent use.
type Renderer struct {
	width  int
	theme  Theme
	styles map[style]string
}

// New returns a renderer that wraps at width columns (at least 20).
func New(width int, t Theme) *Renderer {
	return &Renderer{width: max(width, 20), theme: t, styles: map[style]string{}}
}

// style is a set of inline attributes and a colour role.
type style uint16

const (
	stBold style = 1 << iota
	stItalic
	stStrike
	stUnderline
	stCode
	stLink
	stDim
	stAccent
	stKeyword
	stString
	stComment
	stNumber
	stCodeText
)

// render draws text in a style: one SGR sequence before it and a reset
// after, so that every line stands on its own.
func (r *Renderer) render(s style, text string) string {
	if s == 0 || text == "" {
		return text
	}
	seq, ok := r.styles[s]
	if !ok {
		var st ansi.Style
		t := r.theme
		// One colour: the most specific role's.
		for _, c := range []struct {
			bit style
			col color.Color
		}{
			{stKeyword, t.Keyword}, {stString, t.String}, {stComment, t.Comment}, {stNumber, t.Number},
			{stCode, t.Code}, {stLink, t.Accent}, {stAccent, t.Accent}, {stDim, t.Dim}, {stCodeText, t.Text},
		} {
			if s&c.bit != 0 {
				if c.col != nil {
					st = st.ForegroundColor(c.col)
				}
				break
			}
		}
		if s&stBold != 0 {
			st = st.Bold()
		}
		if s&stItalic != 0 {
			st = st.Italic(true)
		}
		if s&stStrike != 0 {
			st = st.Strikethrough(true)
		}
		if s&stUnderline != 0 {
			st = st.Underline(true)
		}
		seq = st.String()
		r.styles[s] = seq
	}
	return seq + text + ansi.ResetStyle
}

// Block patterns, as Gemini CLI's renderer matches them.
var blockRE = lazy.Value[map[string]*regexp.Regexp]{New: func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"heading": regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`),
		"fence":   regexp.MustCompile("^( {0,3})(`{3,}|~{3,})[ \t]*([^`\\s]*)"),
		"ulist":   regexp.MustCompile(`^([ \t]*)([-*+])[ \t]+(.*)$`),
		"olist":   regexp.MustCompile(`^([ \t]*)(\d{1,9})([.)])[ \t]+(.*)$`),
		"rule":    regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`),
		"quote":   regexp.MustCompile(`^ {0,3}>[ \t]?(.*)$`),
	}
}}

// Render returns src rendered, lines joined by "\n", without blank lines
// at either end.
func (r *Renderer) Render(src string) string {
	re := blockRE.Get()
	// Invalid bytes would be measured one way alone and another in a line.
	src = strings.ToValidUTF8(strings.ReplaceAll(src, "\r\n", "\n"), "\uFFFD")
	lines := strings.Split(src, "\n")
	var out []string
	blank := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, r.wrap(r.inline(strings.Join(para, " "), 0), r.width, "", "")...)
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if m := re["fence"].FindStringSubmatch(l); m != nil {
			flush()
			fence := m[2]
			var code []string
			for i++; i < len(lines); i++ {
				c := strings.TrimSpace(lines[i])
				if strings.HasPrefix(c, fence) && strings.Trim(c, fence[:1]) == "" {
					break
				}
				code = append(code, strings.TrimPrefix(lines[i], m[1]))
			}
			out = append(out, r.code(code, m[3])...)
			continue
		}
		switch {
		case t == "":
			flush()
			blank()
		case re["heading"].MatchString(l):
			flush()
			m := re["heading"].FindStringSubmatch(l)
			s := stBold
			switch len(m[1]) {
			case 1, 2:
				s |= stAccent
			case 3:
			default:
				s = stItalic | stDim
			}
			out = append(out, r.wrap(r.inline(m[2], s), r.width, "", "")...)
		case re["rule"].MatchString(l):
			flush()
			out = append(out, r.render(stDim, strings.Repeat("─", r.width)))
		case isTableRow(l) && i+1 < len(lines) && isDelimiterRow(lines[i+1]):
			flush()
			j := i
			for j < len(lines) && isTableRow(lines[j]) {
				j++
			}
			out = append(out, r.table(lines[i:j])...)
			i = j - 1
		case r.width > 12 && re["quote"].MatchString(l): // deeper quotes are text
			flush()
			var q []string
			for ; i < len(lines); i++ {
				m := re["quote"].FindStringSubmatch(lines[i])
				if m == nil {
					break
				}
				q = append(q, m[1])
			}
			i--
			bar := r.render(stDim, "│") + " "
			inner := &Renderer{width: r.width - 2, theme: r.theme, styles: r.styles}
			for _, ql := range strings.Split(inner.Render(strings.Join(q, "\n")), "\n") {
				out = append(out, bar+ql)
			}
		case re["ulist"].MatchString(l) || re["olist"].MatchString(l):
			flush()
			var indent, marker, text string
			if m := re["ulist"].FindStringSubmatch(l); m != nil {
				indent, marker, text = m[1], m[2]+" ", m[3]
			} else {
				m := re["olist"].FindStringSubmatch(l)
				indent, marker, text = m[1], m[2]+m[3]+" ", m[4]
			}
			// Deep nesting stops indenting at half the width.
			indent = strings.Repeat(" ", min(ansi.StringWidth(strings.ReplaceAll(indent, "\t", "    ")), r.width/2))
			// Lines that follow without a blank line or a block of their
			// own continue the item.
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && !startsBlock(lines[i+1]) {
				i++
				text += " " + strings.TrimSpace(lines[i])
			}
			pad := indent + strings.Repeat(" ", len(marker))
			out = append(out, r.wrap(r.inline(text, 0), r.width, indent+r.render(stAccent, marker), pad)...)
		default:
			para = append(para, t)
		}
	}
	flush()
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	return strings.Join(out, "\n")
}

// startsBlock reports whether a line opens a block of its own, ending a
// list item's continuation lines.
func startsBlock(l string) bool {
	re := blockRE.Get()
	for _, k := range []string{"heading", "fence", "ulist", "olist", "rule", "quote"} {
		if re[k].MatchString(l) {
			return true
		}
	}
	return isTableRow(l)
}

// span is a run of text in one style.
type span struct {
	text string
	st   style
}

// inline parses inline Markdown: `code`, **strong**, __strong__, *em*,
// _em_, ~~strike~~, <u>underline</u>, [text](url), <autolink> and
// backslash escapes.
func (r *Renderer) inline(s string, base style) []span {
	var out []span
	var b strings.Builder
	emit := func() {
		if b.Len() > 0 {
			out = append(out, span{b.String(), base})
			b.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!|~<>", s[i+1]) >= 0:
			b.WriteByte(s[i+1])
			i++
			continue
		case c == '`':
			n := runOf(s[i:], '`')
			if end := strings.Index(s[i+n:], s[i:i+n]); end >= 0 {
				emit()
				code := s[i+n : i+n+end]
				if t := strings.TrimSpace(code); t != "" {
					code = t
				}
				out = append(out, span{code, base | stCode})
				i += n + end + n - 1
				continue
			}
		case c == '*' || c == '_' || c == '~':
			n := min(runOf(s[i:], c), 2)
			if c == '~' && n < 2 {
				break
			}
			delim := s[i : i+n]
			if c == '_' && i > 0 && isWordByte(s[i-1]) {
				break // intraword underscores are text
			}
			end := closing(s, i+n, delim)
			if end < 0 || i+n >= len(s) || s[i+n] == ' ' {
				break
			}
			emit()
			st := stItalic
			switch {
			case c == '~':
				st = stStrike
			case n == 2:
				st = stBold
			}
			out = append(out, r.inline(s[i+n:end], base|st)...)
			i = end + n - 1
			continue
		case c == '<' && strings.HasPrefix(s[i:], "<u>"):
			if end := strings.Index(s[i+3:], "</u>"); end >= 0 {
				emit()
				out = append(out, r.inline(s[i+3:i+3+end], base|stUnderline)...)
				i += 3 + end + 4 - 1
				continue
			}
		case c == '<':
			if end := strings.IndexByte(s[i:], '>'); end > 0 {
				u := s[i+1 : i+end]
				if strings.Contains(u, "://") && !strings.ContainsAny(u, " <") {
					emit()
					out = append(out, span{u, base | stLink})
					i += end
					continue
				}
			}
		case c == '[':
			if text, url, n, ok := link(s[i:]); ok {
				emit()
				out = append(out, r.inline(text, base)...)
				out = append(out, span{" (", base}, span{url, base | stLink}, span{")", base})
				i += n - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	emit()
	return out
}

// runOf counts the bytes c that s starts with.
func runOf(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// closing finds the delimiter that closes an emphasis opened before from:
// not preceded by a space, and for underscores not followed by a word
// byte. -1 if none.
func closing(s string, from int, delim string) int {
	for i := from + 1; i+len(delim) <= len(s); i++ {
		if s[i] == '`' { // code spans take precedence
			if end := strings.IndexByte(s[i+1:], '`'); end >= 0 {
				i += end + 1
				continue
			}
		}
		if !strings.HasPrefix(s[i:], delim) || s[i-1] == ' ' || s[i-1] == '\\' {
			continue
		}
		after := i + len(delim)
		if after < len(s) && s[after] == delim[0] {
			continue // part of a longer run
		}
		if delim[0] == '_' && after < len(s) && isWordByte(s[after]) {
			continue
		}
		return i
	}
	return -1
}

// link parses [text](url) at the start of s, returning its length.
func link(s string) (text, url string, n int, ok bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
			if depth > 0 {
				continue
			}
			if i+1 >= len(s) || s[i+1] != '(' {
				return "", "", 0, false
			}
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				return "", "", 0, false
			}
			url = strings.TrimSpace(s[i+2 : i+2+end])
			if sp := strings.IndexAny(url, " \t"); sp >= 0 {
				url = url[:sp] // drop a title
			}
			return s[1:i], strings.Trim(url, "<>"), i + 2 + end + 1, true
		}
	}
	return "", "", 0, false
}

// wrap lays spans out in lines of width columns: the first line starts
// with first, the others with rest (both already styled, rest's width
// counting).
func (r *Renderer) wrap(spans []span, width int, first, rest string) []string {
	var lines []string
	lead := first
	avail := width - ansi.StringWidth(first)
	var line strings.Builder
	col := 0
	pendingSpace := false
	var spaceStyle style // of the pending space: its span's, or none between spans
	var cur style
	var run strings.Builder
	flushRun := func() {
		line.WriteString(r.render(cur, run.String()))
		run.Reset()
	}
	put := func(st style, text string) {
		if st != cur {
			flushRun()
			cur = st
		}
		run.WriteString(text)
	}
	newLine := func() {
		flushRun()
		lines = append(lines, lead+line.String())
		line.Reset()
		lead, avail, col = rest, width-ansi.StringWidth(rest), 0
	}
	for _, sp := range spans {
		words := strings.Split(sp.text, " ")
		for wi, w := range words {
			if wi > 0 {
				pendingSpace = true
				spaceStyle = sp.st
				if w == "" && wi == len(words)-1 {
					spaceStyle = 0 // trailing: between this span and the next
				}
			}
			if w == "" {
				continue
			}
			ww := ansi.StringWidth(w)
			sep := 0
			if pendingSpace && col > 0 {
				sep = 1
			}
			if col > 0 && col+sep+ww > avail {
				newLine()
				sep = 0
			}
			if sep == 1 {
				put(spaceStyle, " ")
				col++
			}
			pendingSpace = false
			for ww > avail && avail > 0 { // a word longer than a line
				cut := prefixOfWidth(w, avail-col)
				put(sp.st, cut)
				w = w[len(cut):]
				ww = ansi.StringWidth(w)
				newLine()
			}
			put(sp.st, w)
			col += ww
		}
	}
	if col > 0 || len(lines) == 0 {
		flushRun()
		lines = append(lines, lead+line.String())
	}
	return lines
}

// prefixOfWidth is the longest prefix of w at most room columns wide,
// and at least its first character, so that cutting a word always moves
// on.
func prefixOfWidth(w string, room int) string {
	n, width := 0, 0
	for n < len(w) {
		_, size := utf8.DecodeRuneInString(w[n:])
		cw := ansi.StringWidth(w[n : n+size])
		if n > 0 && width+cw > room {
			break
		}
		n += size
		width += cw
	}
	return w[:n]
}

// code renders a fenced block's lines, highlighted for lang, indented by
// two columns and cut to the width.
func (r *Renderer) code(lines []string, lang string) []string {
	hl := newHighlighter(lang)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ")
		var b strings.Builder
		for _, tok := range hl.line(l) {
			b.WriteString(r.render(tok.st|stCodeText, tok.text))
		}
		s := b.String()
		for _, part := range strings.Split(ansi.Hardwrap(s, r.width-2, true), "\n") {
			out = append(out, "  "+part)
		}
	}
	return out
}

// isTableRow: a line of a pipe table written with its leading pipe.
func isTableRow(l string) bool {
	t := strings.TrimLeft(l, " ")
	return len(l)-len(t) <= 3 && strings.HasPrefix(t, "|")
}

// isDelimiterRow: |---|:--:| under a table's header.
func isDelimiterRow(l string) bool {
	if !isTableRow(l) {
		return false
	}
	t := strings.TrimSpace(l)
	return strings.Contains(t, "-") && strings.Trim(t, "|-: ") == ""
}

// tableCells splits a row at its pipes, escaped ones (\|) aside.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// table renders a pipe table at the width its cells need, columns
// narrowed (their cells wrapped) when that is wider than the renderer.
func (r *Renderer) table(rows []string) []string {
	var cells [][][]span
	var widths []int
	for i, row := range rows {
		if i == 1 {
			continue // the delimiter row
		}
		var rc [][]span
		for c, cell := range tableCells(row) {
			st := style(0)
			if i == 0 {
				st = stBold | stAccent
			}
			sp := r.inline(cell, st)
			rc = append(rc, sp)
			if c >= len(widths) {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], spansWidth(sp), 1)
		}
		cells = append(cells, rc)
	}
	// Columns share the width, widest first narrowed, 3 columns each
	// for the separators.
	for total := sum(widths) + 3*len(widths) - 1; total > r.width; total-- {
		w := 0
		for c := range widths {
			if widths[c] > widths[w] {
				w = c
			}
		}
		if widths[w] <= 3 {
			break
		}
		widths[w]--
	}
	sep := r.render(stDim, "│")
	var out []string
	for ri, rc := range cells {
		var colLines [][]string
		height := 1
		for c := range widths {
			var sp []span
			if c < len(rc) {
				sp = rc[c]
			}
			ls := r.wrap(sp, widths[c], "", "")
			colLines = append(colLines, ls)
			height = max(height, len(ls))
		}
		for h := range height {
			var b strings.Builder
			for c, ls := range colLines {
				if c > 0 {
					b.WriteString(" " + sep + " ")
				}
				cell := ""
				if h < len(ls) {
					cell = ls[h]
				}
				b.WriteString(cell)
				if c < len(colLines)-1 {
					b.WriteString(strings.Repeat(" ", max(widths[c]-ansi.StringWidth(cell), 0)))
				}
			}
			out = append(out, b.String())
		}
		if ri == 0 {
			var b strings.Builder
			for c, w := range widths {
				if c > 0 {
					b.WriteString("─┼─")
				}
				b.WriteString(strings.Repeat("─", w))
			}
			out = append(out, r.render(stDim, b.String()))
		}
	}
	return out
}

func spansWidth(sp []span) int {
	n := 0
	for _, s := range sp {
		n += ansi.StringWidth(s.text)
	}
	return n
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
