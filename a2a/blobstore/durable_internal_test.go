package blobstore

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/a2a"
)

// TestSyncBarrierShares: barriers asked for while a sync runs share the
// next one, which covers every path they asked for; a failed sync fails
// every barrier it covered.
func TestSyncBarrierShares(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			var b syncBarrier
			release := make(chan struct{})
			var batches [][]string
			syncErr := errors.New("disk on fire")
			fn := func(paths []string) error {
				if len(batches) == 0 {
					<-release // the first sync runs while the others queue
				}
				batches = append(batches, slices.Sorted(slices.Values(paths)))
				if fail && len(batches) == 2 {
					return syncErr
				}
				return nil
			}
			const n = 8
			errs := make([]error, n)
			var wg sync.WaitGroup
			wg.Go(func() { errs[0] = b.wait([]string{"p0"}, fn) })
			for !b.isRunning() {
				runtime.Gosched()
			}
			for i := 1; i < n; i++ {
				wg.Go(func() { errs[i] = b.wait([]string{fmt.Sprint("p", i)}, fn) })
			}
			for b.queuedLen() < n-1 {
				runtime.Gosched()
			}
			close(release)
			wg.Wait()
			want := [][]string{{"p0"}, {"p1", "p2", "p3", "p4", "p5", "p6", "p7"}}
			if d := cmp.Diff(want, batches); d != "" {
				t.Errorf("syncs (-want +got):\n%s", d)
			}
			for i, err := range errs {
				if wantErr := fail && i > 0; (err != nil) != wantErr || (err != nil && !errors.Is(err, syncErr)) {
					t.Errorf("barrier %d = %v, want error %v", i, err, wantErr)
				}
			}
		})
	}
}

func (b *syncBarrier) isRunning() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running
}

func (b *syncBarrier) queuedLen() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queued)
}

// TestCloseCrash: a process killed at any step of the compactions Close
// runs side by side (files staged under temporary names, renamed,
// state.json renamed) leaves every task for the next process to load
// whole and go on saving, whether the barriers fsync path by path or
// (on Linux) syncfs.
func TestCloseCrash(t *testing.T) {
	for _, mode := range []string{"fsync", "syncfs"} {
		for _, step := range []string{"staged", "written", "marked", "none"} {
			t.Run(mode+"/"+step, func(t *testing.T) {
				closeCrash(t, step, mode == "syncfs")
			})
		}
	}
}

func closeCrash(t *testing.T, step string, syncfs bool) {
	dir := t.TempDir()
	ctx := t.Context()
	open := func() *Store {
		s := openFile(t, dir)
		if syncfs {
			s.durable.syncFSMin = 1
		}
		return s
	}
	s := open()
	const n = 40 // 40 tasks sync 200 files and 80 directories
	tasks := make([]*a2a.StoredTask, n)
	for i := range tasks {
		tasks[i] = newTask(fmt.Sprintf("t%02d", i))
		if err := s.Save(ctx, tasks[i]); err != nil {
			t.Fatal(err)
		}
		for k := range 4 {
			if err := turn(ctx, s, tasks[i], k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if step != "none" {
		compactHook = func(at string) bool { return at != step }
		t.Cleanup(func() { compactHook = nil })
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	compactHook = nil
	// The process died in Close: a new one takes over.
	s2 := open()
	for _, task := range tasks {
		got, err := s2.Load(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(task, got); d != "" {
			t.Fatalf("%s after a crash (-saved +loaded):\n%s", task.ID, d)
		}
		if err := turn(ctx, s2, task, 4); err != nil {
			t.Fatal(err)
		}
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	s3 := open()
	defer s3.Close()
	for _, task := range tasks {
		got, err := s3.Load(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(task, got); d != "" {
			t.Fatalf("%s after Close (-saved +loaded):\n%s", task.ID, d)
		}
	}
}
