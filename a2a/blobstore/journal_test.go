package blobstore_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
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

// copyDir copies the tree under src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestJournalV1: a store whose journal the previous code wrote (one
// object per entry, history and conversation only, left by a process
// that died) loads whole, takes new saves, and folds into the plain
// layout on Close. testdata/journal-v1/want.json is the task it saved.
func TestJournalV1(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/journal-v1/tasks", filepath.Join(dir, "tasks"))
	b, err := os.ReadFile("testdata/journal-v1/want.json")
	if err != nil {
		t.Fatal(err)
	}
	var want a2a.StoredTask
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	u := mustFileURL(t, dir)
	s := mustOpen(t, u)
	got, err := s.Load(t.Context(), "long")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&want, got); d != "" {
		t.Fatalf("journal of the previous format (-saved +loaded):\n%s", d)
	}
	grow(got, 6)
	if err := s.Save(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	again, err := mustOpen(t, u).Load(t.Context(), "long")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(got, again); d != "" {
		t.Fatalf("old entries and a new one (-saved +loaded):\n%s", d)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tasks", "long", "journal")); !os.IsNotExist(err) {
		t.Errorf("journal left after Close: %v", err)
	}
	again, err = mustOpen(t, u).Load(t.Context(), "long")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(got, again); d != "" {
		t.Fatalf("after Close (-saved +loaded):\n%s", d)
	}
}

// segment is the path of the task's one journal segment.
func segment(t *testing.T, dir, id string) string {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(dir, "tasks", id, "journal", "*.jsonl"))
	if len(segs) != 1 {
		t.Fatalf("segments %v, want one", segs)
	}
	return segs[0]
}

