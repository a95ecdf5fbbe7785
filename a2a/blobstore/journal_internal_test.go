package blobstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a"
)

func openFile(t *testing.T, dir string) *Store {
	t.Helper()
	u, err := FileURL(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newTask(id string) *a2a.StoredTask {
	ts := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	return &a2a.StoredTask{
		ID: id, ContextID: "ctx", State: a2a.StateInputRequired, Timestamp: ts,
		Status:      a2a.TaskStatus{State: a2a.StateInputRequired, Timestamp: ts.Format(time.RFC3339Nano)},
		Metadata:    map[string]any{"_contextId": "ctx"},
		PushConfigs: []a2a.PushNotificationConfig{{ID: "p1", URL: "https://hooks.example/x"}},
	}
}

// turn adds turn i to the task as the server saves it: the user message
// as the turn starts (working), the reply, its contents and an artifact
// as it ends.
func turn(ctx context.Context, s *Store, task *a2a.StoredTask, i int) error {
	n := fmt.Sprint(i)
	task.History = append(task.History, a2a.Message{Kind: "message", Role: "user", MessageID: "u" + n, Parts: []a2a.Part{a2a.TextPart("q" + n)}})
	task.State = a2a.StateWorking
	task.Timestamp = task.Timestamp.Add(time.Second)
	if err := s.Save(ctx, task); err != nil {
		return err
	}
	task.History = append(task.History, a2a.Message{Kind: "message", Role: "agent", MessageID: "a" + n, Parts: []a2a.Part{a2a.TextPart("a" + n)}})
	task.Conversation = append(task.Conversation, genai.NewContentFromText("q"+n, genai.RoleUser), genai.NewContentFromText("a"+n, genai.RoleModel))
	if i%3 == 0 {
		task.Artifacts = append(task.Artifacts, a2a.Artifact{ArtifactID: "x" + n, Parts: []a2a.Part{a2a.TextPart("out " + n)}})
	}
	task.State = a2a.StateInputRequired
	task.Timestamp = task.Timestamp.Add(time.Second)
	return s.Save(ctx, task)
}

// TestCompactionRacesSaves: compactions running while a task is saved
// turn after turn neither lose nor repeat an entry, whether a new process
// reads the store in the middle (no Close) or after Close.
func TestCompactionRacesSaves(t *testing.T) {
	dir := t.TempDir()
	s := openFile(t, dir)
	ctx := t.Context()
	task := newTask("t1")
	if err := s.Save(ctx, task); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var compactions atomic.Int64
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.compactTask(ctx, taskPrefix("t1"), false)
			compactions.Add(1)
		}
	})
	for i := range 150 {
		if err := turn(ctx, s, task, i); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			// Saves can starve the compactor of the task's lock: let
			// one through now and then.
			for n := compactions.Load(); compactions.Load() < n+1; {
				runtime.Gosched()
			}
		}
		if i%50 == 49 {
			// A process that dies now leaves this for the next.
			got, err := openFile(t, dir).Load(ctx, "t1")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(task, got); d != "" {
				t.Fatalf("turn %d, read by a new process (-saved +loaded):\n%s", i, d)
			}
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d compactions", compactions.Load())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tasks", "t1", "journal")); !os.IsNotExist(err) {
		ents, _ := os.ReadDir(filepath.Join(dir, "tasks", "t1", "journal"))
		t.Errorf("journal left after Close: %v", ents)
	}
	got, err := openFile(t, dir).Load(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Fatalf("after Close (-saved +loaded):\n%s", d)
	}
}

// TestCompactionCrash: a process killed at any step of a compaction
// (files written, state.json marked, entries not yet dropped) leaves a
// store the next process loads whole, and goes on saving into.
func TestCompactionCrash(t *testing.T) {
	for _, step := range []string{"written", "marked"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			ctx := t.Context()
			s := openFile(t, dir)
			task := newTask("t1")
			if err := s.Save(ctx, task); err != nil {
				t.Fatal(err)
			}
			for i := range 7 {
				if err := turn(ctx, s, task, i); err != nil {
					t.Fatal(err)
				}
			}
			compactHook = func(at string) bool { return at != step }
			t.Cleanup(func() { compactHook = nil })
			s.compactTask(ctx, taskPrefix("t1"), false)
			compactHook = nil
			// The process dies: s is never used again, and the system
			// releases its lock on the directory.
			s.dirLock.Unlock()
			if step == "written" && len(tempFiles(t, dir)) == 0 {
				t.Fatal("the crash left no temporary files: the test no longer tests the sweep")
			}
			s2 := openFile(t, dir)
			if left := tempFiles(t, dir); len(left) > 0 {
				t.Errorf("temporary files left after Open: %v", left)
			}
			got, err := s2.Load(ctx, "t1")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(task, got); d != "" {
				t.Fatalf("after a crash (-saved +loaded):\n%s", d)
			}
			for i := 7; i < 12; i++ {
				if err := turn(ctx, s2, task, i); err != nil {
					t.Fatal(err)
				}
			}
			if err := s2.Close(); err != nil {
				t.Fatal(err)
			}
			got, err = openFile(t, dir).Load(ctx, "t1")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(task, got); d != "" {
				t.Fatalf("after Close (-saved +loaded):\n%s", d)
			}
		})
	}
}

