package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
)

// /settings: Gemini CLI's settings dialog over the settings layers. It
// lists the settings Castor honours that a dialog can edit, each with its
// value in the scope being edited (User or Workspace, Tab switches) or,
// when that scope does not set it, the value in effect. Enter changes the
// one chosen: a switch flips, a choice opens a list, a number or text
// opens a line. The change is written to that scope's settings.json
// atomically, keeping its comments (config.UpdateFile); the few settings
// the running session can take at once are applied, the others say they
// apply from the next start.

// settingKind is how a setting is edited.
type settingKind int

const (
	settingBool settingKind = iota
	settingEnum
	settingNumber
	settingText
	// settingJSON is a line read as JSON where it parses (a list, a
	// number, true), as text otherwise: a key whose type the table does
	// not say.
	settingJSON
	// settingFile is an object (mcpServers, hooks): edited in the file.
	settingFile
)

// editableSetting is one row of the dialog.
type editableSetting struct {
	key, label string
	kind       settingKind
	options    []string
	// live applies the value to the running session; nil when it
	// applies from the next start.
	live func(m *model, v any)
	// status is what Castor does with the key: only honoured ones are
	// edited; why says why another is not.
	status config.SettingStatus
	why    string
	// def is Gemini CLI's default as JSON ("" when none).
	def string
}

// editableSettings are the rows, in Gemini CLI's dialog order of
// categories (General, UI, Model, Context, Tools, Security, IDE).
func editableSettings() []editableSetting {
	editors := []string{}
	for _, set := range []map[string][]string{guiEditors.Get(), terminalEditors.Get()} {
		for k := range set {
			editors = append(editors, k)
		}
	}
	sort.Strings(editors)
	rows := []editableSetting{
		{key: "general.defaultApprovalMode", label: "Default Approval Mode", kind: settingEnum, options: []string{"default", "auto_edit", "plan"}},
		{key: "general.vimMode", label: "Vim Mode", kind: settingBool, live: func(m *model, v any) { b, _ := v.(bool); m.setVim(b) }},
		{key: "general.preferredEditor", label: "Preferred Editor", kind: settingEnum, options: editors},
		{key: "general.maxAttempts", label: "Max Chat Model Attempts", kind: settingNumber},
		{key: "general.checkpointing.enabled", label: "Checkpointing", kind: settingBool},
		{key: "ui.theme", label: "Theme", kind: settingEnum, options: themeNames(), live: func(m *model, v any) { s, _ := v.(string); m.setTheme(s) }},
		{key: "ui.accessibility.screenReader", label: "Screen Reader Mode", kind: settingBool},
		{key: "model.name", label: "Model", kind: settingText},
		{key: "model.maxSessionTurns", label: "Max Session Turns", kind: settingNumber},
		{key: "context.fileName", label: "Context File Name", kind: settingText},
		{key: "security.disableYoloMode", label: "Disable YOLO Mode", kind: settingBool},
		{key: "security.folderTrust.enabled", label: "Folder Trust", kind: settingBool},
		{key: "ide.enabled", label: "IDE Mode", kind: settingBool},
	}
	// Then every other key of Gemini CLI 0.61's settings, in the table's
	// order, by its key.
	curated := map[string]bool{}
	for _, r := range rows {
		curated[r.key] = true
	}
	for _, d := range config.SettingsReference() {
		if !curated[d.Key] {
			rows = append(rows, editableSetting{key: d.Key, label: d.Key, kind: kindOf(d.Default), status: d.Status, why: d.Why, def: d.Default})
		}
	}
	return rows
}

// kindOf is how a key with Gemini CLI's default def (JSON) is edited.
func kindOf(def string) settingKind {
	switch {
	case def == "true" || def == "false":
		return settingBool
	case strings.HasPrefix(def, `"`):
		return settingText
	case strings.HasPrefix(def, "{"):
		return settingFile
	}
	if _, err := strconv.ParseFloat(def, 64); err == nil {
		return settingNumber
	}
	return settingJSON
}

// themeNames lists the built-in themes' names.
func themeNames() []string {
	out := make([]string, 0, len(palettes)+1)
	for _, p := range palettes {
		out = append(out, p.name)
	}
	return append(out, noColorTheme)
}

// settingsScope is the layer the dialog edits.
type settingsScope struct {
	name, path string
}

func (m *model) settingsScopes() []settingsScope {
	// System is the machine's override file, as Gemini CLI's dialog
	// offers it (writing it usually needs an administrator).
	system := config.SystemSettingsPath(func(k string) (string, bool) {
		v := getenv(m.cfg.Environ, k)
		return v, v != ""
	})
	return []settingsScope{
		{"User", m.agent.Home.SettingsPath()},
		{"Workspace", config.WorkspaceSettingsPath(m.agent.Workspace.Root())},
		{"System", system},
	}
}

// cmdSettings is /settings.
func (m *model) cmdSettings([]string) tea.Cmd {
	m.openSettings(0, "", "")
	return nil
}

