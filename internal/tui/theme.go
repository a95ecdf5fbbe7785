package tui

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
)

// theme holds the styles of one colour scheme. Colours come from a
// palette: one of Gemini CLI 0.61's built-in themes, picked by name
// (ui.theme, /theme) or by the terminal's background, or a custom theme
// from ui.customThemes. With NO_COLOR, the NoColor theme, or in
// screen-reader mode, every style is plain.
type theme struct {
	name  string
	dark  bool
	plain bool

	user, dim, accent, ok, bad, warn, title lipgloss.Style
	diffAdd, diffDel, diffCtx, lineNo       lipgloss.Style
	box, dialog, selected                   lipgloss.Style
}

// palette is a theme's colours, named as Gemini CLI's ColorsTheme
// names them. An empty colour is the terminal's own.
type palette struct {
	name                                             string
	dark                                             bool
	fg, blue, purple, cyan, green, yellow, red, gray string
}

// Gemini CLI 0.61's built-in themes (packages/cli/src/ui/themes/builtin),
// their colours as its files give them; the ANSI themes use the
// terminal's own 16 colours.
var palettes = []palette{
	{"ANSI", true, "", "4", "5", "6", "2", "3", "1", "8"},
	{"Atom One", true, "#abb2bf", "#61aeee", "#c678dd", "#56b6c2", "#98c379", "#e6c07b", "#e06c75", "#5c6370"},
	{"Ayu", true, "#aeaca6", "#39BAE6", "#D2A6FF", "#95E6CB", "#AAD94C", "#FFB454", "#F26D78", "#3D4149"},
	{"Default", true, "#FFFFFF", "#87AFFF", "#D7AFFF", "#87D7D7", "#D7FFD7", "#FFFFAF", "#FF87AF", "#AFAFAF"},
	{"Dracula", true, "#a3afb7", "#8be9fd", "#ff79c6", "#8be9fd", "#50fa7b", "#fff783", "#ff5555", "#6272a4"},
	{"GitHub", true, "#c0c4c8", "#79B8FF", "#B392F0", "#9ECBFF", "#85E89D", "#FFAB70", "#F97583", "#6A737D"},
	{"GitHub Dark Colorblind", true, "#e6edf3", "#79c0ff", "#d2a8ff", "#a5d6ff", "#a5d6ff", "#d29922", "#f0883e", "#7d8590"},
	{"Holiday", true, "#F0F8FF", "#3CB371", "#FF9999", "#33F9FF", "#3CB371", "#FFEE8C", "#FF6347", "#D7F5D3"},
	{"Shades Of Purple", true, "#e3dfff", "#a599e9", "#ac65ff", "#a1feff", "#A5FF90", "#fad000", "#ff628c", "#726c86"},
	{"Solarized Dark", true, "#839496", "#268bd2", "#6c71c4", "#2aa198", "#859900", "#d0b000", "#dc322f", "#586e75"},
	{"Tokyo Night", true, "#c0caf5", "#bb9af7", "#7aa2f7", "#7dcfff", "#1abc9c", "#e0af68", "#db4b4b", "#a9b1d6"},
	{"ANSI Light", false, "", "4", "5", "6", "2", "3", "1", "8"},
	{"Ayu Light", false, "#5c6166", "#399ee6", "#a37acc", "#4cbf99", "#86b300", "#f2ae49", "#f07171", "#a6aaaf"},
	{"Default Light", false, "#000000", "#005FAF", "#5F00FF", "#005F87", "#005F00", "#875F00", "#AF0000", "#5F5F5F"},
	{"GitHub Light", false, "#24292E", "#445588", "#990000", "#009926", "#008080", "#990073", "#dd1144", "#999999"},
	{"GitHub Light Colorblind", false, "#1f2328", "#0550ae", "#8250df", "#0a3069", "#0969da", "#9a6700", "#bc4c00", "#656d76"},
	{"Google Code", false, "#444444", "#000088", "#660066", "#006666", "#008800", "#666600", "#880000", "#5F5F5F"},
	{"Solarized Light", false, "#657b83", "#268bd2", "#6c71c4", "#2aa198", "#859900", "#d0b000", "#dc322f", "#93a1a1"},
	{"Xcode", false, "#444444", "#1c00cf", "#aa0d91", "#3F6E74", "#007400", "#836C28", "#c41a16", "#c0c0c0"},
}

// noColorTheme is Gemini CLI's theme without colours.
const noColorTheme = "NoColor"

// findPalette looks a theme up by name, as Gemini CLI's theme manager
// does (case matters there; here it does not); custom themes first.
func findPalette(name string, custom []palette) (palette, bool) {
	for _, list := range [][]palette{custom, palettes} {
		for _, p := range list {
			if strings.EqualFold(p.name, name) {
				return p, true
			}
		}
	}
	return palette{}, false
}

