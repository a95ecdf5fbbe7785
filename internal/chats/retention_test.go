package chats

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// retentionNow is the injected clock of the clean-up tests.
var retentionNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// fakeSession is a session file to lay out: an id and how long before
// retentionNow it was last updated.
type fakeSession struct {
	id  string
	age time.Duration
	// empty writes the header only (no exchange), as a session that has
	// just started.
	empty bool
}

// writeFakeSession writes a session file in Gemini CLI's JSONL format.
func writeFakeSession(t testing.TB, dir string, fs fakeSession) string {
	t.Helper()
	last := retentionNow.Add(-fs.age)
	stamp := strings.ReplaceAll(last.Format("2006-01-02T15:04"), ":", "-")
	name := fmt.Sprintf("session-%s-%s.jsonl", stamp, fs.id[:min(8, len(fs.id))])
	ts := formatTime(last)
	lines := []string{
		fmt.Sprintf(`{"sessionId":%q,"projectHash":"h","startTime":%q,"lastUpdated":%q,"kind":"main"}`, fs.id, ts, ts),
	}
	if !fs.empty {
		lines = append(lines,
			fmt.Sprintf(`{"id":"u1","timestamp":%q,"type":"user","content":[{"text":"hello %s"}]}`, ts, fs.id),
			fmt.Sprintf(`{"id":"g1","timestamp":%q,"type":"gemini","content":"hi","model":"m"}`, ts),
		)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The file was last written when the session was last updated.
	if err := os.Chtimes(p, last, last); err != nil {
		t.Fatal(err)
	}
	return p
}

const day = 24 * time.Hour

func TestCleanup(t *testing.T) {
	defaults := Retention{Enabled: true, MaxAge: "30d", MinRetention: "1d"}
	withCount := func(r Retention, n float64) Retention {
		r.MaxCount, r.HasMaxCount = n, true
		return r
	}
	tests := []struct {
		name      string
		policy    Retention
		sessions  []fakeSession
		current   string
		wantGone  []string // ids deleted, oldest update first
		wantError string
		// wantUnprompted are the ids of header-only files removed.
		wantUnprompted []string
	}{
		{
			name:     "default policy deletes sessions idle over 30 days",
			policy:   defaults,
			sessions: []fakeSession{{id: "aaaaaaaa-old", age: 45 * day}, {id: "bbbbbbbb-new", age: 2 * day}, {id: "cccccccc-edge", age: 29 * day}},
			wantGone: []string{"aaaaaaaa-old"},
		},
		{
			name:     "disabled deletes nothing",
			policy:   Retention{Enabled: false, MaxAge: "1d"},
			sessions: []fakeSession{{id: "aaaaaaaa-old", age: 400 * day}},
		},
		{
			name:     "hours",
			policy:   Retention{Enabled: true, MaxAge: "24h"},
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 25 * time.Hour}, {id: "bbbbbbbb-2", age: 23 * time.Hour}},
			wantGone: []string{"aaaaaaaa-1"},
		},
		{
			name:     "weeks and 30-day months",
			policy:   Retention{Enabled: true, MaxAge: "1m"},
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 31 * day}, {id: "bbbbbbbb-2", age: 29 * day}},
			wantGone: []string{"aaaaaaaa-1"},
		},
		{
			name:   "maxCount keeps the most recently updated",
			policy: withCount(Retention{Enabled: true, MinRetention: "1h"}, 2),
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 5 * day}, {id: "bbbbbbbb-2", age: 4 * day},
				{id: "cccccccc-3", age: 3 * day}, {id: "dddddddd-4", age: 2 * day}},
			wantGone: []string{"aaaaaaaa-1", "bbbbbbbb-2"},
		},
		{
			name:   "maxCount counts the current session among those kept",
			policy: withCount(Retention{Enabled: true, MinRetention: "1h"}, 2),
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 5 * day}, {id: "bbbbbbbb-2", age: 4 * day},
				{id: "cccccccc-3", age: 3 * day}},
			current:  "aaaaaaaa-1",
			wantGone: []string{"bbbbbbbb-2"},
		},
		{
			name:   "maxCount never deletes within minRetention",
			policy: withCount(Retention{Enabled: true, MinRetention: "1d"}, 1),
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 3 * day}, {id: "bbbbbbbb-2", age: 2 * time.Hour},
				{id: "cccccccc-3", age: time.Hour}},
			wantGone: []string{"aaaaaaaa-1"},
		},
		{
			name:     "maxAge and maxCount both apply",
			policy:   withCount(defaults, 1),
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 40 * day}, {id: "bbbbbbbb-2", age: 3 * day}, {id: "cccccccc-3", age: 2 * day}},
			wantGone: []string{"aaaaaaaa-1", "bbbbbbbb-2"},
		},
		{
			name:     "the session being resumed is kept however old",
			policy:   defaults,
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 90 * day}, {id: "bbbbbbbb-2", age: 60 * day}},
			current:  "bbbbbbbb-2",
			wantGone: []string{"aaaaaaaa-1"},
		},
		{
			name:   "sessions that never got a prompt expire by maxAge only",
			policy: defaults,
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 90 * day, empty: true}, {id: "bbbbbbbb-2", age: 10 * day, empty: true},
				{id: "cccccccc-3", age: 40 * day, empty: true}},
			current:        "cccccccc-3",
			wantUnprompted: []string{"aaaaaaaa-1"},
		},
		{
			name:     "sessions that never got a prompt are not counted by maxCount",
			policy:   withCount(Retention{Enabled: true, MinRetention: "1h"}, 1),
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 90 * day, empty: true}, {id: "bbbbbbbb-2", age: 3 * day, empty: true}},
		},
		{
			name:      "bad maxAge deletes nothing",
			policy:    Retention{Enabled: true, MaxAge: "30 days"},
			sessions:  []fakeSession{{id: "aaaaaaaa-1", age: 90 * day}},
			wantError: "Error: Invalid retention period format: 30 days. Expected format: <number><unit> where unit is h, d, w, or m",
		},
		{
			name:      "zero maxAge",
			policy:    Retention{Enabled: true, MaxAge: "0d"},
			sessions:  []fakeSession{{id: "aaaaaaaa-1", age: 90 * day}},
			wantError: "Error: Invalid retention period: 0d. Value must be greater than 0",
		},
		{
			name:      "maxAge below minRetention",
			policy:    Retention{Enabled: true, MaxAge: "12h"},
			sessions:  []fakeSession{{id: "aaaaaaaa-1", age: 90 * day}},
			wantError: "maxAge cannot be less than minRetention (1d)",
		},
		{
			name:      "maxAge below an explicit minRetention",
			policy:    Retention{Enabled: true, MaxAge: "3d", MinRetention: "1w"},
			wantError: "maxAge cannot be less than minRetention (1w)",
		},
		{
			name:     "a malformed minRetention falls back to one day",
			policy:   Retention{Enabled: true, MaxAge: "2d", MinRetention: "soon"},
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 3 * day}},
			wantGone: []string{"aaaaaaaa-1"},
		},
		{
			name:      "maxCount below one",
			policy:    withCount(Retention{Enabled: true}, 0),
			wantError: "maxCount must be at least 1",
		},
		{
			name:      "neither limit",
			policy:    Retention{Enabled: true},
			wantError: "Either maxAge or maxCount must be specified",
		},
		{
			name:     "an enormous maxAge expires nothing",
			policy:   Retention{Enabled: true, MaxAge: "99999999999999999999d"},
			sessions: []fakeSession{{id: "aaaaaaaa-1", age: 4000 * day}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(filepath.Join(t.TempDir(), "tmp", "proj", "chats"), "h")
			s.now = func() time.Time { return retentionNow }
			paths := map[string]string{}
			for _, fs := range tt.sessions {
				paths[fs.id] = writeFakeSession(t, s.Dir(), fs)
			}
			res, err := s.Cleanup(tt.policy, tt.current)
			if tt.wantError != "" {
				if err == nil || err.Error() != tt.wantError {
					t.Fatalf("error = %v, want %q", err, tt.wantError)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			var gone []string
			for _, in := range res.Deleted {
				gone = append(gone, in.ID)
			}
			if !slices.Equal(gone, tt.wantGone) {
				t.Errorf("deleted %v, want %v", gone, tt.wantGone)
			}
			var wantUnprompted []string
			for _, id := range tt.wantUnprompted {
				wantUnprompted = append(wantUnprompted, paths[id])
			}
			if !slices.Equal(res.Unprompted, wantUnprompted) {
				t.Errorf("unprompted removed %v, want %v", res.Unprompted, wantUnprompted)
			}
			for id, p := range paths {
				_, statErr := os.Stat(p)
				if want := slices.Contains(tt.wantGone, id) || slices.Contains(tt.wantUnprompted, id); want != os.IsNotExist(statErr) {
					t.Errorf("%s: file gone = %v, want %v", id, os.IsNotExist(statErr), want)
				}
			}
		})
	}
}

