package config

//go:generate go run ../internal/docgen

// SettingDoc is one key of a settings file as the generated reference
// page shows it (docs/configuration/settings.md).
type SettingDoc struct {
	// Key is the dotted key, as in settings.json.
	Key string
	// Status says what Castor does with the key.
	Status SettingStatus
	// Default is Gemini CLI's default as JSON ("" when it has none).
	Default string
	// AsIf is, as JSON, the value Castor always behaves as ("" when none).
	AsIf string
	// Description says in a line what the key asks for.
	Description string
	// Why says why Castor does not honour the key ("" when it does, or
	// when the status says it all).
	Why string
}

// SettingsReference lists every settings.json key Castor knows, in the
// order of the table that warns about ignored keys, so that the reference
// page and the warnings can never disagree. Keys that hold nothing to act
// on (editor metadata, Gemini CLI's bookkeeping) are left out.
func SettingsReference() []SettingDoc {
	return referenceOf(settingsTable, settingDescriptions.Get())
}

// ExtensionManifestReference does for gemini-extension.json what
// SettingsReference does for settings.json.
func ExtensionManifestReference() []SettingDoc {
	return referenceOf(extensionTable, extensionDescriptions.Get())
}

func referenceOf(table []settingKey, descriptions map[string]string) []SettingDoc {
	out := make([]SettingDoc, 0, len(table))
	for _, row := range table {
		if row.status == settingInert {
			continue
		}
		d := SettingDoc{Key: row.key, Status: row.status, Default: row.def, AsIf: row.asIf, Description: descriptions[row.key]}
		if row.status != SettingHonoured {
			// An honoured row's note is the Go code that reads it,
			// which says nothing to a user.
			d.Why = row.note
		}
		out = append(out, d)
	}
	return out
}
