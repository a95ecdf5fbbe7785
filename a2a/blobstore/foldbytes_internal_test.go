package blobstore

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/a2a"
)

// written is the bytes this process has written so far (wchar of
// /proc/self/io), or -1 where there is no such file.
func written() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

// humanPace runs turns of a task at a human's pace in a file:// store in
// dir: each turn saved as the server saves it, then folded in, as the
// compactor does once the task is left alone. It returns the bytes
// written by the turns named in at (saves and fold).
func humanPace(t testing.TB, s *Store, task *a2a.StoredTask, turns int, at ...int) map[int]int64 {
	ctx := context.Background()
	reply := strings.Repeat("A model reply runs to a paragraph or so. ", 25)
	out := map[int]int64{}
	for i := 1; i <= turns; i++ {
		before := written()
		if err := turn(ctx, s, task, i); err != nil {
			t.Fatal(err)
		}
		// A reply of a paragraph, as models give.
		task.History[len(task.History)-1].Parts = []a2a.Part{a2a.TextPart(reply)}
		if err := s.Save(ctx, task); err != nil {
			t.Fatal(err)
		}
		s.flush(ctx, taskPrefix(task.ID))
		for _, n := range at {
			if n == i {
				out[i] = written() - before
			}
		}
	}
	return out
}

// savedTask opens a file:// store in a new directory and saves a new
// task in it.
func savedTask(t *testing.T) (string, *Store, *a2a.StoredTask) {
	dir := t.TempDir()
	s := openFile(t, dir)
	task := newTask("t1")
	if err := s.Save(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	return dir, s, task
}

// TestFoldWritesWhatChanged: a task answered at a human pace, folded in
// after every turn, costs as many bytes at its 300th turn as at its
// 10th; its files hold exactly what a whole rewrite writes, and a new
// process loads it whole.
func TestFoldWritesWhatChanged(t *testing.T) {
	if written() < 0 {
		t.Skip("no /proc/self/io to count written bytes")
	}
	dir, s, task := savedTask(t)
	// /proc/self/io counts the whole process: a goroutine an earlier
	// test left writing adds to a turn, never takes away. The least of
	// five turns is the turn's own cost.
	early, late := []int{10, 11, 12, 13, 14}, []int{296, 297, 298, 299, 300}
	got := humanPace(t, s, task, 300, append(early, late...)...)
	least := func(turns []int) int64 {
		m := got[turns[0]]
		for _, n := range turns {
			m = min(m, got[n])
		}
		return m
	}
	at10, at300 := least(early), least(late)
	t.Logf("bytes written: turn 10 %d, turn 300 %d", at10, at300)
	if at300 > 2*at10 {
		t.Errorf("turn 300 wrote %d bytes, turn 10 %d: a fold rewrites the task", at300, at10)
	}
	for _, f := range []struct {
		name string
		list any
	}{{"history.json", task.History}, {"conversation.json", task.Conversation}} {
		b, err := os.ReadFile(filepath.Join(dir, "tasks", "t1", f.name))
		if err != nil {
			t.Fatal(err)
		}
		var raws []json.RawMessage
		enc, _ := json.Marshal(f.list)
		if err := json.Unmarshal(enc, &raws); err != nil {
			t.Fatal(err)
		}
		if whole, _ := indentList(raws); !bytes.Equal(b, whole) {
			t.Errorf("%s differs from a whole rewrite of it", f.name)
		}
	}
	loaded, err := openFile(t, dir).Load(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, loaded); d != "" {
		t.Errorf("a new process loads (-saved +loaded):\n%s", d)
	}
}

// TestFoldAppendCutShort: an append in place cut short (the process
// killed in the middle of it, before state.json records the new size)
// leaves a file whose start, as of the mark, a new process reads, and
// the journal still adds the rest.
func TestFoldAppendCutShort(t *testing.T) {
	dir, s, task := savedTask(t)
	humanPace(t, s, task, 3)
	// The next turn's fold stops once the appends are written, before
	// state.json moves its mark; then the appended bytes are torn.
	compactHook = func(step string) bool { return step != "staged" }
	t.Cleanup(func() { compactHook = nil })
	humanPace(t, s, task, 1)
	compactHook = nil
	path := filepath.Join(dir, "tasks", "t1", "history.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-40], 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, err := openFile(t, dir).Load(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, loaded); d != "" {
		t.Errorf("a new process loads (-saved +loaded):\n%s", d)
	}
}

// BenchmarkBytesPerTurn reports the bytes a turn writes (its saves and
// its fold) at the 10th and the 500th turn of a task answered at a human
// pace in a file:// store.
func BenchmarkBytesPerTurn(b *testing.B) {
	if written() < 0 {
		b.Skip("no /proc/self/io to count written bytes")
	}
	var at10, at500 int64
	for range b.N {
		s, err := Open(context.Background(), mustURL(b, b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		task := newTask("t1")
		if err := s.Save(context.Background(), task); err != nil {
			b.Fatal(err)
		}
		got := humanPace(b, s, task, 500, 10, 500)
		at10 += got[10]
		at500 += got[500]
		s.Close()
	}
	b.ReportMetric(float64(at10)/float64(b.N), "B/turn10")
	b.ReportMetric(float64(at500)/float64(b.N), "B/turn500")
}

func mustURL(b *testing.B, dir string) string {
	u, err := FileURL(dir)
	if err != nil {
		b.Fatal(err)
	}
	return u
}
