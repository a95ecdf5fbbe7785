package chats

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const (
	legacyID  = "0a1b2c3d-1111-4222-8333-944455556666"
	sessionID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	modernID  = "5d6e7f80-2222-4333-8444-a55566667777"
)

// projectFixture lays out a chats directory holding the three fixture
// sessions plus files that must not be listed.
func projectFixture(t *testing.T) *Store {
	t.Helper()
	s := testStore(t, "2026-08-22T12:00:00Z")
	dir := s.Dir()
	copyFixture(t, "legacy-session.json", dir, "session-2025-11-02T14-00-0a1b2c3d.json")
	copyFixture(t, "gemini-cli-session.jsonl", dir, "session-2026-08-20T09-15-7c9e6679.jsonl")
	copyFixture(t, "gemini-cli-modern.jsonl", dir, "session-2026-08-21T08-00-5d6e7f80.jsonl")
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A migrated copy of the legacy session, updated later: it wins.
	write("session-2025-11-02T14-00-0a1b2c3d.jsonl",
		`{"sessionId":"`+legacyID+`","projectHash":"h","startTime":"2025-11-02T14:00:00.000Z","lastUpdated":"2025-11-03T09:00:00.000Z"}`+"\n"+
			`{"id":"l-u1","timestamp":"2025-11-02T14:00:05.000Z","type":"user","content":"List files"}`+"\n")
	write("session-2026-08-22T00-00-aaaaaaaa.jsonl",
		`{"sessionId":"aaaaaaaa-sub","projectHash":"h","startTime":"2026-08-22T00:00:00.000Z","lastUpdated":"2026-08-22T00:00:00.000Z","kind":"subagent"}`+"\n"+
			`{"id":"x","type":"user","content":"sub task"}`+"\n")
	write("session-2026-08-22T01-00-bbbbbbbb.jsonl",
		`{"sessionId":"bbbbbbbb-startup","projectHash":"h","startTime":"2026-08-22T01:00:00.000Z","lastUpdated":"2026-08-22T01:00:00.000Z","kind":"main"}`+"\n"+
			`{"$set":{"messages":[{"id":"c","type":"user","content":[{"text":"<session_context>x</session_context>"}]}]}}`+"\n")
	write("session-2026-01-01T00-00-deadbeef.jsonl", "garbage\n")
	write("notes.txt", "not a session")
	return s
}

func TestList(t *testing.T) {
	s := projectFixture(t)
	infos, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, file, display, first string
		count                    int
	}{
		{legacyID, "session-2025-11-02T14-00-0a1b2c3d.jsonl", "List files", "List files", 1},
		{sessionID, "session-2026-08-20T09-15-7c9e6679.jsonl", "List Go files and explain main.go", "List the Go files and read main.go", 9},
		{modernID, "session-2026-08-21T08-00-5d6e7f80.jsonl", "Describe photo.png", "Describe photo.png", 6},
	}
	if len(infos) != len(want) {
		t.Fatalf("listed %d sessions, want %d: %+v", len(infos), len(want), infos)
	}
	for i, w := range want {
		in := infos[i]
		if in.Index != i+1 || in.ID != w.id || in.FileName != w.file || in.DisplayName != w.display ||
			in.FirstUserMessage != w.first || in.MessageCount != w.count {
			t.Errorf("session %d = %+v\nwant %+v", i+1, in, w)
		}
	}
}

func TestListMissingDir(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "nope"), "h")
	infos, err := s.List()
	if err != nil || len(infos) != 0 {
		t.Errorf("List = %v, %v", infos, err)
	}
	if _, err := s.Resolve("latest"); !errors.Is(err, ErrNoSessions) {
		t.Errorf("Resolve on empty store: %v", err)
	}
	if ErrNoSessions.Error() != "No previous sessions found for this project." {
		t.Error("ErrNoSessions text differs from Gemini CLI")
	}
}

