package blobstore_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/a2a/storetest"
)

// grow adds one turn to the task.
func grow(task *a2a.StoredTask, i int) {
	n := fmt.Sprint(i)
	task.History = append(task.History,
		a2a.Message{Kind: "message", Role: "user", MessageID: "u" + n, Parts: []a2a.Part{a2a.TextPart("q" + n)}},
		a2a.Message{Kind: "message", Role: "agent", MessageID: "a" + n, Parts: []a2a.Part{a2a.TextPart("a" + n)}})
	task.Conversation = append(task.Conversation, genai.NewContentFromText("q"+n, genai.RoleUser), genai.NewContentFromText("a"+n, genai.RoleModel))
}

// journalEntries counts the entries in a journal directory: a line each
// in segments (.jsonl), one per object (.json).
func journalEntries(t *testing.T, dir string) int {
	t.Helper()
	files, _ := os.ReadDir(dir)
	n := 0
	for _, f := range files {
		switch filepath.Ext(f.Name()) {
		case ".json":
			n++
		case ".jsonl":
			b, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			n += strings.Count(string(b), "\n")
		}
	}
	return n
}

// TestJournal: turns are appended as journal entries; a process that dies
// leaves them for the next to read, and Close folds them into the plain
// layout, which a tool reading history.json sees whole.
func TestJournal(t *testing.T) {
	dir := t.TempDir()
	u := mustFileURL(t, dir)
	task := storetest.Task("t1", time.Now(), 0)
	task.Pending = nil
	s1 := mustOpen(t, u)
	for i := range 10 {
		grow(task, i)
		if err := s1.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	if n := journalEntries(t, filepath.Join(dir, "tasks", "t1", "journal")); n != 9 {
		t.Errorf("%d journal entries after 10 saves, want 9 (the first save writes the files)", n)
	}
	// kill -9: s1 is never closed; a new process reads the journal.
	s2 := mustOpen(t, u)
	got, err := s2.Load(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Fatalf("after a crash (-saved +loaded):\n%s", d)
	}
	for i := 10; i < 50; i++ {
		grow(task, i)
		if err := s2.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tasks", "t1", "journal")); !os.IsNotExist(err) {
		t.Errorf("journal left after Close: %v", err)
	}
	var hist []a2a.Message
	b, _ := os.ReadFile(filepath.Join(dir, "tasks", "t1", "history.json"))
	if err := json.Unmarshal(b, &hist); err != nil || len(hist) != len(task.History) {
		t.Errorf("history.json holds %d messages (%v), want %d", len(hist), err, len(task.History))
	}
	got, err = mustOpen(t, u).Load(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Fatalf("after Close (-saved +loaded):\n%s", d)
	}
}

// TestJournalBadEntry: an entry that does not decode fails the load with
// its name rather than losing what follows it.
func TestJournalBadEntry(t *testing.T) {
	dir := t.TempDir()
	u := mustFileURL(t, dir)
	task := storetest.Task("t1", time.Now(), 0)
	s := mustOpen(t, u)
	for i := range 3 {
		grow(task, i)
		if err := s.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(dir, "tasks", "t1", "journal", "00000001.json")
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := mustOpen(t, u).Load(t.Context(), "t1")
	if err == nil || !strings.Contains(err.Error(), "journal/00000001.json") {
		t.Errorf("Load = %v, want an error naming the entry", err)
	}
}

// BenchmarkSaveLongTask saves a task the way the server does over 200
// turns (as a turn starts and as it ends) in a file:// store, and reports
// the mean time a turn's saves take over the first and the last ten turns.
func BenchmarkSaveLongTask(b *testing.B) {
	const turns = 200
	reply := strings.Repeat("A model reply runs to a paragraph or so. ", 25)
	var first, last time.Duration
	for range b.N {
		b.StopTimer()
		s, err := blobstore.Open(b.Context(), mustFileURL(b, b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		task := storetest.Task("t1", time.Now(), 0)
		task.Pending = nil
		b.StartTimer()
		for i := range turns {
			start := time.Now()
			n := fmt.Sprint(i)
			task.History = append(task.History, a2a.Message{Kind: "message", Role: "user", MessageID: "u" + n, Parts: []a2a.Part{a2a.TextPart("question " + n)}})
			if err := s.Save(b.Context(), task); err != nil {
				b.Fatal(err)
			}
			task.History = append(task.History, a2a.Message{Kind: "message", Role: "agent", MessageID: "a" + n, Parts: []a2a.Part{a2a.TextPart(reply)}})
			task.Conversation = append(task.Conversation, genai.NewContentFromText("question "+n, genai.RoleUser), genai.NewContentFromText(reply, genai.RoleModel))
			if err := s.Save(b.Context(), task); err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			switch {
			case i < 10:
				first += d
			case i >= turns-10:
				last += d
			}
		}
		b.StopTimer()
		s.Close()
	}
	b.ReportMetric(float64(first.Microseconds())/float64(10*b.N), "first10-µs/turn")
	b.ReportMetric(float64(last.Microseconds())/float64(10*b.N), "last10-µs/turn")
}

// FuzzJournalEntry: whatever a journal entry holds, Load answers with
// the task or an error, never a panic.
func FuzzJournalEntry(f *testing.F) {
	f.Add([]byte(`{"h":2,"history":[{"kind":"message","role":"user","messageId":"x","parts":[]}],"c":2,"conversation":[{"role":"user","parts":[{"text":"q"}]}]}`))
	f.Add([]byte(`{"h":99,"history":[],"c":0}`))
	f.Add([]byte(`{"h":-1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, entry []byte) {
		dir := t.TempDir()
		u := mustFileURL(t, dir)
		task := storetest.Task("t1", time.Now(), 0)
		s := mustOpen(t, u)
		for i := range 2 {
			grow(task, i)
			if err := s.Save(t.Context(), task); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "tasks", "t1", "journal", "00000000.json"), entry, 0o600); err != nil {
			t.Fatal(err)
		}
		mustOpen(t, u).Load(t.Context(), "t1")
	})
}
