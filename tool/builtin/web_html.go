package builtin

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// webHTMLToText converts a page to Markdown text for the model: headings,
// paragraphs, lists, emphasis, code, quotes and tables keep their shape.
// Links keep their text but not their targets and images are dropped: the
// model needs the words, and URLs would eat the budget. Scripts, styles
// and the head are left out.
//
// It reads the HTML itself rather than through golang.org/x/net/html and
// an HTML-to-Markdown library: those built a 2,000-entry entity map and
// more at every start of every run (127 KB of heap and several 64 KB
// windows of code and tables), for a fallback few runs take. Like a
// browser, it never fails: stray, unclosed and misnested tags are read
// as well as they can be.
func webHTMLToText(page string) string {
	w := &mdWriter{}
	for i := 0; i < len(page); {
		if page[i] != '<' {
			j := strings.IndexByte(page[i:], '<')
			if j < 0 {
				j = len(page) - i
			}
			w.text(htmlUnescape(page[i : i+j]))
			i += j
			continue
		}
		i = w.markup(page, i)
	}
	return w.String()
}

// htmlDropped are elements whose content is not text for the reader.
var htmlDropped = [...]string{"head", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "select", "textarea"}

// htmlBlocks are elements that stand apart from the text around them.
var htmlBlocks = [...]string{"p", "div", "section", "article", "header", "footer", "nav", "aside", "main", "figure", "figcaption", "form", "fieldset", "address", "details", "summary", "dl", "center", "caption"}

// markup reads the tag, comment or declaration at page[i] ('<') and
// returns where the text after it starts.
func (w *mdWriter) markup(page string, i int) int {
	rest := page[i:]
	switch {
	case strings.HasPrefix(rest, "<!--"):
		if end := strings.Index(rest[4:], "-->"); end >= 0 {
			return i + 4 + end + 3
		}
		return len(page)
	case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "<?"):
		if end := strings.IndexByte(rest, '>'); end >= 0 {
			return i + end + 1
		}
		return len(page)
	}
	closing := strings.HasPrefix(rest, "</")
	n := 1
	if closing {
		n = 2
	}
	start := n
	for n < len(rest) && (isASCIILetter(rest[n]) || (n > start && (rest[n] >= '0' && rest[n] <= '9' || rest[n] == '-' || rest[n] == ':'))) {
		n++
	}
	if n == start && closing && strings.HasPrefix(rest, "</>") {
		return i + 3 // ignored, as browsers do
	}
	if n == start {
		// Not a tag: a "<" in the text.
		w.text("<")
		return i + 1
	}
	name := strings.ToLower(rest[start:n])
	// The tag ends at the first ">" outside a quoted attribute value. A
	// quote opens a value only right after "=" (and white space): an
	// apostrophe in an unquoted value (title=it's) or a stray one is text
	// of the tag, as browsers read it.
	var quote, last byte
	for ; n < len(rest); n++ {
		c := rest[n]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				last = c
			}
			continue
		case (c == '"' || c == '\'') && last == '=':
			quote = c
			continue
		case c == '>':
		case htmlSpace(rune(c)):
			continue
		default:
			last = c
			continue
		}
		break
	}
	end := i + n + 1
	if n >= len(rest) {
		end = len(page)
	}
	if closing {
		w.close(name)
		return end
	}
	for _, d := range htmlDropped {
		if name == d {
			// Skip to the matching end tag (or the end of the page).
			if j := indexFold(page[end:], "</"+name); j >= 0 {
				if k := strings.IndexByte(page[end+j:], '>'); k >= 0 {
					return end + j + k + 1
				}
			}
			return len(page)
		}
	}
	w.open(name)
	if name == "pre" || name == "listing" {
		// A newline right after <pre> is not part of its text.
		if strings.HasPrefix(page[end:], "\r\n") {
			end += 2
		} else if strings.HasPrefix(page[end:], "\n") {
			end++
		}
	}
	return end
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// indexFold is strings.Index ignoring ASCII case; sub is lower case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

