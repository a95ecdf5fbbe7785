package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/update/updatetest"
	"github.com/castor-dev/castor/internal/version"
)

// TestUpdateNotice: a release build asks the feed in the background when
// its last check is old and tells at the next start that a newer release
// exists, unless the settings turn the notice off (0.61's
// disableUpdateNag included); a build from source never asks.
func TestUpdateNotice(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		date     string
		want     bool
	}{
		{"release build", `{}`, "2026-12-07T00:00:00Z", true},
		{"notification off", `{"general": {"enableAutoUpdateNotification": false}}`, "2026-12-07T00:00:00Z", false},
		{"0.61's disableUpdateNag", `{"general": {"disableUpdateNag": true}}`, "2026-12-07T00:00:00Z", false},
		{"built from source", `{}`, "", false},
	}
	feed := updatetest.Feed(t, "v99.0.0", "linux", "amd64", updatetest.TarGz(t, map[string]string{"castor": "x"}), "")
	saved := version.Date
	t.Cleanup(func() { version.Date = saved })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("GEMINI_CLI_HOME", "")
			t.Chdir(t.TempDir())
			dir := filepath.Join(home, ".gemini")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			settings := `{"general": {"updateFeedUrl": "` + feed + `"}}`
			if tt.settings != `{}` { // both keys under one "general"
				settings = strings.Replace(tt.settings, `"general": {`, `"general": {"updateFeedUrl": "`+feed+`", `, 1)
			}
			if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			version.Date = tt.date
			var first bytes.Buffer
			if done := updateNotice(context.Background(), &first); done != nil {
				<-done
			} else if tt.want {
				t.Fatal("no check of the feed was started")
			}
			if first.Len() != 0 {
				t.Errorf("a notice before any check: %q", first.String())
			}
			var second bytes.Buffer
			if done := updateNotice(context.Background(), &second); done != nil {
				t.Error("the feed was asked again within a day")
				<-done
			}
			got := strings.Contains(second.String(), "Castor 99.0.0 is available")
			if got != tt.want {
				t.Errorf("second start printed %q", second.String())
			}
		})
	}
}
