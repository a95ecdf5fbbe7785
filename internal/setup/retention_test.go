package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/model/fake"
)

// oldSession writes a 60-day-old session into the project's chats folder.
func oldSession(t *testing.T, home, ws, id string) string {
	t.Helper()
	store, err := chats.OpenStore(filepath.Join(home, ".gemini"), ws)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Now().UTC().Add(-60 * 24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
	p := filepath.Join(store.Dir(), "session-2020-01-01T00-00-"+id[:8]+".jsonl")
	body := fmt.Sprintf(`{"sessionId":%q,"projectHash":"h","startTime":%q,"lastUpdated":%q,"kind":"main"}
{"id":"u1","timestamp":%q,"type":"user","content":[{"text":"hello"}]}
`, id, ts, ts, ts)
	writeFile(t, p, body)
	return p
}

// The clean-up runs only when a face asks for it (the SDK does not) and
// the settings name general.sessionRetention, and once per process
// however many sessions are assembled.
func TestCleanupSessionsOnlyWhenAskedAndOnce(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	var warns []string
	open := func(cleanup bool) {
		t.Helper()
		a, err := New(context.Background(), Options{
			WorkDir: ws, HomeDir: home, Client: fake.Script(), CleanupSessions: cleanup,
			Env: envOf(func(string) string { return "" }), Warn: func(s string) { warns = append(warns, s) },
		})
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
	}
	first := oldSession(t, home, ws, "11111111-aaaa")
	open(false)
	if _, err := os.Stat(first); err != nil {
		t.Fatalf("a session without CleanupSessions deleted an old session: %v", err)
	}
	open(true)
	if _, err := os.Stat(first); err != nil {
		t.Fatalf("settings without general.sessionRetention deleted an old session: %v", err)
	}
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"general": {"sessionRetention": {"enabled": true}}}`)
	cleanupOnce = sync.Once{}
	open(true)
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Fatal("CleanupSessions kept a 60-day-old session")
	}
	if got := strings.Join(warns, "\n"); strings.Count(got, "Removed 1 recorded session") != 1 {
		t.Errorf("warnings: %q", got)
	}
	second := oldSession(t, home, ws, "22222222-bbbb")
	open(true)
	if _, err := os.Stat(second); err != nil {
		t.Fatalf("the clean-up ran twice in one process: %v", err)
	}
}