// TestSettleCompacts: a task left alone for a moment is folded into the
// plain layout without Close, and saves go on appending after that.
func TestSettleCompacts(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s := openFile(t, dir)
	defer s.Close()
	task := newTask("t1")
	if err := s.Save(ctx, task); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := turn(ctx, s, task, i); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second) // a hang, not a speed check
	for {
		s.mu.Lock()
		j := *s.journals[taskPrefix("t1")]
		s.mu.Unlock()
		if j.entries == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("journal not folded in: %+v", j)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var st stateFile
	if err := s.readJSON(ctx, taskPrefix("t1")+"state.json", &st); err != nil {
		t.Fatal(err)
	}
	if st.State != a2a.StateInputRequired || st.Journal == 0 {
		t.Errorf("state.json after settling: %+v", st)
	}
	if err := turn(ctx, s, task, 3); err != nil {
		t.Fatal(err)
	}
	got, err := openFile(t, dir).Load(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Fatalf("(-saved +loaded):\n%s", d)
	}
}

// FuzzParseJournal: whatever a segment holds, the reader returns entries,
// each numbered, or an error naming the line, and never panics; what it
// returns applies to a task without a panic.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte("{\"seq\":0,\"h\":0,\"history\":[{\"kind\":\"message\"}],\"state\":{\"state\":\"working\"}}\n{\"seq\":1,\"c\":0,\"conversation\":[{}]}\n"))
	f.Add([]byte("{\"seq\":0,\"artifacts\":{\"n\":2,\"set\":[{\"i\":1,\"a\":{}}]}}\n{\"seq\":1,\"h\":"))
	f.Add([]byte("{\"seq\":0,\"pending\":[],\"push\":null,\"metadata\":{}}\n\n"))
	f.Add([]byte("garbage\n{\"seq\":3}\n"))
	f.Add([]byte("{\"seq\":0,\"t\":{\"i\":0,\"at\":0,\"m\":{\"kind\":\"message\",\"parts\":[{\"kind\":\"text\",\"text\":\"ab\"}]}}}\n{\"seq\":1,\"t\":{\"i\":0,\"at\":1,\"text\":\"c\"}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := parseJournal("tasks/t/journal/00000000.jsonl", 0, b, true)
		if err != nil {
			return
		}
		d := &doc{have: partAll}
		for i := range es {
			if es[i].Seq == nil {
				t.Fatalf("entry %d has no number", i)
			}
			d.apply(&es[i])
		}
		if _, _, err := d.encode("tasks/t/", true); err != nil {
			return
		}
		d.task("t")
	})
}

// TestOpenSegmentsCounted: the count of segment files kept open follows
// the journals holding one through saves, compaction, Delete and Close.
func TestOpenSegmentsCounted(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s := openFile(t, dir)
	open := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		n := 0
		for _, j := range s.journals {
			if j.f != nil {
				n++
			}
		}
		if n != s.openSegs {
			t.Fatalf("%d segments open, counted %d", n, s.openSegs)
		}
		return n
	}
	tasks := map[string]*a2a.StoredTask{}
	for _, id := range []string{"a", "b", "c"} {
		tasks[id] = newTask(id)
		if err := s.Save(ctx, tasks[id]); err != nil {
			t.Fatal(err)
		}
		if err := turn(ctx, s, tasks[id], 0); err != nil {
			t.Fatal(err)
		}
	}
	if n := open(); n != 3 {
		t.Errorf("%d segments open after saves on 3 tasks", n)
	}
	s.compactTask(ctx, taskPrefix("a"), false)
	if n := open(); n != 2 {
		t.Errorf("%d segments open after compacting one", n)
	}
	if err := s.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 1 {
		t.Errorf("%d segments open after deleting one", n)
	}
	if err := turn(ctx, s, tasks["a"], 1); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 2 {
		t.Errorf("%d segments open after saving the compacted one again", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 0 {
		t.Errorf("%d segments open after Close", n)
	}
}