// TestJournalTornLine: a process killed in the middle of writing an entry
// leaves part of a line at the end of the segment. The next process
// ignores it with a warning, loses nothing else, and saves on.
func TestJournalTornLine(t *testing.T) {
	var logs strings.Builder
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	dir := t.TempDir()
	u := mustFileURL(t, dir)
	s := mustOpen(t, u)
	task := storetest.Task("t1", time.Now(), 0)
	for i := range 4 {
		grow(task, i)
		if err := s.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	seg := segment(t, dir, "t1")
	for path, want := range map[string]os.FileMode{seg: 0o600, filepath.Dir(seg): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v (%v), want mode %v", path, fi.Mode(), err, want)
		}
	}
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	// The write of a fifth save, cut short.
	lines := strings.SplitAfter(string(b), "\n")
	last := lines[len(lines)-2]
	torn := strings.Replace(last[:len(last)/2], `"seq":2`, `"seq":3`, 1)
	if err := os.WriteFile(seg, append(b, torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := mustOpen(t, u)
	got, err := s2.Load(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Fatalf("with a torn last line (-saved +loaded):\n%s", d)
	}
	if !strings.Contains(logs.String(), "torn") || !strings.Contains(logs.String(), filepath.Base(seg)) {
		t.Errorf("no warning naming the segment; logs:\n%s", logs.String())
	}
	for i := 4; i < 8; i++ {
		grow(task, i)
		if err := s2.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	got, err = mustOpen(t, u).Load(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Fatalf("saves after the torn line (-saved +loaded):\n%s", d)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = mustOpen(t, u).Load(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Fatalf("after Close (-saved +loaded):\n%s", d)
	}
}

// TestJournalBadLine: a line that does not decode with whole lines after
// it is not a torn write: the load fails naming the segment and line
// rather than dropping what follows.
func TestJournalBadLine(t *testing.T) {
	dir := t.TempDir()
	u := mustFileURL(t, dir)
	s := mustOpen(t, u)
	task := storetest.Task("t1", time.Now(), 0)
	for i := range 4 {
		grow(task, i)
		if err := s.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	seg := segment(t, dir, "t1")
	b, _ := os.ReadFile(seg)
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = "{\n"
	if err := os.WriteFile(seg, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := mustOpen(t, u).Load(t.Context(), "t1")
	if want := filepath.Base(seg) + ":2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load = %v, want an error naming %s", err, want)
	}
}

// FuzzJournalSegment: whatever a segment holds, Load answers with the
// task or an error, never a panic.
func FuzzJournalSegment(f *testing.F) {
	f.Add([]byte("{\"seq\":0,\"h\":4,\"history\":[{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"x\",\"parts\":[]}],\"c\":4,\"conversation\":[{\"role\":\"user\",\"parts\":[{\"text\":\"q\"}]}]}\n"))
	f.Add([]byte("{\"seq\":0,\"state\":{\"state\":\"working\"},\"artifacts\":{\"n\":1,\"set\":[{\"i\":0,\"a\":{\"artifactId\":\"a\"}}]}}\n{\"seq\":1,\"pen"))
	f.Add([]byte("{\"seq\":0,\"metadata\":null,\"push\":[],\"pending\":[{\"id\":\"c1\"}]}\n"))
	f.Add([]byte("{\"seq\":5,\"h\":-1}\n{}\n"))
	f.Fuzz(func(t *testing.T, seg []byte) {
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
		if err := os.WriteFile(filepath.Join(dir, "tasks", "t1", "journal", "00000000.jsonl"), seg, 0o600); err != nil {
			t.Fatal(err)
		}
		mustOpen(t, u).Load(t.Context(), "t1")
	})
}

// BenchmarkSaveFollowUp saves one follow-up turn (its two saves: the
// user message as it starts, the reply and contents as it ends) on tasks
// already that many turns long, in a file:// store: the cost must not
// grow with the task. Each timed turn is on its own task, loaded by the
// process that saves it as the server does, so that every one is at the
// stated length; run it with -benchtime Nx (N up to 100 or so: the tasks
// are grown before the timer starts). The first save of a task after a
// load starts its segment file, which costs a file creation (0.1 ms or
// more) once per task and process: a turn not timed does that.
func BenchmarkSaveFollowUp(b *testing.B) {
	reply := strings.Repeat("A model reply runs to a paragraph or so. ", 25)
	for _, turns := range []int{1, 50, 200} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			u := mustFileURL(b, b.TempDir())
			open := func() *blobstore.Store {
				s, err := blobstore.Open(b.Context(), u)
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			followUp := func(s *blobstore.Store, task *a2a.StoredTask, i int) {
				n := fmt.Sprint(i)
				task.History = append(task.History, a2a.Message{Kind: "message", Role: "user", MessageID: "u" + n, Parts: []a2a.Part{a2a.TextPart("question " + n)}})
				task.State, task.Status.State = a2a.StateWorking, a2a.StateWorking
				task.Timestamp = task.Timestamp.Add(time.Second)
				if err := s.Save(b.Context(), task); err != nil {
					b.Fatal(err)
				}
				reply := a2a.Message{Kind: "message", Role: "agent", MessageID: "a" + n, Parts: []a2a.Part{a2a.TextPart(reply)}}
				task.History = append(task.History, reply)
				task.Conversation = append(task.Conversation, genai.NewContentFromText("question "+n, genai.RoleUser), genai.NewContentFromText(reply.Parts[0].Text, genai.RoleModel))
				task.State, task.Status = a2a.StateInputRequired, a2a.TaskStatus{State: a2a.StateInputRequired, Message: &reply}
				task.Timestamp = task.Timestamp.Add(time.Second)
				if err := s.Save(b.Context(), task); err != nil {
					b.Fatal(err)
				}
			}
			// The tasks are grown, folded into their files (Close), and
			// loaded by a new process, which saves one turn on each.
			grown := open()
			tasks := make([]*a2a.StoredTask, min(b.N, 100))
			for k := range tasks {
				tasks[k] = storetest.Task(fmt.Sprintf("t%d", k), time.Now(), 0)
				tasks[k].Pending = nil
				if err := grown.Save(b.Context(), tasks[k]); err != nil {
					b.Fatal(err)
				}
				for i := range turns - 2 {
					followUp(grown, tasks[k], i)
				}
			}
			if err := grown.Close(); err != nil {
				b.Fatal(err)
			}
			s := open()
			defer s.Close()
			for k := range tasks {
				var err error
				if tasks[k], err = s.Load(b.Context(), tasks[k].ID); err != nil {
					b.Fatal(err)
				}
				followUp(s, tasks[k], turns-1)
			}
			b.ResetTimer()
			for i := range b.N {
				followUp(s, tasks[i%len(tasks)], turns+i)
			}
			b.StopTimer()
			if len(tasks[0].History) < 2*turns {
				b.Fatalf("task of %d messages, want %d turns", len(tasks[0].History), turns)
			}
		})
	}
}

// TestJournalFilesCurrent: with saves going into the journal, pending.json
// is still there exactly while a call waits, and a save that changes
// nothing (the server's as it shuts down or evicts a task) brings the
// files up to date without Close.
func TestJournalFilesCurrent(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, mustFileURL(t, dir))
	task := storetest.Task("t1", time.Now(), 0)
	pending := task.Pending
	task.Pending = nil
	td := filepath.Join(dir, "tasks", "t1")
	save := func() {
		t.Helper()
		if err := s.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	save()
	grow(task, 0)
	task.Pending = pending
	save()
	if _, err := os.Stat(filepath.Join(td, "pending.json")); err != nil {
		t.Errorf("a call waits, but: %v", err)
	}
	grow(task, 1)
	task.Pending = nil
	task.State = a2a.StateCompleted
	save()
	if _, err := os.Stat(filepath.Join(td, "pending.json")); !os.IsNotExist(err) {
		t.Errorf("pending.json outlived the answer: %v", err)
	}
	save() // unchanged
	var st struct {
		State   a2a.TaskState `json:"state"`
		Journal int           `json:"journal"`
	}
	b, _ := os.ReadFile(filepath.Join(td, "state.json"))
	if err := json.Unmarshal(b, &st); err != nil || st.State != a2a.StateCompleted || st.Journal != 2 {
		t.Errorf("state.json after an unchanged save = %s (%v), want the last state and journal 2", b, err)
	}
	var hist []a2a.Message
	b, _ = os.ReadFile(filepath.Join(td, "history.json"))
	if err := json.Unmarshal(b, &hist); err != nil || len(hist) != len(task.History) {
		t.Errorf("history.json holds %d messages (%v), want %d", len(hist), err, len(task.History))
	}
	if n := journalEntries(t, filepath.Join(td, "journal")); n != 0 {
		t.Errorf("%d journal entries left", n)
	}
}
