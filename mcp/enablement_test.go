package mcp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestEnablementFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", EnablementFileName)
	if got, err := LoadDisabled(path); err != nil || got != nil {
		t.Fatalf("missing file: %v %v", got, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// An entry Castor does not know survives.
	if err := os.WriteFile(path, []byte(`{"other": {"enabled": true, "note": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetEnabled(path, " Weather ", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadDisabled(path); strings.Join(got, ",") != "weather" {
		t.Errorf("disabled = %v", got)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"note": 1`) || !strings.Contains(string(data), `"weather": {`) {
		t.Errorf("file = %s", data)
	}
	f := Filter{Disabled: []string{"weather"}}
	if blocked, why := f.Blocked("WEATHER"); !blocked || why != "Server 'WEATHER' is disabled. Run 'castor mcp enable WEATHER' to enable." {
		t.Errorf("Blocked = %v %q", blocked, why)
	}
	if blocked, _ := f.Blocked("other"); blocked {
		t.Error("other is blocked")
	}
	if err := SetEnabled(path, "weather", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadDisabled(path); got != nil {
		t.Errorf("after enable: %v", got)
	}
	if err := os.WriteFile(path, []byte(`{`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDisabled(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file: %v", err)
	}
}

func TestDisabledServerNotStarted(t *testing.T) {
	m, _ := startManager(t, Options{Servers: []*ServerConfig{helperConfig(t, "Off", "everything")}, Filter: Filter{Disabled: []string{"off"}}})
	st, _ := m.Status("Off")
	if st.Status != StatusBlocked || !strings.Contains(st.Reason, "castor mcp enable Off") || len(m.Tools()) != 0 {
		t.Errorf("status %s %q, %d tools", st.Status, st.Reason, len(m.Tools()))
	}
}

// FuzzLoadDisabled checks that any enablement file is read or refused
// with an error, never a crash, and that what it disables can be enabled.
func FuzzLoadDisabled(f *testing.F) {
	f.Add([]byte(`{"a": {"enabled": false}, "b": {"enabled": true}}`))
	f.Add([]byte(`{"a": 1, "b": null, "c": {"enabled": "no"}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{" A ": {"enabled": false}, "a": {"enabled": false}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), EnablementFileName)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names, err := LoadDisabled(path)
		if err != nil {
			return
		}
		for _, n := range names {
			if err := SetEnabled(path, n, true); err != nil {
				t.Fatalf("enable %q: %v", n, err)
			}
		}
		if left, err := LoadDisabled(path); err != nil || len(left) != 0 {
			t.Fatalf("after enabling all: %q %v", left, err)
		}
	})
}

// TestSetEnabledReplacesAtomically checks that the enablement file, which
// Gemini CLI reads too, is replaced whole rather than truncated and
// rewritten in place: a reader holding the old file still reads all of it.
func TestSetEnabledReplacesAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), EnablementFileName)
	old := `{"other": {"enabled": false}}`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := SetEnabled(path, "weather", false); err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != old {
		t.Errorf("a reader of the old file read %q: the file was rewritten in place", data)
	}
	if got, _ := LoadDisabled(path); strings.Join(got, ",") != "other,weather" {
		t.Errorf("disabled = %v", got)
	}
}

// TestSetEnabledConcurrent: switches made at the same moment (several
// `castor mcp disable` runs) are all kept, none lost to another's write.
func TestSetEnabledConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", EnablementFileName)
	const n = 24
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := SetEnabled(path, fmt.Sprintf("server-%d", i), false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	disabled, err := LoadDisabled(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(disabled) != n {
		t.Errorf("%d of %d switches kept: %v", len(disabled), n, disabled)
	}
}
