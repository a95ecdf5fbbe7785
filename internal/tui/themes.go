package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
)

// loadThemes applies ui.customThemes and ui.theme once the settings are
// read; a name no theme has is said, and the default kept.
func (m *model) loadThemes(st *config.Settings) {
	if v, ok := st.Get("ui.customThemes"); ok {
		var bad []string
		m.customThemes, bad = customPalettes(v)
		for _, b := range bad {
			m.printNotice(noticeWarn, b)
		}
	}
	name, _ := st.GetString("ui.theme")
	if name == "" {
		return
	}
	if !m.setTheme(name) {
		m.printNotice(noticeWarn, "ui.theme: no theme is named "+name+"; /theme lists them.")
	}
}

// setTheme switches to the theme named name; it reports false for a
// name no theme has.
func (m *model) setTheme(name string) bool {
	if strings.EqualFold(name, noColorTheme) {
		m.themeChosen = noColorTheme
		m.theme = newTheme(m.theme.dark, true)
		m.theme.name = noColorTheme
		m.applyTheme()
		return true
	}
	p, ok := findPalette(name, m.customThemes)
	if !ok {
		return false
	}
	m.themeChosen = p.name
	m.theme = themeOf(p, m.noColor || m.screenReader)
	m.applyTheme()
	return true
}

// cmdTheme is /theme: a picker of every theme (custom ones first), or
// /theme <name> at once. The choice is saved as ui.theme in the user's
// settings, as Gemini CLI saves it.
func (m *model) cmdTheme(args []string) tea.Cmd {
	if len(args) > 0 {
		m.chooseTheme(strings.Join(args, " "))
		return nil
	}
	var items []pickItem
	sel := 0
	add := func(name, desc string) {
		if strings.EqualFold(name, m.theme.name) {
			sel = len(items)
		}
		items = append(items, pickItem{label: name, desc: desc})
	}
	for _, p := range m.customThemes {
		add(p.name, "custom")
	}
	for _, p := range palettes {
		desc := "dark"
		if !p.dark {
			desc = "light"
		}
		add(p.name, desc)
	}
	add(noColorTheme, "no colours")
	m.pick(&picker{title: "Select Theme", note: "Saved as ui.theme in your user settings.", items: items, sel: sel,
		choose: func(m *model, it pickItem) tea.Cmd { m.chooseTheme(it.label); return nil }})
	return nil
}

func (m *model) chooseTheme(name string) {
	if !m.setTheme(name) {
		m.printNotice(noticeError, "No theme is named "+name+"; /theme lists them.")
		return
	}
	text := "Theme: " + m.themeChosen
	if m.agent != nil {
		path := m.agent.Home.SettingsPath()
		if err := config.UpdateFile(path, "ui.theme", m.themeChosen); err != nil {
			m.printNotice(noticeError, err.Error())
			return
		}
		text += " (saved in " + homeRelative(path) + ")"
	}
	m.printNotice(noticeInfo, text)
}