// openSettings shows the dialog on the scope of index scope, narrowed to
// query, with the row of key selected ("" for the first).
func (m *model) openSettings(scope int, key, query string) {
	sc := m.settingsScopes()[scope]
	file, ferr := readSettingsFile(sc.path)
	rows := editableSettings()
	items := make([]pickItem, 0, len(rows))
	for _, r := range rows {
		v, here := lookupPath(file, r.key)
		desc := showSetting(v)
		if !here {
			// Not in this file: the value in effect (another layer's or
			// the default), if any.
			if v, _ = m.agent.Settings.Get(r.key); v != nil {
				desc = showSetting(v) + " (in effect)"
			} else if r.def != "" && r.def != "[]" && r.def != "{}" {
				desc = strings.Trim(r.def, `"`) + " (default)"
			}
		}
		if r.status != config.SettingHonoured {
			desc += " · " + r.status.String() + " in Castor"
		}
		items = append(items, pickItem{label: r.label, desc: desc, value: r.key})
	}
	note := fmt.Sprintf("Scope: %s settings, %s. Tab switches scope.", sc.name, shortPath(sc.path))
	if ferr != nil {
		note += " " + ferr.Error()
	}
	p := &picker{title: "Settings", note: note, items: items, search: true, query: query,
		choose: func(m *model, it pickItem) tea.Cmd {
			m.editSetting(scope, it.value, file, query)
			return nil
		}}
	p.narrow()
	for i, it := range p.items {
		if it.value == key {
			p.sel = i
		}
	}
	p.tab = func(m *model) {
		key := ""
		if q := m.picker; len(q.items) > 0 {
			key = q.items[q.sel].value
		}
		m.openSettings((scope+1)%len(m.settingsScopes()), key, m.picker.query)
	}
	m.pick(p)
}

// editSetting changes one setting in the scope of index scope; the
// dialog comes back narrowed to query.
func (m *model) editSetting(scope int, key string, file map[string]any, query string) {
	var row editableSetting
	for _, r := range editableSettings() {
		if r.key == key {
			row = r
		}
	}
	cur, here := lookupPath(file, key)
	if !here {
		cur, _ = m.agent.Settings.Get(key)
	}
	back := func(m *model) tea.Cmd {
		m.openSettings(scope, key, query)
		return nil
	}
	if row.status != config.SettingHonoured {
		// Shown, never written: Castor would not act on it.
		why := row.status.String() + " in Castor"
		if row.why != "" {
			why += ": " + row.why
		}
		m.printNotice(noticeWarn, key+" is "+why+".")
		back(m)
		return
	}
	switch row.kind {
	case settingFile:
		m.printNotice(noticeInfo, fmt.Sprintf("%s is an object: edit it in %s.", key, homeRelative(m.settingsScopes()[scope].path)))
		back(m)
	case settingBool:
		b, _ := cur.(bool)
		m.writeSetting(scope, row, !b)
		back(m)
	case settingEnum:
		items := make([]pickItem, len(row.options))
		sel := 0
		for i, o := range row.options {
			items[i] = pickItem{label: o}
			if fmt.Sprint(cur) == o {
				sel = i
			}
		}
		m.pick(&picker{title: row.label, note: key, items: items, sel: sel, cancel: back,
			choose: func(m *model, it pickItem) tea.Cmd {
				m.writeSetting(scope, row, it.label)
				return back(m)
			}})
	case settingNumber, settingText, settingJSON:
		initial := ""
		if cur != nil {
			initial = showSetting(cur)
			if row.kind == settingJSON {
				b, _ := json.Marshal(cur)
				initial = string(b)
			}
		}
		m.askText(row.label, key, initial, false, func(m *model, s string) tea.Cmd {
			var v any = strings.TrimSpace(s)
			if row.kind == settingNumber {
				n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					m.printNotice(noticeError, key+": "+strconv.Quote(s)+" is not a number")
					return back(m)
				}
				v = n
			}
			if key == "context.fileName" {
				v = []string{strings.TrimSpace(s)}
			}
			if row.kind == settingJSON {
				// A list or a number where the line is JSON, else
				// the text itself.
				var j any
				if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &j); err == nil {
					v = j
				}
			}
			m.writeSetting(scope, row, v)
			return back(m)
		})
		m.picker.cancel = back
	}
}

// writeSetting saves v and says where; live settings apply at once.
func (m *model) writeSetting(scope int, row editableSetting, v any) {
	sc := m.settingsScopes()[scope]
	if err := config.UpdateFile(sc.path, row.key, v); err != nil {
		m.printNotice(noticeError, err.Error())
		return
	}
	when := "from the next start"
	if row.live != nil {
		row.live(m, v)
		when = "now"
	}
	m.printNotice(noticeInfo, fmt.Sprintf("%s = %s in %s; applies %s.", row.key, showSetting(v), homeRelative(sc.path), when))
}

// readSettingsFile reads a settings file as Gemini CLI does (comments
// allowed); a missing file is empty.
func readSettingsFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return map[string]any{}, err
	}
	v, err := config.ParseJSONC(data)
	if err != nil {
		return map[string]any{}, fmt.Errorf("%s: %v", path, err)
	}
	obj, _ := v.(map[string]any)
	return obj, nil
}

// lookupPath finds a dotted key in a settings document.
func lookupPath(doc map[string]any, key string) (any, bool) {
	var cur any = doc
	for _, k := range strings.Split(key, ".") {
		o, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = o[k]; !ok {
			return nil, false
		}
	}
	return cur, cur != nil
}

// showSetting writes a value as the dialog shows it.
func showSetting(v any) string {
	switch v := v.(type) {
	case nil:
		return "(not set)"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = showSetting(x)
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// shortPath is p relative to the working folder when inside it (the
// workspace's .gemini/settings.json), else relative to home: a dialog
// line as short as the path allows, the same on every machine.
func shortPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return rel
		}
	}
	return homeRelative(p)
}
