package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// theme holds the styles of one colour scheme. Colours are chosen for the
// terminal's background (dark or light); with NO_COLOR, or in screen-reader
// mode, every style is plain.
type theme struct {
	dark  bool
	plain bool

	user, dim, accent, ok, bad, warn, title lipgloss.Style
	diffAdd, diffDel, diffCtx, lineNo       lipgloss.Style
	box, dialog, selected                   lipgloss.Style
}

func newTheme(dark, plain bool) theme {
	t := theme{dark: dark, plain: plain}
	if plain {
		s := lipgloss.NewStyle()
		t.user, t.dim, t.accent, t.ok, t.bad, t.warn, t.title = s, s, s, s, s, s, s
		t.diffAdd, t.diffDel, t.diffCtx, t.lineNo = s, s, s, s
		t.box = s.Border(lipgloss.NormalBorder(), true, false)
		t.dialog = s.Border(lipgloss.NormalBorder()).Padding(0, 1)
		t.selected = s
		return t
	}
	pick := func(d, l string) color.Color {
		if dark {
			return lipgloss.Color(d)
		}
		return lipgloss.Color(l)
	}
	s := lipgloss.NewStyle()
	t.user = s.Foreground(pick("#A6ADC8", "#5C5F77"))
	t.dim = s.Foreground(pick("#7F849C", "#8C8FA1"))
	t.accent = s.Foreground(pick("#89B4FA", "#1E66F5"))
	t.ok = s.Foreground(pick("#A6E3A1", "#40A02B"))
	t.bad = s.Foreground(pick("#F38BA8", "#D20F39"))
	t.warn = s.Foreground(pick("#F9E2AF", "#DF8E1D"))
	t.title = s.Bold(true)
	t.diffAdd = s.Foreground(pick("#A6E3A1", "#40A02B"))
	t.diffDel = s.Foreground(pick("#F38BA8", "#D20F39"))
	t.diffCtx = s
	t.lineNo = s.Foreground(pick("#6C7086", "#9CA0B0"))
	t.box = s.Border(lipgloss.RoundedBorder(), true, false).BorderForeground(pick("#585B70", "#ACB0BE"))
	t.dialog = s.Border(lipgloss.RoundedBorder()).BorderForeground(pick("#F9E2AF", "#DF8E1D")).Padding(0, 1)
	t.selected = s.Foreground(pick("#A6E3A1", "#40A02B")).Bold(true)
	return t
}

// mdStyle is the Markdown colours for the theme: "dark", "light", or
// "notty" for none.
func (t theme) mdStyle() string {
	switch {
	case t.plain:
		return "notty"
	case t.dark:
		return "dark"
	}
	return "light"
}
