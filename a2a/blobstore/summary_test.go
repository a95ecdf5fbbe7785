package blobstore_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/storetest"
)

// TestListSummaries: the summaries are what a load of each task says, in
// List's order, including state saved only in the journal, in the
// process that saved it and in a new one (after kill -9); tasks that
// cannot be loaded are left out.
func TestListSummaries(t *testing.T) {
	dir := t.TempDir()
	u := mustFileURL(t, dir)
	s1 := mustOpen(t, u)
	base := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	save := func(task *a2a.StoredTask) {
		t.Helper()
		if err := s1.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	// "b" and "b-2" check the order: "b-2/" sorts before "b/" as keys.
	for i, id := range []string{"a", "b", "b-2", "bad-state", "bad-journal"} {
		save(storetest.Task(id, base.Add(time.Duration(i)*time.Minute), 1))
	}
	// Later saves of "b" are journal entries that change its state.
	b := storetest.Task("b", base, 1)
	for i, st := range []a2a.TaskState{a2a.StateWorking, a2a.StateCompleted} {
		grow(b, i)
		b.State, b.Status.State = st, st
		b.Timestamp = base.Add(time.Duration(i+1) * time.Hour)
		b.Status.Timestamp = b.Timestamp.Format(time.RFC3339Nano)
		b.ContextID = "ctx-moved"
		save(b)
	}
	bj := storetest.Task("bad-journal", base, 1)
	grow(bj, 0)
	save(bj)
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "tasks", rel), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("bad-state/state.json", "{")
	journal, _ := filepath.Glob(filepath.Join(dir, "tasks", "bad-journal", "journal", "*"))
	if len(journal) == 0 {
		t.Fatal("no journal for bad-journal")
	}
	for _, j := range journal {
		if err := os.WriteFile(j, []byte("{\n{\"seq\":0}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "tasks", "incomplete"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("incomplete/history.json", "[]")

	for _, tt := range []struct {
		name  string
		store func() a2a.TaskStore
	}{
		{"saving process", func() a2a.TaskStore { return s1 }},
		{"new process", func() a2a.TaskStore { return mustOpen(t, u) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.store()
			got, err := s.(a2a.TaskSummarizer).ListSummaries(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			ids, err := s.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var want []a2a.TaskSummary
			for _, id := range ids {
				task, err := s.Load(t.Context(), id)
				if err != nil {
					continue
				}
				want = append(want, a2a.TaskSummary{ID: id, ContextID: task.ContextID, State: task.State,
					StatusTimestamp: task.Status.Timestamp, LastActive: task.Timestamp})
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("summaries (-loaded +summarised):\n%s", d)
			}
			var gotIDs []string
			for _, sm := range got {
				gotIDs = append(gotIDs, sm.ID)
			}
			if wantIDs := []string{"a", "b", "b-2"}; !slices.Equal(gotIDs, wantIDs) {
				t.Errorf("summarised %v, want %v", gotIDs, wantIDs)
			}
			if i := slices.IndexFunc(got, func(sm a2a.TaskSummary) bool { return sm.ID == "b" }); i < 0 || got[i].State != a2a.StateCompleted || got[i].ContextID != "ctx-moved" {
				t.Errorf("b = %+v, want its journal's last state", got)
			}
		})
	}
}
