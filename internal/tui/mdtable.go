package tui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// newGlamour is a glamour renderer of the standard style named style,
// wrapping at wrap columns, with inline code as Gemini CLI shows it:
// coloured text. Glamour's own pads it with a space on each side on a
// background colour, which read as double spaces around every `name`
// wherever the background does not show (screen captures, some themes).
// nil if glamour refuses the options.
func newGlamour(style string, wrap int) *glamour.TermRenderer {
	opt := glamour.WithStandardStyle(style)
	var cfg gansi.StyleConfig
	switch style {
	case "dark":
		cfg = styles.DarkStyleConfig
	case "light":
		cfg = styles.LightStyleConfig
	}
	if style == "dark" || style == "light" {
		cfg.Code.Prefix, cfg.Code.Suffix, cfg.Code.BackgroundColor = "", "", nil
		opt = glamour.WithStyles(cfg)
	}
	r, err := glamour.NewTermRenderer(opt, glamour.WithWordWrap(wrap))
	if err != nil {
		return nil
	}
	return r
}

// mdSegment is a run of Markdown lines: a table (table is the width it
// needs) or anything else (table is 0).
type mdSegment struct {
	src   string
	table int
}

// splitTables cuts src around its pipe tables, so that each table is
// drawn at the width its cells need: glamour stretches every table to
// the wrap width, a two-column table of short words across 200 columns.
// Lines in code fences are never a table.
func splitTables(src string) []mdSegment {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	var segs []mdSegment
	var cur []string
	flush := func(table int) {
		if len(cur) > 0 {
			segs = append(segs, mdSegment{src: strings.Join(cur, "\n") + "\n", table: table})
			cur = nil
		}
	}
	fence := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			cur = append(cur, l)
			continue
		}
		if len(l)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fence = t[:3]
			cur = append(cur, l)
			continue
		}
		if !isTableRow(l) || i+1 >= len(lines) || !isDelimiterRow(lines[i+1]) {
			cur = append(cur, l)
			continue
		}
		flush(0)
		j := i
		for j < len(lines) && isTableRow(lines[j]) {
			j++
		}
		cur = lines[i:j]
		flush(tableWidth(lines[i:j]))
		i = j - 1
	}
	flush(0)
	return segs
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

// tableWidth is the wrap width a table needs: its widest cells, their
// margins and separators, and the document's margins.
func tableWidth(rows []string) int {
	var widths []int
	for i, r := range rows {
		if i == 1 {
			continue // the delimiter row
		}
		for c, cell := range tableCells(r) {
			if c >= len(widths) {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], ansi.StringWidth(cell))
		}
	}
	n := 0
	for _, w := range widths {
		n += w + 3 // a space each side and a separator
	}
	return n + 4
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

// tableRenderer renders a table that needs width columns: at that width
// when it is narrower than the screen, else at the screen's.
func (m *markdown) tableRenderer(width int) *glamour.TermRenderer {
	full := max(m.width-4, 20)
	if width >= full {
		return m.r
	}
	if r := m.narrow[width]; r != nil {
		return r
	}
	r := newGlamour(m.style, width)
	if r == nil {
		return m.r
	}
	if m.narrow == nil || len(m.narrow) > 16 {
		m.narrow = map[int]*glamour.TermRenderer{}
	}
	m.narrow[width] = r
	return r
}