// defaultPalette is the theme for the terminal's background when none is
// chosen, as Gemini CLI picks Default or Default Light.
func defaultPalette(dark bool) palette {
	name := "Default Light"
	if dark {
		name = "Default"
	}
	p, _ := findPalette(name, nil)
	return p
}

// customPalettes reads ui.customThemes: each entry's ColorsTheme colours
// (Foreground, AccentBlue …, Gray) or its semantic ones (text.primary,
// text.accent, status.success …), missing ones taken from Default, as
// Gemini CLI fills them. An entry that is not an object is reported.
func customPalettes(v any) ([]palette, []string) {
	m, _ := v.(map[string]any)
	var out []palette
	var bad []string
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, key := range names {
		t, ok := m[key].(map[string]any)
		if !ok {
			bad = append(bad, fmt.Sprintf("ui.customThemes.%s is not an object", key))
			continue
		}
		p := defaultPalette(true)
		p.name = key
		if n, ok := t["name"].(string); ok && n != "" {
			p.name = n
		}
		str := func(path ...string) string {
			var cur any = t
			for _, k := range path {
				o, ok := cur.(map[string]any)
				if !ok {
					return ""
				}
				cur = o[k]
			}
			s, _ := cur.(string)
			return s
		}
		set := func(dst *string, keys ...[]string) {
			for _, k := range keys {
				if s := str(k...); s != "" {
					*dst = s
					return
				}
			}
		}
		set(&p.fg, []string{"text", "primary"}, []string{"Foreground"})
		set(&p.blue, []string{"text", "accent"}, []string{"AccentBlue"})
		set(&p.purple, []string{"AccentPurple"})
		set(&p.cyan, []string{"text", "link"}, []string{"AccentCyan"})
		set(&p.green, []string{"status", "success"}, []string{"AccentGreen"})
		set(&p.yellow, []string{"status", "warning"}, []string{"AccentYellow"})
		set(&p.red, []string{"status", "error"}, []string{"AccentRed"})
		set(&p.gray, []string{"text", "secondary"}, []string{"Gray"}, []string{"Comment"})
		if bg := str("background", "primary"); bg != "" {
			p.dark = isDarkHex(bg)
		} else if bg := str("Background"); bg != "" {
			p.dark = isDarkHex(bg)
		}
		out = append(out, p)
	}
	return out, bad
}

// isDarkHex says whether a #rrggbb colour is dark.
func isDarkHex(s string) bool {
	var r, g, b int
	if _, err := fmt.Sscanf(strings.TrimPrefix(s, "#"), "%02x%02x%02x", &r, &g, &b); err != nil {
		return true
	}
	return 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) < 128
}

// newTheme is the default theme for a dark or light background.
func newTheme(dark, plain bool) theme {
	return themeOf(defaultPalette(dark), plain)
}

// themeOf builds the styles of a palette.
func themeOf(p palette, plain bool) theme {
	t := theme{name: p.name, dark: p.dark, plain: plain}
	if plain {
		s := lipgloss.NewStyle()
		t.user, t.dim, t.accent, t.ok, t.bad, t.warn, t.title = s, s, s, s, s, s, s
		t.diffAdd, t.diffDel, t.diffCtx, t.lineNo = s, s, s, s
		t.box = s.Border(lipgloss.NormalBorder(), true, false)
		t.dialog = s.Border(lipgloss.NormalBorder()).Padding(0, 1)
		t.selected = s
		return t
	}
	c := func(v string) color.Color {
		if v == "" {
			return lipgloss.NoColor{}
		}
		return lipgloss.Color(v)
	}
	s := lipgloss.NewStyle()
	t.user = s.Foreground(c(p.gray))
	t.dim = s.Foreground(c(p.gray))
	t.accent = s.Foreground(c(p.blue))
	t.ok = s.Foreground(c(p.green))
	t.bad = s.Foreground(c(p.red))
	t.warn = s.Foreground(c(p.yellow))
	t.title = s.Bold(true)
	t.diffAdd = s.Foreground(c(p.green))
	t.diffDel = s.Foreground(c(p.red))
	t.diffCtx = s
	t.lineNo = s.Foreground(c(p.gray))
	t.box = s.Border(lipgloss.RoundedBorder(), true, false).BorderForeground(c(p.gray))
	t.dialog = s.Border(lipgloss.RoundedBorder()).BorderForeground(c(p.yellow)).Padding(0, 1)
	t.selected = s.Foreground(c(p.green)).Bold(true)
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
