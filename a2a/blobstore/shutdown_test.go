package blobstore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/a2a/storetest"
)

// BenchmarkShutdown saves 1,000 tasks a turn each in a file:// store, as
// the A2A server does under load, and then times what its shutdown does:
// a save of every task in memory (unchanged: each folds its journal in),
// by one goroutine or by several, and Close; savers=0 is Close alone,
// folding every task.
func BenchmarkShutdown(b *testing.B) {
	for _, workers := range []int{0, 1, 16} {
		b.Run(fmt.Sprintf("savers=%d", workers), func(b *testing.B) { benchmarkShutdown(b, workers) })
	}
}

func benchmarkShutdown(b *testing.B, workers int) {
	const tasks = 1000
	var saves, closes, cpu time.Duration
	for range b.N {
		b.StopTimer()
		s, err := blobstore.Open(b.Context(), mustFileURL(b, b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		ts := make([]*a2a.StoredTask, tasks)
		for i := range ts {
			ts[i] = storetest.Task(fmt.Sprintf("t%04d", i), time.Now(), 0)
			ts[i].Pending = nil
			if err := s.Save(b.Context(), ts[i]); err != nil {
				b.Fatal(err)
			}
			grow(ts[i], 1)
			if err := s.Save(b.Context(), ts[i]); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		cpu0 := cpuTime()
		t0 := time.Now()
		var g errgroup.Group
		g.SetLimit(max(workers, 1))
		for _, t := range ts[:min(workers, 1)*len(ts)] {
			g.Go(func() error { return s.Save(b.Context(), t) })
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		saves += t1.Sub(t0)
		closes += time.Since(t1)
		cpu += cpuTime() - cpu0
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms")
	b.ReportMetric(float64(saves.Milliseconds())/float64(b.N), "saves-ms")
	b.ReportMetric(float64(closes.Milliseconds())/float64(b.N), "close-ms")
}

// TestLoadedTaskSavesNothing: a task another process saved, loaded and
// saved again unchanged (the A2A server's save at shutdown of a task a
// client only read), writes no journal entry, so that Close has nothing
// to fold, even though its metadata holds a struct, which comes back
// from the file as a map whose JSON orders the keys differently.
func TestLoadedTaskSavesNothing(t *testing.T) {
	dir := t.TempDir()
	u := mustFileURL(t, dir)
	task := storetest.Task("t1", time.Now(), 1)
	task.Pending = nil
	task.Metadata = map[string]any{
		"__persistedState": map[string]any{"_agentSettings": task.Settings, "_taskState": task.State},
		"_contextId":       task.ContextID,
	}
	s1 := mustOpen(t, u)
	if err := s1.Save(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	grow(task, 1)
	if err := s1.Save(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := mustOpen(t, u)
	if _, err := s2.Load(t.Context(), "t1"); err != nil {
		t.Fatal(err)
	}
	if err := s2.Save(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	if n := journalEntries(t, filepath.Join(dir, "tasks", "t1", "journal")); n != 0 {
		t.Errorf("a save of the task as loaded wrote %d journal entries", n)
	}
}

// TestCloseAfterReload: a task folded in as the server evicts it (its
// segment emptied), loaded again for a client that only reads it and
// saved unchanged at shutdown, is left by Close without a journal.
func TestCloseAfterReload(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, mustFileURL(t, dir))
	task := storetest.Task("t1", time.Now(), 0)
	task.Pending = nil
	save := func() {
		t.Helper()
		if err := s.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	save()
	grow(task, 1)
	save()
	save() // unchanged: the eviction's save folds the journal in
	if _, err := s.Load(t.Context(), "t1"); err != nil {
		t.Fatal(err)
	}
	save() // unchanged: the shutdown's
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "tasks", "t1", "journal")); !os.IsNotExist(err) {
		t.Errorf("journal left after Close: %v (%v)", ents, err)
	}
}
