package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// IgnoredSetting is a key a settings file (or an extension's manifest)
// sets that Castor does not act on. Gemini CLI users rely on their
// settings; the product rule is that none is dropped without a word.
type IgnoredSetting struct {
	// File is the settings file or gemini-extension.json.
	File string
	// Key is the setting's dotted path, in the nested (V2) form even when
	// the file uses a flat V1 name.
	Key string
	// Status is why it is ignored: cosmetic, not applicable, not
	// supported or unknown.
	Status SettingStatus
	// Note says more, when there is more to say ("" otherwise).
	Note string
}

// String is the warning line: the file, the key and what happens.
func (s IgnoredSetting) String() string {
	key := s.Key
	if key == "" || strings.ContainsAny(key, " \t\r\n\"'") {
		key = strconv.Quote(key)
	}
	var what string
	switch s.Status {
	case SettingCosmetic:
		what = "is a display option of Gemini CLI's UI that Castor's terminal UI does not have"
	case SettingNotApplicable:
		what = "does not apply to Castor"
	case SettingUnsupported:
		what = "is not supported by Castor yet"
	default:
		if s.Note != "" {
			return fmt.Sprintf("%s: %s %s; ignored", s.File, key, s.Note)
		}
		what = "is not a setting Castor knows (a typo, or a newer Gemini CLI setting?)"
	}
	if s.Note != "" {
		what += " (" + s.Note + ")"
	}
	return fmt.Sprintf("%s: %s %s; ignored", s.File, key, what)
}

// tableIndex is a table looked up by key, with the keys that only group
// other keys.
type tableIndex struct {
	rows   map[string]*settingKey
	groups map[string]bool
}

func indexTable(table []settingKey) tableIndex {
	ix := tableIndex{rows: map[string]*settingKey{}, groups: map[string]bool{}}
	for i := range table {
		r := &table[i]
		ix.rows[r.key] = r
		parts := strings.Split(r.key, ".")
		for n := 1; n < len(parts); n++ {
			ix.groups[strings.Join(parts[:n], ".")] = true
		}
	}
	return ix
}

// The indexes are built on first use, not at start: most commands never
// look (castor --version, A2A and ACP before a settings file is read).
var (
	settingsIndex  = lazy.Value[tableIndex]{New: func() tableIndex { return indexTable(settingsTable) }}
	extensionIndex = lazy.Value[tableIndex]{New: func() tableIndex { return indexTable(extensionTable) }}
)

// IgnoredSettings lists the keys set in the settings files that took part
// in the Load, lowest precedence first, that Castor does not honour. A key
// set to Gemini CLI's default, or to what Castor does anyway, is not
// listed; neither are the members of objects the user names
// (mcpServers.<name>, hooks.<event>), which their own readers check.
// Layers left out of the merge (an untrusted workspace) are not looked at.
func (s *Settings) IgnoredSettings() []IgnoredSetting {
	if s == nil {
		return nil
	}
	var out []IgnoredSetting
	for _, lf := range s.Files {
		if !lf.Exists || lf.Skipped != "" {
			continue
		}
		out = append(out, ignoredIn(lf.Path, lf.Raw, settingsIndex.Get())...)
	}
	return out
}

// IgnoredExtensionKeys lists the keys of an extension's
// gemini-extension.json that Castor does not honour (themes, plan, keys it
// does not know). A manifest that cannot be read gives nothing: loading
// the extension already reported it.
func IgnoredExtensionKeys(e *Extension) []IgnoredSetting {
	if e == nil || e.Path == "" {
		return nil
	}
	file := filepath.Join(e.Path, ExtensionManifestName)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var raw map[string]any
	if json.Unmarshal(data, &raw) != nil {
		return nil
	}
	return ignoredIn(file, raw, extensionIndex.Get())
}

// ignoredIn walks one file's object against a table.
func ignoredIn(file string, obj map[string]any, ix tableIndex) []IgnoredSetting {
	var out []IgnoredSetting
	var walk func(obj map[string]any, prefix string)
	walk = func(obj map[string]any, prefix string) {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, key := obj[k], prefix+k
			// null means "not set", as in Gemini CLI's schema.
			if v == nil {
				continue
			}
			if row, ok := ix.rows[key]; ok {
				if reported(row, v) {
					out = append(out, IgnoredSetting{File: file, Key: key, Status: row.status, Note: row.note})
				}
				continue
			}
			if ix.groups[key] {
				if m, ok := v.(map[string]any); ok {
					walk(m, key+".")
					continue
				}
				out = append(out, IgnoredSetting{File: file, Key: key, Status: SettingUnknown, Note: "should be an object"})
				continue
			}
			out = append(out, IgnoredSetting{File: file, Key: key, Status: SettingUnknown})
		}
	}
	walk(obj, "")
	return out
}

// reported says whether a value set at row is worth a warning.
func reported(row *settingKey, v any) bool {
	if row.status == SettingHonoured || row.status == settingInert {
		return false
	}
	return !sameJSON(row.def, v) && !sameJSON(row.asIf, v)
}

// sameJSON reports whether v is the value the JSON text j holds.
func sameJSON(j string, v any) bool {
	if j == "" {
		return false
	}
	var w any
	if json.Unmarshal([]byte(j), &w) != nil {
		return false
	}
	return reflect.DeepEqual(w, v)
}
