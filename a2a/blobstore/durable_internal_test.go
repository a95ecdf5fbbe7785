package blobstore

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/a2a"
)

// TestCloseCrash: a process killed at any step of the compactions Close
// runs side by side (files staged under temporary names, renamed,
// state.json renamed) leaves every task for the next process to load
// whole and go on saving.
func TestCloseCrash(t *testing.T) {
	for _, step := range []string{"staged", "written", "marked", "none"} {
		t.Run(step, func(t *testing.T) { closeCrash(t, step) })
	}
}

func closeCrash(t *testing.T, step string) {
	dir := t.TempDir()
	ctx := t.Context()
	s := openFile(t, dir)
	const n = 40
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
	left := tempFiles(t, dir)
	if step == "staged" && len(left) == 0 {
		t.Fatal("the crash left no temporary files: the test no longer tests the sweep")
	}
	// The process died in Close: a new one takes over, and sweeps the
	// temporary files the crash left.
	s2 := openFile(t, dir)
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left after Open: %v", left)
	}
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
	s3 := openFile(t, dir)
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