func TestResolve(t *testing.T) {
	s := projectFixture(t)
	tests := []struct {
		ref     string
		want    string
		invalid bool
	}{
		{"latest", modernID, false},
		{"1", legacyID, false},
		{" 2 ", sessionID, false},
		{"3", modernID, false},
		{sessionID, sessionID, false},
		{"5d6e", modernID, false},
		{"0a1b2c3d-1111", legacyID, false},
		{"0", "", true},
		{"4", "", true},
		{"01", "", true},
		{"-1", "", true},
		{"zzz", "", true},
		{"", "", true},
		{"aaaaaaaa-sub", "", true}, // subagent sessions are not resumable
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			in, err := s.Resolve(tt.ref)
			if tt.invalid {
				var ie *InvalidSessionError
				if !errors.As(err, &ie) {
					t.Fatalf("err = %v, want InvalidSessionError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if in.ID != tt.want {
				t.Errorf("resolved %s, want %s", in.ID, tt.want)
			}
		})
	}
}

func TestInvalidSessionErrorText(t *testing.T) {
	s := projectFixture(t)
	_, err := s.Resolve("zzz")
	want := `Invalid session identifier "zzz".
  Searched for sessions in ` + s.Dir() + `.
  Use --list-sessions to see available sessions, then use --resume {number}, --resume {uuid}, or --resume latest.`
	if err == nil || err.Error() != want {
		t.Errorf("error text:\n%v\nwant:\n%s", err, want)
	}
}

