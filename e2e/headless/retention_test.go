package headless_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// writeOldSession writes a session of Gemini CLI's JSONL format last
// updated age ago into chats, returning its path.
func writeOldSession(t *testing.T, chats, id string, age time.Duration) string {
	t.Helper()
	last := time.Now().UTC().Add(-age)
	ts := last.Format("2006-01-02T15:04:05.000Z")
	name := fmt.Sprintf("session-%s-%s.jsonl", strings.ReplaceAll(last.Format("2006-01-02T15:04"), ":", "-"), id[:8])
	body := fmt.Sprintf(`{"sessionId":%q,"projectHash":"h","startTime":%q,"lastUpdated":%q,"kind":"main"}
{"id":"u1","timestamp":%q,"type":"user","content":[{"text":"old question %s"}]}
{"id":"g1","timestamp":%q,"type":"gemini","content":"old answer","model":"gemini-2.5-flash"}
`, id, ts, ts, ts, id, ts)
	p := filepath.Join(chats, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestSessionRetention runs the built binary in an isolated HOME holding
// sessions of several ages: with no general.sessionRetention in the
// settings nothing is deleted; once it is enabled, Gemini CLI's default
// maxAge 30d removes the old one at start-up, says so once on stderr,
// and leaves young sessions, the session being resumed and other files
// alone; a bad maxAge is reported in Gemini CLI's words and deletes
// nothing; enabled: false keeps everything.
func TestSessionRetention(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("one"))
	if r := e.Run("-p", "first"); r.Code != 0 {
		t.Fatalf("first run: %d %s", r.Code, r.Stderr)
	}
	first := e.SessionFile()
	chats := filepath.Dir(first)
	old := writeOldSession(t, chats, "0ld5e55i-0000-4000-8000-000000000001", 45*24*time.Hour)
	young := writeOldSession(t, chats, "y0un6000-0000-4000-8000-000000000002", 10*24*time.Hour)
	notes := filepath.Join(chats, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Without a word about it in the settings, nothing is deleted.
	e.Srv.Enqueue(fakegemini.Text("two"))
	r := e.Run("-p", "second")
	if r.Code != 0 || r.Stdout != "two\n" || !exists(old) || strings.Contains(r.Stderr, "ession") {
		t.Fatalf("second run: %d %q, old kept %v, stderr:\n%s", r.Code, r.Stdout, exists(old), r.Stderr)
	}
	settings := filepath.Join(e.Home, ".gemini", "settings.json")
	if err := os.WriteFile(settings, []byte(`{"general": {"sessionRetention": {"enabled": true}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Srv.Enqueue(fakegemini.Text("two"))
	r = e.Run("-p", "second")
	if r.Code != 0 || r.Stdout != "two\n" {
		t.Fatalf("third run: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	const notice = "Removed 1 recorded session of this project (general.sessionRetention: maxAge 30d)."
	if strings.Count(r.Stderr, notice) != 1 {
		t.Errorf("stderr lacks the notice once:\n%s", r.Stderr)
	}
	if exists(old) {
		t.Error("the 45-day-old session survived")
	}
	for _, p := range []string{first, young, notes} {
		if !exists(p) {
			t.Errorf("%s was deleted", filepath.Base(p))
		}
	}

	// The session being resumed is kept however old.
	resumed := writeOldSession(t, chats, "4e5u3ed0-0000-4000-8000-000000000003", 60*24*time.Hour)
	e.Srv.Enqueue(fakegemini.Text("three"))
	r = e.Run("--resume", "4e5u3ed0-0000-4000-8000-000000000003", "-p", "again")
	if r.Code != 0 || !exists(resumed) || strings.Contains(r.Stderr, "Removed") {
		t.Errorf("resuming an old session: exit %d, kept %v, stderr:\n%s", r.Code, exists(resumed), r.Stderr)
	}

	// A bad maxAge disables the clean-up with Gemini CLI's message.
	old2 := writeOldSession(t, chats, "0ld20000-0000-4000-8000-000000000004", 90*24*time.Hour)
	if err := os.WriteFile(settings, []byte(`{"general": {"sessionRetention": {"maxAge": "30 days"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Srv.Enqueue(fakegemini.Text("four"))
	r = e.Run("-p", "bad")
	want := "Session cleanup disabled: Error: Invalid retention period format: 30 days. Expected format: <number><unit> where unit is h, d, w, or m"
	if r.Code != 0 || !strings.Contains(r.Stderr, want) || !exists(old2) {
		t.Errorf("bad maxAge: exit %d, old kept %v, stderr:\n%s", r.Code, exists(old2), r.Stderr)
	}

	// enabled: false keeps everything, silently.
	if err := os.WriteFile(settings, []byte(`{"general": {"sessionRetention": {"enabled": false}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Srv.Enqueue(fakegemini.Text("five"))
	r = e.Run("-p", "off")
	if r.Code != 0 || !exists(old2) || strings.Contains(r.Stderr, "ession") {
		t.Errorf("disabled: exit %d, old kept %v, stderr:\n%s", r.Code, exists(old2), r.Stderr)
	}
}
