package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/fsutil"
)

// EnablementFileName is the file under ~/.gemini where `gemini mcp
// disable` (and `castor mcp disable`) records the servers switched off:
// {"<name>": {"enabled": false}}, names in lower case. A server not in it
// is enabled.
const EnablementFileName = "mcp-server-enablement.json"

// normalizeName is a server's key in the enablement file.
func normalizeName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// LoadDisabled returns the servers the enablement file at path switches
// off. A missing file disables nothing.
func LoadDisabled(path string) ([]string, error) {
	states, err := readEnablement(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for name, raw := range states {
		var st struct {
			Enabled *bool `json:"enabled"`
		}
		if json.Unmarshal(raw, &st) == nil && st.Enabled != nil && !*st.Enabled {
			out = append(out, normalizeName(name))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// SetEnabled switches the server called name on (removing its entry, as
// Gemini CLI does) or off in the enablement file at path, keeping the
// other entries as they are.
func SetEnabled(path, name string, enabled bool) error {
	// Two castor processes switching servers at once must not lose one
	// change: the read, change and write hold a lock on a sidecar file
	// (as "allow always and save" does); where the file system has no
	// locks, the change goes on unlocked.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock, err := fsutil.Lock(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock"))
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	defer lock.Unlock()
	states, err := readEnablement(path)
	if err != nil {
		return err
	}
	if states == nil {
		states = map[string]json.RawMessage{}
	}
	key := normalizeName(name)
	if enabled {
		// Entries written by hand may differ in case or spaces.
		n := len(states)
		for k := range states {
			if normalizeName(k) == key {
				delete(states, k)
			}
		}
		if len(states) == n {
			return nil
		}
	} else {
		states[key] = json.RawMessage(`{"enabled":false}`)
	}
	data, err := json.MarshalIndent(states, "", "  ")
	if err != nil {
		return err
	}
	// Gemini CLI reads this file too: replace it whole, never leave it
	// half written.
	return fsutil.WriteFileAtomic(path, data, 0o644)
}

func readEnablement(path string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var states map[string]json.RawMessage
	if err := json.Unmarshal(data, &states); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return states, nil
}