func TestResolveAmbiguousPrefix(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	for _, id := range []string{"abc11111-0000", "abc22222-0000"} {
		r, err := s.Create(id, CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r.RecordUser("", textParts("hello "+id), "")
		r.Close()
	}
	_, err := s.Resolve("abc")
	var ie *InvalidSessionError
	if !errors.As(err, &ie) || len(ie.Matches) != 2 || !strings.Contains(err.Error(), "Ambiguous") {
		t.Errorf("err = %v", err)
	}
	if in, err := s.Resolve("abc2"); err != nil || in.ID != "abc22222-0000" {
		t.Errorf("unique prefix: %v, %v", in, err)
	}
}

func TestDelete(t *testing.T) {
	s := projectFixture(t)
	temp := filepath.Dir(s.Dir())
	artifacts := []string{
		filepath.Join(temp, "logs", "session-"+sessionID+".jsonl"),
		filepath.Join(temp, "tool-outputs", "session-"+sessionID, "out.txt"),
		filepath.Join(temp, sessionID, "plans", "p.md"),
		filepath.Join(s.Dir(), sessionID, "sub.jsonl"),
	}
	keep := []string{
		filepath.Join(temp, "logs", "session-"+modernID+".jsonl"),
		filepath.Join(s.Dir(), "session-2026-08-21T08-00-5d6e7f80.jsonl"),
		// Same 8-character prefix, different session: Gemini CLI would
		// delete it, Castor must not.
		filepath.Join(s.Dir(), "session-2026-08-23T00-00-7c9e6679.jsonl"),
	}
	for _, p := range append(artifacts, keep[0]) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(keep[2], []byte(`{"sessionId":"7c9e6679-other","projectHash":"h"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	in, err := s.Delete("2")
	if err != nil {
		t.Fatal(err)
	}
	if in.ID != sessionID {
		t.Fatalf("deleted %s, want %s", in.ID, sessionID)
	}
	for _, p := range append(artifacts, in.Path) {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived", p)
		}
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	infos, _ := s.List()
	if len(infos) != 2 || infos[1].ID != modernID || infos[1].Index != 2 {
		t.Errorf("after delete: %+v", infos)
	}
	if got := DeletedDescription(in, in.LastUpdated.Add(3*time.Hour)); got != "Deleted session 2: List the Go files and read main.go (3 hours ago)" {
		t.Errorf("DeletedDescription = %q", got)
	}
	if _, err := s.Delete("9"); err == nil {
		t.Error("deleting an unknown index succeeded")
	}
}

func TestContinueAppends(t *testing.T) {
	s := projectFixture(t)
	in, err := s.Resolve(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(in.Path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Continue(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.SessionID() != sessionID || r.Path() != in.Path {
		t.Errorf("continuing %s at %s", r.SessionID(), r.Path())
	}
	if _, err := r.RecordUser("", textParts("And then?"), ""); err != nil {
		t.Fatal(err)
	}
	r.Close()
	after, err := os.ReadFile(in.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), string(before)) {
		t.Fatal("continuing rewrote existing bytes")
	}
	// The torn line from the fixture is ended, not glued to our records.
	added := strings.TrimPrefix(string(after), string(before))
	if !strings.HasPrefix(added, "\n"+`{"$set":{"sessionId":"`+sessionID+`"}}`+"\n") {
		t.Errorf("appended records start %q", added[:min(len(added), 80)])
	}
	c, err := LoadFile(in.Path)
	if err != nil {
		t.Fatal(err)
	}
	h := c.History()
	if last := h[len(h)-1]; last.Role != "user" || last.Parts[0].Text != "And then?" {
		t.Errorf("last content = %+v", last)
	}
	if len(h) != 7 {
		t.Errorf("history has %d contents, want 7", len(h))
	}
}

func TestContinueLegacy(t *testing.T) {
	s := testStore(t, "2026-08-22T12:00:00Z")
	legacy := copyFixture(t, "legacy-session.json", s.Dir(), "session-2025-11-02T14-00-0a1b2c3d.json")
	original, _ := os.ReadFile(legacy)
	in, err := s.Resolve("latest")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Continue(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Path() != legacy+"l" {
		t.Errorf("continued into %s", r.Path())
	}
	id, err := r.RecordUser("", textParts("One more question"), "")
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if now, _ := os.ReadFile(legacy); string(now) != string(original) {
		t.Error("legacy file was modified")
	}
	c, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	old, _ := LoadFile(legacy)
	if c.SessionID != legacyID || c.Summary != old.Summary || len(c.Messages) != len(old.Messages)+1 || c.Messages[len(c.Messages)-1].ID != id {
		t.Errorf("migrated conversation: %+v", c)
	}
	assertJSONEqual(t, mustMarshal(t, c.History()[:6]), mustMarshal(t, old.History()))
	// Both files exist now; the listing shows the session once.
	infos, err := s.List()
	if err != nil || len(infos) != 1 || infos[0].FileName != filepath.Base(r.Path()) {
		t.Errorf("List after migration = %+v, %v", infos, err)
	}
}

func TestExists(t *testing.T) {
	s := projectFixture(t)
	tests := []struct {
		id   string
		want bool
	}{
		{sessionID, true},
		{legacyID, true},
		{"aaaaaaaa-sub", true}, // stored, though not listed
		{"7c9e6679-other", false},
		{"", false},
	}
	for _, tt := range tests {
		if got, err := s.Exists(tt.id); err != nil || got != tt.want {
			t.Errorf("Exists(%q) = %v, %v; want %v", tt.id, got, err, tt.want)
		}
	}
}

func TestLoadViaStore(t *testing.T) {
	s := projectFixture(t)
	in, err := s.Resolve("1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Load(in)
	if err != nil || c.SessionID != legacyID {
		t.Errorf("Load = %+v, %v", c, err)
	}
}

// sanitizeFilenamePart replaces what Gemini CLI's /[^a-zA-Z0-9_-]/g
// does, as Go's regexp reads the string: a character, or a byte that is
// not UTF-8, each becomes one "_".
func TestSanitizeFilenamePart(t *testing.T) {
	re := regexp.MustCompile(`[^a-zA-Z0-9_-]`)
	for _, s := range []string{
		"", "abc-DEF_123", "a b/c.d", "../..", "é日本\u00a0x", "\xff\xfe", "a\xc3", "\x00\t\n", "ZZ~!@#$%^&*()+=", "\U0001F600-ok",
	} {
		if got, want := sanitizeFilenamePart(s), re.ReplaceAllString(s, "_"); got != want {
			t.Errorf("sanitizeFilenamePart(%q) = %q, want %q", s, got, want)
		}
	}
}
