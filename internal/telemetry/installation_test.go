package telemetry

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"
)

func TestInstallationID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content *string // the file's content before; nil: no file
		want    string  // "" means a new UUID
	}{
		{name: "no file, no folder"},
		{name: "Gemini CLI's id is reused", content: ptr("0b9a3cf0-5d3e-4a8e-9a43-2f0c3b1d7e11\n"), want: "0b9a3cf0-5d3e-4a8e-9a43-2f0c3b1d7e11"},
		{name: "an empty file is replaced", content: ptr("  \n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), ".gemini")
			if tc.content != nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, InstallationFile), []byte(*tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			id, err := InstallationID(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && id != tc.want {
				t.Errorf("id %q, want %q", id, tc.want)
			}
			if tc.want == "" {
				if _, err := uuid.Parse(id); err != nil {
					t.Errorf("id %q is not a UUID", id)
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, InstallationFile))
			if err != nil || string(b) != id && tc.want == "" {
				t.Errorf("file holds %q (%v), want %q", b, err, id)
			}
			again, err := InstallationID(dir)
			if err != nil || again != id {
				t.Errorf("second call: %q, %v; want %q", again, err, id)
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestInstallationIDRace starts many processes' worth of callers at once
// on a fresh folder: they all get the one id written.
func TestInstallationIDRace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ids := make([]string, 16)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			id, err := InstallationID(dir)
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("callers disagree: %v", ids)
		}
	}
}

func TestInstallationIDUnreadable(t *testing.T) {
	t.Parallel()
	// A file where the folder should be: neither read nor made.
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := InstallationID(f)
	if err == nil {
		t.Error("no error for a home that is a file")
	}
	if _, perr := uuid.Parse(id); perr != nil {
		t.Errorf("id %q is not a UUID", id)
	}
}
