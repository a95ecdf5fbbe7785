package a2a

import (
	"encoding/json"
	"testing"
)

// TestStoredPlainMark: the plain client's mark goes into the stored
// metadata only (tasks/get never shows it) and survives a store's JSON.
func TestStoredPlainMark(t *testing.T) {
	for _, plain := range []bool{true, false} {
		s, err := NewServer(Config{AllowedRoot: t.TempDir(), NewSession: noSession})
		if err != nil {
			t.Fatal(err)
		}
		tk := s.newTask("t1", "c1", AgentSettings{})
		tk.plain = plain
		st := tk.storedLocked()
		b, err := json.Marshal(st.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got := storedPlain(back); got != plain {
			t.Errorf("plain %v stored and read back as %v (%s)", plain, got, b)
		}
		shown, _ := json.Marshal(tk.metadataLocked())
		if storedPlain(tk.metadataLocked()) {
			t.Errorf("tasks/get shows the mark: %s", shown)
		}
	}
}