// TestCleanupTouchesOnlySessionFiles checks that a deleted session takes
// its duplicate copies and subagent folder in chats/ with it, and nothing
// else: not a prefix twin of another id, not unrelated files, not logs or
// tool outputs outside chats/.
func TestCleanupTouchesOnlySessionFiles(t *testing.T) {
	temp := filepath.Join(t.TempDir(), "tmp", "proj")
	s := NewStore(filepath.Join(temp, "chats"), "h")
	s.now = func() time.Time { return retentionNow }
	old := writeFakeSession(t, s.Dir(), fakeSession{id: "aaaaaaaa-old", age: 60 * day})
	// A legacy copy of the same session and a young session whose id
	// shares the 8-character prefix.
	legacy := strings.TrimSuffix(old, "l")
	copyFile(t, old, legacy)
	twin := writeFakeSession(t, s.Dir(), fakeSession{id: "aaaaaaaa-twin", age: time.Hour})
	sub := filepath.Join(s.Dir(), "aaaaaaaa-old", "helper.jsonl")
	others := []string{
		filepath.Join(s.Dir(), "notes.txt"),
		filepath.Join(s.Dir(), "session-broken-zzzzzzzz.jsonl"),
		filepath.Join(temp, "logs", "session-aaaaaaaa-old.jsonl"),
		filepath.Join(temp, "tool-outputs", "session-aaaaaaaa-old", "out.txt"),
	}
	for _, p := range append([]string{sub}, others...) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The broken file is old too: age alone never condemns a file Castor
	// cannot read.
	if err := os.Chtimes(others[1], retentionNow.Add(-90*day), retentionNow.Add(-90*day)); err != nil {
		t.Fatal(err)
	}

	res, err := s.Cleanup(Retention{Enabled: true, MaxAge: "30d"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 1 || res.Deleted[0].ID != "aaaaaaaa-old" || res.Kept != 1 {
		t.Fatalf("result %+v, want aaaaaaaa-old deleted and one kept", res)
	}
	for _, p := range []string{old, legacy, filepath.Dir(sub)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived", p)
		}
	}
	for _, p := range append([]string{twin}, others...) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was touched: %v", p, err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRetentionFromSettings(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]any
		want     Retention
		wantErr  string
	}{
		{"defaults", nil, Retention{Enabled: true, MaxAge: "30d", MinRetention: "1d"}, ""},
		{"user values", map[string]any{"enabled": true, "maxAge": "7d", "maxCount": 5.0, "minRetention": "2h"},
			Retention{Enabled: true, MaxAge: "7d", MaxCount: 5, HasMaxCount: true, MinRetention: "2h", Explicit: true}, ""},
		{"turned off", map[string]any{"enabled": false, "maxAge": 3.0},
			Retention{MaxAge: "30d", MinRetention: "1d", Explicit: true}, ""},
		{"maxAge of the wrong type", map[string]any{"maxAge": 30.0}, Retention{},
			"general.sessionRetention.maxAge should be a string, got 30"},
		{"maxCount of the wrong type", map[string]any{"maxCount": "10"}, Retention{},
			"general.sessionRetention.maxCount should be a number, got 10"},
		{"enabled of the wrong type", map[string]any{"enabled": "yes"}, Retention{},
			"general.sessionRetention.enabled should be a boolean, got yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			get := func(key string) (any, bool) {
				if tt.settings == nil {
					return nil, false
				}
				if key == "general.sessionRetention" {
					return tt.settings, true
				}
				v, ok := tt.settings[strings.TrimPrefix(key, "general.sessionRetention.")]
				return v, ok
			}
			got, err := RetentionFromSettings(get)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCleanupNotice(t *testing.T) {
	one := CleanupResult{Deleted: []Info{{ID: "a"}}}
	two := CleanupResult{Deleted: []Info{{ID: "a"}, {ID: "b"}}}
	tests := []struct {
		name string
		r    Retention
		res  CleanupResult
		want string
	}{
		{"nothing deleted says nothing", Retention{Enabled: true, MaxAge: "30d"}, CleanupResult{Kept: 3}, ""},
		{"the user's policy", Retention{Enabled: true, MaxAge: "7d", MaxCount: 10, HasMaxCount: true, Explicit: true}, two,
			"Removed 2 recorded sessions of this project (general.sessionRetention: maxAge 7d, maxCount 10)."},
		{"the default limits", Retention{Enabled: true, MaxAge: "30d", Explicit: true}, one,
			"Removed 1 recorded session of this project (general.sessionRetention: maxAge 30d)."},
		{"unprompted sessions too", Retention{Enabled: true, MaxAge: "30d", Explicit: true}, CleanupResult{Deleted: one.Deleted, Unprompted: []string{"x", "y"}},
			"Removed 1 recorded session and 2 sessions that never got a prompt of this project (general.sessionRetention: maxAge 30d)."},
		{"unprompted sessions alone", Retention{Enabled: true, MaxAge: "30d", Explicit: true}, CleanupResult{Unprompted: []string{"x"}},
			"Removed 1 session that never got a prompt of this project (general.sessionRetention: maxAge 30d)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CleanupNotice(tt.r, tt.res); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// FuzzParseRetentionPeriod: any string parses or fails cleanly, and what
// parses is positive.
func FuzzParseRetentionPeriod(f *testing.F) {
	for _, s := range []string{"30d", "24h", "1w", "1m", "0d", "", "d", "-1d", "99999999999999999999h", "1y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseRetentionPeriod(s)
		if err == nil && d <= 0 {
			t.Fatalf("%q parsed to %v", s, d)
		}
	})
}

// BenchmarkCleanupNothingExpired is the start-up cost in the common case:
// 200 recorded sessions, none expired, each read to learn its age.
func BenchmarkCleanupNothingExpired(b *testing.B) {
	s := NewStore(filepath.Join(b.TempDir(), "chats"), "h")
	s.now = func() time.Time { return retentionNow }
	for i := range 200 {
		writeFakeSession(b, s.Dir(), fakeSession{id: fmt.Sprintf("%08d-x", i), age: time.Duration(i) * time.Hour})
	}
	policy := Retention{Enabled: true, MaxAge: "30d", MinRetention: "1d"}
	for b.Loop() {
		if res, err := s.Cleanup(policy, ""); err != nil || len(res.Deleted) != 0 {
			b.Fatal(res, err)
		}
	}
}
