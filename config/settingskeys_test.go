package config

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notReaders are the files that name settings without acting on them:
// the table itself, type checks, V1 renames, merge rules and the typed
// fields' filling (whose consumers are looked for instead).
var notReaders = map[string]bool{
	"config/settingskeys.go": true,
	"config/ignored.go":      true,
	"config/validate.go":     true,
	"config/migrate.go":      true,
	"config/merge.go":        true,
	"config/settings.go":     true,
}

// moduleSource is every non-test Go file of the module outside
// notReaders, concatenated.
func moduleSource(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || (strings.HasPrefix(name, ".") && p != root) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || notReaders[rel] {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHonouredSettingsAreRead keeps the table honest: every key it marks
// honoured is read by some Go code of the module (the row's note, or the
// quoted key), so removing the code that reads a setting fails here until
// the table says the setting is ignored again.
func TestHonouredSettingsAreRead(t *testing.T) {
	src := moduleSource(t)
	for name, table := range map[string][]settingKey{"settings": settingsTable, "extension": extensionTable} {
		for _, r := range table {
			if r.status != SettingHonoured {
				continue
			}
			needle := r.note
			if needle == "" {
				needle = `"` + r.key + `"`
			}
			if !strings.Contains(src, needle) {
				t.Errorf("%s table: %s is marked honoured, but no Go file outside the table reads it (looked for %s)", name, r.key, needle)
			}
		}
	}
}

// TestSettingsTableWellFormed: keys are unique, defaults are JSON, no key
// is both a row and a group of rows, and every key Castor type-checks or
// merges specially is in the table.
func TestSettingsTableWellFormed(t *testing.T) {
	for name, table := range map[string][]settingKey{"settings": settingsTable, "extension": extensionTable} {
		ix := indexTable(table)
		seen := map[string]bool{}
		for _, r := range table {
			if seen[r.key] {
				t.Errorf("%s table: %s twice", name, r.key)
			}
			seen[r.key] = true
			if ix.groups[r.key] {
				t.Errorf("%s table: %s is a row and also a group of rows", name, r.key)
			}
			for _, j := range []string{r.def, r.asIf} {
				if j != "" && !json.Valid([]byte(j)) {
					t.Errorf("%s table: %s: %q is not JSON", name, r.key, j)
				}
			}
			if r.status == SettingUnknown {
				t.Errorf("%s table: %s is marked unknown", name, r.key)
			}
		}
	}
	known := func(key string) bool {
		return settingsIndex.Get().rows[key] != nil || settingsIndex.Get().groups[key] || underRow(key)
	}
	for key := range settingsSchema.Get() {
		if !known(key) {
			t.Errorf("validate.go checks %s, which the table lacks", key)
		}
	}
	for key := range mergeStrategies.Get() {
		if key = strings.TrimSuffix(key, ".*"); !known(key) {
			t.Errorf("merge.go merges %s, which the table lacks", key)
		}
	}
	for old, key := range v1Keys.Get() {
		if old == "disableAutoUpdate" || old == "disableUpdateNag" {
			continue // renamed again on load (migrateDeprecated)
		}
		if !known(key) {
			t.Errorf("the V1 key %s moves to %s, which the table lacks", old, key)
		}
	}
}

// underRow reports whether key lies inside a row that is a whole object
// (mcpServers.x).
func underRow(key string) bool {
	for p := key; strings.Contains(p, "."); {
		p = p[:strings.LastIndex(p, ".")]
		if settingsIndex.Get().rows[p] != nil {
			return true
		}
	}
	return false
}

// TestIgnoredSettingsAreNotRead is the other direction: a key the table
// calls ignored is not named, quoted, by Go code outside the table, so
// code that starts reading a setting fails here until its row says
// honoured (else users would be told it is ignored).
func TestIgnoredSettingsAreNotRead(t *testing.T) {
	src := moduleSource(t)
	for _, r := range settingsTable {
		// A one-word key ("admin") is too common a string to tell.
		if r.status == SettingHonoured || !strings.Contains(r.key, ".") {
			continue
		}
		if strings.Contains(src, `"`+r.key+`"`) {
			t.Errorf("%s is marked %s, but Go code outside the table names it; is it honoured now?", r.key, r.status)
		}
	}
}
