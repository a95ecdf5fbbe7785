package version

import (
	"strings"
	"testing"
)

func TestLong(t *testing.T) {
	saved := [3]string{Version, Commit, Date}
	t.Cleanup(func() { Version, Commit, Date = saved[0], saved[1], saved[2] })
	tests := []struct {
		version, commit, date string
		want                  string
	}{
		{"1.2.3", "0123456789abcdef0123", "2026-12-07T00:00:00Z", "1.2.3 (commit 0123456789ab, built 2026-12-07T00:00:00Z)"},
		{"1.2.3", "0123456789abcdef0123-dirty", "2026-12-07T00:00:00Z", "1.2.3 (commit 0123456789ab-dirty, built 2026-12-07T00:00:00Z)"},
		{"1.2.3", "abc", "2026-12-07T00:00:00Z", "1.2.3 (commit abc, built 2026-12-07T00:00:00Z)"},
	}
	for _, tt := range tests {
		Version, Commit, Date = tt.version, tt.commit, tt.date
		if got := Long(); got != tt.want {
			t.Errorf("Long() = %q, want %q", got, tt.want)
		}
	}
	// Unstamped, the line still starts with the version alone.
	Version, Commit, Date = "9.9.9", "", ""
	if got := Long(); !strings.HasPrefix(got, "9.9.9") {
		t.Errorf("Long() = %q", got)
	}
}
