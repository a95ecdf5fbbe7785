package mcp

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/castor-dev/castor/tool"
)

// TestProgressReachesLiveOutput: a call carries a progress token, as in
// Gemini CLI, and the server's notifications/progress for it become the
// call's live output; progress for another token is ignored. Before,
// calls carried no token, so servers reported nothing while a long call
// ran.
func TestProgressReachesLiveOutput(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "seen")
	cfg := helperConfig(t, "progress", "progress")
	cfg.Env["PROGRESS_SEEN"] = seen
	m, d := startManager(t, Options{Servers: []*ServerConfig{cfg}})
	reg := tool.NewRegistry(m.Tools()...)
	_, c, terr := reg.Prepare("work", map[string]any{}, nil)
	if terr != nil {
		t.Fatalf("prepare: %v\n%s", terr, d)
	}
	var live []string
	res := c.Execute(t.Context(), func(s string) {
		live = append(live, s)
		if strings.Contains(s, "no total") {
			_ = os.WriteFile(seen, nil, 0o644)
		}
	})
	if res.Error != nil || res.Display != "worked" {
		t.Fatalf("result %+v", res)
	}
	want := []string{
		"█████░░░░░░░░░░░░░░░ 25%\nwarming up",
		"██████████░░░░░░░░░░ 50%",
		"███████░░░░░░░░░░░░░ 7\nno total",
	}
	if !slices.Equal(live, want) {
		t.Errorf("live output:\n%q\nwant\n%q", live, want)
	}
	// Without a place for live output the call asks for no progress.
	if res := c.Execute(t.Context(), nil); res.Display != "no progress token" {
		t.Errorf("without out: %q", res.Display)
	}
}

func TestProgressText(t *testing.T) {
	tests := []struct {
		progress, total float64
		message, want   string
	}{
		{0, 10, "", "░░░░░░░░░░░░░░░░░░░░ 0%"},
		{10, 10, "  done  ", "████████████████████ 100%\ndone"},
		{15, 10, "", "████████████████████ 100%"}, // past the total
		{1, 3, "", "███████░░░░░░░░░░░░░ 33%"},
		{3, 0, "", "███░░░░░░░░░░░░░░░░░ 3"},   // no total: the bar cycles
		{22, 0, "", "█░░░░░░░░░░░░░░░░░░░ 22"}, // 22 mod 21
		{2.5, 0, "", "██░░░░░░░░░░░░░░░░░░ 2.5"},
		{-4, 10, "", "░░░░░░░░░░░░░░░░░░░░ -40%"},
	}
	for _, tt := range tests {
		if got := ProgressText(tt.progress, tt.total, tt.message); got != tt.want {
			t.Errorf("ProgressText(%v, %v, %q) = %q, want %q", tt.progress, tt.total, tt.message, got, tt.want)
		}
	}
}

// FuzzProgressText: whatever numbers and message a server reports, the
// bar is drawn whole, never a panic (math.Inf, NaN, huge and negative
// values included).
func FuzzProgressText(f *testing.F) {
	f.Add(0.5, 1.0, "half")
	f.Add(-3.0, 0.0, "")
	f.Add(1e300, -1e300, "x\ny")
	f.Add(math.Inf(1), math.NaN(), " ")
	f.Fuzz(func(t *testing.T, progress, total float64, message string) {
		text := ProgressText(progress, total, message)
		bar, _, _ := strings.Cut(text, " ")
		if n := utf8.RuneCountInString(bar); n != progressBarWidth {
			t.Fatalf("ProgressText(%v, %v) bar of %d cells: %q", progress, total, n, text)
		}
	})
}