// mdWriter assembles the Markdown text.
type mdWriter struct {
	b strings.Builder
	// nl is how many line breaks are owed before the next text (2: a
	// blank line); space, whether a space is.
	nl    int
	space bool
	// glue drops the space owed right after an opening delimiter ("**").
	glue bool
	// indent is the prefix of every line: "> " per quote, spaces per list
	// level.
	indent string
	// marker is written before the next text: a heading's "## ", a list
	// item's "- ", on a line indented by markerIndent.
	marker, markerIndent string
	// lastIndent is the indent of the line written last.
	lastIndent string
	// lists holds the open lists, innermost last.
	lists []mdList
	// quotes and indents undo indent at the end of a quote or list item.
	indents []string
	pre     int
	// table gathers the rows of the innermost table; cell, the text of
	// the current cell (nil outside one).
	table [][]string
	cell  *strings.Builder
}

// mdList is an open list.
type mdList struct {
	// next is the next item's number (0: bullets).
	next int
	// item is whether an item is open (its end tag may be left out).
	item bool
}

// String returns the text, without trailing spaces on lines.
func (w *mdWriter) String() string {
	lines := strings.Split(strings.TrimSpace(w.b.String()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// block makes the next text start n line breaks away.
func (w *mdWriter) block(n int) {
	w.nl = max(w.nl, n)
	w.space = false
}

// raw writes s after what is owed: line breaks with the indent, a
// pending marker or a space.
func (w *mdWriter) raw(s string) {
	if w.cell != nil {
		if w.space && !w.glue && w.cell.Len() > 0 {
			w.cell.WriteByte(' ')
		}
		w.space, w.glue = false, false
		w.cell.WriteString(s)
		return
	}
	indent := w.indent
	if w.marker != "" {
		// A list item's marker line starts at the list's own indent.
		indent = w.markerIndent
	}
	if w.b.Len() > 0 && w.nl > 0 {
		// A blank line inside a quote keeps its "> ", one entering or
		// leaving it does not.
		blank := w.lastIndent
		for len(blank) > 0 && !strings.HasPrefix(indent, blank) {
			blank = blank[:len(blank)-1]
		}
		for k := range w.nl {
			w.b.WriteByte('\n')
			if k < w.nl-1 {
				w.b.WriteString(blank)
			}
		}
		w.b.WriteString(indent)
	} else if w.b.Len() == 0 {
		w.b.WriteString(indent)
	} else if w.space && !w.glue {
		w.b.WriteByte(' ')
	}
	w.nl, w.space, w.glue, w.lastIndent = 0, false, false, w.indent
	if w.marker != "" {
		w.b.WriteString(w.marker)
		w.marker = ""
	}
	w.b.WriteString(s)
}

// text writes page text: white space collapsed, or kept inside <pre>.
func (w *mdWriter) text(s string) {
	if w.pre > 0 && w.cell == nil {
		// Every line break counts; those at the end of the block are
		// dropped when it closes.
		for i, line := range strings.Split(s, "\n") {
			if i > 0 {
				w.nl++
			}
			if line = strings.TrimSuffix(line, "\r"); line != "" {
				w.raw(line)
			}
		}
		return
	}
	for len(s) > 0 {
		sp := strings.IndexFunc(s, htmlNotSpace)
		if sp != 0 {
			if sp < 0 {
				sp = len(s)
			}
			w.space = true
			s = s[sp:]
			continue
		}
		end := strings.IndexFunc(s, htmlSpace)
		if end < 0 {
			end = len(s)
		}
		w.raw(s[:end])
		s = s[end:]
	}
}

func htmlSpace(r rune) bool    { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' }
func htmlNotSpace(r rune) bool { return !htmlSpace(r) }

// inline writes an emphasis or code delimiter, keeping a space owed
// before an opening one and after a closing one.
func (w *mdWriter) inline(d string, opening bool) {
	if opening {
		w.raw(d)
		w.glue = true
		return
	}
	space := w.space
	w.space = false
	w.raw(d)
	w.space = space
}

// open handles a start tag.
func (w *mdWriter) open(name string) {
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.block(2)
		w.marker = strings.Repeat("#", int(name[1]-'0')) + " "
		w.markerIndent = w.indent
	case "br":
		if w.cell != nil {
			w.space = true
		} else {
			w.block(1)
		}
	case "hr":
		w.block(2)
		w.raw("* * *")
		w.block(2)
	case "b", "strong":
		w.inline("**", true)
	case "i", "em":
		w.inline("*", true)
	case "code", "kbd", "samp", "tt":
		if w.pre == 0 {
			w.inline("`", true)
		}
	case "pre", "listing":
		w.block(2)
		w.raw("```")
		w.pre++
		w.nl = 1
	case "blockquote":
		w.block(2)
		w.push("> ")
	case "ul", "ol":
		if len(w.lists) == 0 {
			w.block(2)
		} else {
			w.block(1)
		}
		n := 0
		if name == "ol" {
			n = 1
		}
		w.lists = append(w.lists, mdList{next: n})
	case "li":
		marker := "- "
		if k := len(w.lists) - 1; k >= 0 {
			if w.lists[k].item {
				w.close("li") // <li> ends the item before it
			}
			w.lists[k].item = true
			if w.lists[k].next > 0 {
				marker = strconv.Itoa(w.lists[k].next) + ". "
				w.lists[k].next++
			}
		}
		w.block(1)
		w.marker, w.markerIndent = marker, w.indent
		// The item's further lines line up after its marker.
		w.push(strings.Repeat(" ", len(marker)))
	case "dt", "dd":
		w.block(1)
	case "table":
		w.block(2)
		w.table = w.table[:0]
	case "tr":
		w.table = append(w.table, nil)
		w.cell = nil
	case "td", "th":
		if len(w.table) == 0 {
			w.table = append(w.table, nil)
		}
		w.cell = &strings.Builder{}
		w.space = false
	default:
		for _, b := range htmlBlocks {
			if name == b {
				w.block(2)
			}
		}
	}
}

// mdMaxDepth bounds the indent: a page of thousands of unclosed lists
// or quotes would otherwise repeat an ever longer prefix on every line.
const mdMaxDepth = 8

// push indents the lines that follow by more, up to mdMaxDepth levels;
// the end of the quote or item undoes it.
func (w *mdWriter) push(more string) {
	w.indents = append(w.indents, w.indent)
	if len(w.indents) <= mdMaxDepth {
		w.indent += more
	}
}

// close handles an end tag.
func (w *mdWriter) close(name string) {
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.marker = ""
		w.block(2)
	case "b", "strong":
		w.inline("**", false)
	case "i", "em":
		w.inline("*", false)
	case "code", "kbd", "samp", "tt":
		if w.pre == 0 {
			w.inline("`", false)
		}
	case "pre", "listing":
		if w.pre > 0 {
			w.pre--
			w.nl = 1
			w.raw("```")
			w.block(2)
		}
	case "blockquote", "li":
		if name == "li" {
			k := len(w.lists) - 1
			if k < 0 || !w.lists[k].item {
				return // no item open
			}
			w.lists[k].item = false
		}
		if k := len(w.indents) - 1; k >= 0 {
			w.indent, w.indents = w.indents[k], w.indents[:k]
		}
		w.marker = ""
		w.block(1)
		if name == "blockquote" {
			w.block(2)
		}
	case "ul", "ol":
		if k := len(w.lists) - 1; k >= 0 {
			if w.lists[k].item {
				w.close("li")
			}
			w.lists = w.lists[:k]
		}
		if len(w.lists) == 0 {
			w.block(2)
		} else {
			w.block(1)
		}
	case "td", "th":
		w.endCell()
	case "tr":
		w.endCell()
	case "table":
		w.endCell()
		w.flushTable()
	default:
		for _, b := range htmlBlocks {
			if name == b {
				w.block(2)
			}
		}
	}
}

// endCell adds the current cell, if any, to the last row.
func (w *mdWriter) endCell() {
	if w.cell == nil {
		return
	}
	cell := strings.ReplaceAll(strings.TrimSpace(w.cell.String()), "|", `\|`)
	w.cell = nil
	w.space = false
	if k := len(w.table) - 1; k >= 0 {
		w.table[k] = append(w.table[k], cell)
	}
}

// flushTable writes the gathered rows as a Markdown table, the first row
// as its header.
func (w *mdWriter) flushTable() {
	rows := w.table[:0]
	cols := 0
	for _, r := range w.table {
		if len(r) > 0 {
			rows = append(rows, r)
			cols = max(cols, len(r))
		}
	}
	w.table = w.table[:0]
	if len(rows) == 0 {
		w.block(2)
		return
	}
	w.block(2)
	for i, r := range rows {
		w.block(1)
		line := "|"
		for c := range cols {
			cell := ""
			if c < len(r) {
				cell = r[c]
			}
			line += " " + cell + " |"
		}
		w.raw(line)
		if i == 0 {
			w.block(1)
			w.raw("|" + strings.Repeat(" --- |", cols))
		}
	}
	w.block(2)
}

// htmlUnescape decodes character references: numeric ones, and the named
// ones pages use for text (others stay as written).
func htmlUnescape(s string) string {
	i := strings.IndexByte(s, '&')
	if i < 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		r, n := htmlReference(s)
		if n == 0 {
			b.WriteByte('&')
			s = s[1:]
		} else {
			b.WriteString(r)
			s = s[n:]
		}
		i = strings.IndexByte(s, '&')
	}
	b.WriteString(s)
	return b.String()
}

// htmlReference decodes the reference at s[0] ('&'), returning its text
// and length, or a zero length when s holds none.
func htmlReference(s string) (string, int) {
	if len(s) > 2 && s[1] == '#' {
		j, base := 2, 10
		if s[2] == 'x' || s[2] == 'X' {
			j, base = 3, 16
		}
		k := j
		for k < len(s) && k-j < 8 && (s[k] >= '0' && s[k] <= '9' || base == 16 && (s[k]|0x20 >= 'a' && s[k]|0x20 <= 'f')) {
			k++
		}
		if k == j {
			return "", 0
		}
		n, _ := strconv.ParseUint(s[j:k], base, 32)
		if k < len(s) && s[k] == ';' {
			k++
		}
		r := rune(n)
		if n == 0 || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return string(r), k
	}
	k := 1
	for k < len(s) && k < 10 && (isASCIILetter(s[k]) || s[k] >= '0' && s[k] <= '9') {
		k++
	}
	if k == 1 || k >= len(s) || s[k] != ';' {
		// Only the four that may go without ";" in old pages.
		for _, e := range [...]string{"amp", "lt", "gt", "quot"} {
			if s[1:k] == e {
				return htmlEntity(e), k
			}
		}
		return "", 0
	}
	if r := htmlEntity(s[1:k]); r != "" {
		return r, k + 1
	}
	return "", 0
}

// htmlEntity returns the text of a named reference, or "" for a name it
// does not know.
func htmlEntity(name string) string {
	switch name {
	case "amp":
		return "&"
	case "lt":
		return "<"
	case "gt":
		return ">"
	case "quot":
		return `"`
	case "apos":
		return "'"
	case "nbsp", "ensp", "emsp", "thinsp":
		return " "
	case "shy", "zwj", "zwnj", "lrm", "rlm":
		return ""
	case "copy":
		return "©"
	case "reg":
		return "®"
	case "trade":
		return "™"
	case "hellip":
		return "…"
	case "mdash":
		return "—"
	case "ndash":
		return "–"
	case "minus":
		return "−"
	case "lsquo":
		return "‘"
	case "rsquo":
		return "’"
	case "sbquo":
		return "‚"
	case "ldquo":
		return "“"
	case "rdquo":
		return "”"
	case "bdquo":
		return "„"
	case "laquo":
		return "«"
	case "raquo":
		return "»"
	case "lsaquo":
		return "‹"
	case "rsaquo":
		return "›"
	case "bull":
		return "•"
	case "middot":
		return "·"
	case "deg":
		return "°"
	case "plusmn":
		return "±"
	case "times":
		return "×"
	case "divide":
		return "÷"
	case "euro":
		return "€"
	case "pound":
		return "£"
	case "yen":
		return "¥"
	case "cent":
		return "¢"
	case "sect":
		return "§"
	case "para":
		return "¶"
	case "dagger":
		return "†"
	case "larr":
		return "←"
	case "rarr":
		return "→"
	case "uarr":
		return "↑"
	case "darr":
		return "↓"
	case "harr":
		return "↔"
	case "le":
		return "≤"
	case "ge":
		return "≥"
	case "ne":
		return "≠"
	case "asymp":
		return "≈"
	case "infin":
		return "∞"
	case "frac12":
		return "½"
	case "frac14":
		return "¼"
	case "frac34":
		return "¾"
	case "micro":
		return "µ"
	case "check":
		return "✓"
	}
	return ""
}
