package blobstore_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
)

// backend is a bucket kind every behaviour test runs over. Its open
// returns a function giving a new Store over the same objects each time it
// is called, as a restarted process or another replica would have.
type backend struct {
	name string
	open func(t *testing.T) (reopen func() *blobstore.Store)
}

var backends = []backend{
	{"memblob", func(t *testing.T) func() *blobstore.Store {
		// A memory bucket forgets on Close, so the stores share one
		// bucket, closed when the test ends.
		b := blobstore.NewMemBucket()
		t.Cleanup(func() { b.Close() })
		return func() *blobstore.Store { return blobstore.New(b) }
	}},
	{"fileblob", func(t *testing.T) func() *blobstore.Store {
		u := mustFileURL(t, t.TempDir())
		return func() *blobstore.Store { return mustOpen(t, u) }
	}},
}

func mustOpen(t *testing.T, u string) *blobstore.Store {
	t.Helper()
	s, err := blobstore.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openFixture opens a copy of the store directory fixture, which it
// returns too.
func openFixture(t *testing.T, fixture string) (*blobstore.Store, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	return mustOpen(t, mustFileURL(t, dir)), dir
}

func mustFileURL(t testing.TB, dir string) string {
	t.Helper()
	u, err := blobstore.FileURL(dir)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// sampleTask has something in every field, in the shapes a JSON round
// trip preserves (strings in maps, UTC times without monotonic readings).
// testdata/filestore holds sampleTask("shared", 3): change both together.
func sampleTask(id string, artifacts int) *a2a.StoredTask {
	ts := time.Date(2026, 11, 21, 13, 52, 7, 123456789, time.UTC)
	msg := func(role, id, text string) a2a.Message {
		return a2a.Message{Kind: "message", Role: role, MessageID: id, TaskID: "t", ContextID: "ctx-1", Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	agent := msg("agent", "m2", "Paris.")
	t := &a2a.StoredTask{
		ID: id, ContextID: "ctx-1", State: a2a.StateInputRequired, Timestamp: ts,
		Status:   a2a.TaskStatus{State: a2a.StateInputRequired, Message: &agent, Timestamp: ts.Format(time.RFC3339Nano)},
		Settings: a2a.AgentSettings{Kind: "agent-settings", WorkspacePath: "/ws", AutoExecute: true},
		Metadata: map[string]any{
			"__persistedState": map[string]any{"_taskState": "input-required"},
			"_contextId":       "ctx-1",
		},
		History: []a2a.Message{msg("user", "m1", "Capital of France?"), agent},
		Conversation: []*genai.Content{
			genai.NewContentFromText("Capital of France?", genai.RoleUser),
			genai.NewContentFromText("Paris.", genai.RoleModel),
		},
		PushConfigs: []a2a.PushNotificationConfig{{ID: "p1", URL: "https://hooks.example/x", Token: "secret"}},
	}
	for i := range artifacts {
		t.Artifacts = append(t.Artifacts, a2a.Artifact{ArtifactID: fmt.Sprintf("a%d", i), Parts: []a2a.Part{a2a.TextPart(fmt.Sprintf("out %d", i))}})
	}
	return t
}

func TestSaveLoad(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := t.Context()
			reopen := be.open(t)
			s := reopen()
			want := sampleTask("task-1", 3)
			if err := s.Save(ctx, want); err != nil {
				t.Fatal(err)
			}
			// Read back by the same store and by a fresh one.
			for i, r := range []*blobstore.Store{s, reopen()} {
				got, err := r.Load(ctx, "task-1")
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("store %d: loaded task differs (-saved +loaded):\n%s", i, d)
				}
			}
		})
	}
}

func TestSaveEmptyTask(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)()
			if err := s.Save(t.Context(), &a2a.StoredTask{ID: "bare", State: a2a.StateSubmitted}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(t.Context(), "bare")
			if err != nil {
				t.Fatal(err)
			}
			// Empty lists come back empty, not nil: they are written as [].
			if got.State != a2a.StateSubmitted || got.History == nil || got.Conversation == nil || len(got.Artifacts) != 0 {
				t.Errorf("loaded %+v", got)
			}
		})
	}
}

func TestArtifactsShrink(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := t.Context()
			s := be.open(t)()
			for _, n := range []int{12, 2, 0, 1} {
				want := sampleTask("art", n)
				if err := s.Save(ctx, want); err != nil {
					t.Fatal(err)
				}
				got, err := s.Load(ctx, "art")
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want.Artifacts, got.Artifacts); d != "" {
					t.Errorf("%d artifacts: (-saved +loaded):\n%s", n, d)
				}
			}
		})
	}
}

func TestLoadUnknown(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)()
			for _, id := range []string{"nope", "../x", "a/b", "", strings.Repeat("x", 200)} {
				if _, err := s.Load(t.Context(), id); !errors.Is(err, a2a.ErrNotFound) {
					t.Errorf("Load(%q) = %v, want ErrNotFound", id, err)
				}
			}
		})
	}
}

func TestRejectsBadIDs(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)()
			for _, id := range []string{"../x", "a/b", "", "a b", "x.json", strings.Repeat("x", 200)} {
				if err := s.Save(t.Context(), &a2a.StoredTask{ID: id}); err == nil {
					t.Errorf("saved %q", id)
				}
				if err := s.Delete(t.Context(), id); err == nil {
					t.Errorf("deleted %q", id)
				}
			}
			if ids, _ := s.List(t.Context()); len(ids) != 0 {
				t.Errorf("listed %v", ids)
			}
		})
	}
}

func TestListAndDelete(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := t.Context()
			s := be.open(t)()
			for _, id := range []string{"c", "a", "b_2", "B-1"} {
				if err := s.Save(ctx, sampleTask(id, 1)); err != nil {
					t.Fatal(err)
				}
			}
			list := func() []string {
				t.Helper()
				ids, err := s.List(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return ids
			}
			if d := cmp.Diff([]string{"B-1", "a", "b_2", "c"}, list()); d != "" {
				t.Errorf("List (-want +got):\n%s", d)
			}
			for _, tt := range []struct {
				del  string
				want []string
			}{
				{"a", []string{"B-1", "b_2", "c"}},
				{"a", []string{"B-1", "b_2", "c"}}, // again: not an error
				{"never-saved", []string{"B-1", "b_2", "c"}},
				{"c", []string{"B-1", "b_2"}},
			} {
				if err := s.Delete(ctx, tt.del); err != nil {
					t.Fatalf("Delete(%q): %v", tt.del, err)
				}
				if d := cmp.Diff(tt.want, list()); d != "" {
					t.Errorf("after deleting %q (-want +got):\n%s", tt.del, d)
				}
				if _, err := s.Load(ctx, tt.del); !errors.Is(err, a2a.ErrNotFound) {
					t.Errorf("Load(%q) after delete = %v", tt.del, err)
				}
			}
		})
	}
}

// TestListSkipsIncomplete: a task is listed once its state.json, written
// last, exists; objects of a save that died before it do not make a task.
func TestListSkipsIncomplete(t *testing.T) {
	ctx := t.Context()
	b := blobstore.NewMemBucket()
	defer b.Close()
	s := blobstore.New(b)
	if err := s.Save(ctx, sampleTask("done", 0)); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tasks/half/history.json", "tasks/stray.json", "tasks/bad id/state.json", "other/x/state.json"} {
		if err := b.WriteAll(ctx, k, []byte("[]\n"), false); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := s.List(ctx)
	if err != nil || len(ids) != 1 || ids[0] != "done" {
		t.Errorf("List = %v, %v", ids, err)
	}
	if _, err := s.Load(ctx, "half"); !errors.Is(err, a2a.ErrNotFound) {
		t.Errorf("Load(half) = %v", err)
	}
}

// TestConcurrentSavesDoNotInterleave saves many versions of one task at
// once, each version's objects all marked with its number; whichever save
// is last, every object must come from it.
func TestConcurrentSavesDoNotInterleave(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := t.Context()
			s := be.open(t)()
			var wg sync.WaitGroup
			for v := range 16 {
				wg.Go(func() {
					task := sampleTask("busy", v%4)
					mark := fmt.Sprint(v)
					task.ContextID = mark
					task.Metadata = map[string]any{"v": mark}
					task.History[0].MessageID = mark
					task.Conversation[0].Parts[0].Text = mark
					task.PushConfigs[0].ID = mark
					for i := range task.Artifacts {
						task.Artifacts[i].Name = mark
					}
					if err := s.Save(ctx, task); err != nil {
						t.Error(err)
					}
				})
			}
			// Loads running beside the saves must never see a mix either.
			check := func() {
				got, err := s.Load(ctx, "busy")
				if errors.Is(err, a2a.ErrNotFound) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mark := got.ContextID
				ok := got.Metadata["v"] == mark && got.History[0].MessageID == mark &&
					got.Conversation[0].Parts[0].Text == mark && got.PushConfigs[0].ID == mark
				var v int
				fmt.Sscan(mark, &v)
				ok = ok && len(got.Artifacts) == v%4
				for _, a := range got.Artifacts {
					ok = ok && a.Name == mark
				}
				if !ok {
					t.Errorf("task mixes saves: context %s, metadata %v, history %s, conversation %s, push %s, %d artifacts",
						mark, got.Metadata["v"], got.History[0].MessageID, got.Conversation[0].Parts[0].Text, got.PushConfigs[0].ID, len(got.Artifacts))
				}
			}
			for range 8 {
				wg.Go(check)
			}
			wg.Wait()
			check()
		})
	}
}

// TestFilePermissions: conversations and push tokens are private, so the
// file:// store makes 0700 directories and 0600 files, as FileStore did.
func TestFilePermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s := mustOpen(t, mustFileURL(t, dir))
	if err := s.Save(t.Context(), sampleTask("priv", 2)); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700 | fs.ModeDir
		}
		if info.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoStrayFiles: the directory holds the task layout and nothing
// else (no fileblob .attrs sidecars, no temporary files).
func TestNoStrayFiles(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, mustFileURL(t, dir))
	for _, n := range []int{2, 1} {
		if err := s.Save(t.Context(), sampleTask("t1", n)); err != nil {
			t.Fatal(err)
		}
	}
	got := listFiles(t, dir)
	want := []string{
		"tasks/t1/artifacts/0000.json", "tasks/t1/conversation.json", "tasks/t1/history.json",
		"tasks/t1/metadata.json", "tasks/t1/push.json", "tasks/t1/state.json",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
}

// listFiles returns the regular files under dir, slash-separated and
// relative to it, sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReadsFileStoreLayout: the store that a2a.FileStore was until it was
// removed wrote testdata/filestore (sampleTask("shared", 3)); a file://
// store opens such a directory, and writes the same task byte for byte
// the same, so directories of servers from before keep working.
func TestReadsFileStoreLayout(t *testing.T) {
	ctx := t.Context()
	want := sampleTask("shared", 3)
	fixture := filepath.Join("testdata", "filestore")

	t.Run("load", func(t *testing.T) {
		s, _ := openFixture(t, fixture)
		got, err := s.Load(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("(-FileStore saved +blobstore loaded):\n%s", d)
		}
		if ids, err := s.List(ctx); err != nil || len(ids) != 1 || ids[0] != want.ID {
			t.Errorf("List = %v, %v", ids, err)
		}
	})

	t.Run("same bytes", func(t *testing.T) {
		dir := t.TempDir()
		if err := mustOpen(t, mustFileURL(t, dir)).Save(ctx, want); err != nil {
			t.Fatal(err)
		}
		ffiles, bfiles := listFiles(t, fixture), listFiles(t, dir)
		if d := cmp.Diff(ffiles, bfiles); d != "" {
			t.Fatalf("files (-FileStore +blobstore):\n%s", d)
		}
		for _, f := range ffiles {
			fb, _ := os.ReadFile(filepath.Join(fixture, f))
			bb, _ := os.ReadFile(filepath.Join(dir, f))
			if d := cmp.Diff(string(fb), string(bb)); d != "" {
				t.Errorf("%s (-FileStore +blobstore):\n%s", f, d)
			}
		}
	})
}

// TestCanceledContext: a save under a canceled context fails rather than
// writing part of the task.
func TestCanceledContext(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)()
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if err := s.Save(ctx, sampleTask("late", 1)); err == nil {
				t.Error("save under a canceled context succeeded")
			}
			if ids, _ := s.List(t.Context()); len(ids) != 0 {
				t.Errorf("listed %v", ids)
			}
		})
	}
}

// BenchmarkSave compares a save on each kind of bucket. The task is a
// mid-sized one: 40 messages of history and conversation, 4 artifacts.
func BenchmarkSave(b *testing.B) {
	task := sampleTask("bench", 4)
	for range 19 {
		task.History = append(task.History, task.History[:2]...)
		task.Conversation = append(task.Conversation, task.Conversation[:2]...)
	}
	fileBlob := func(b *testing.B) a2a.TaskStore {
		u, err := blobstore.FileURL(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		s, err := blobstore.Open(b.Context(), u)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	memBlob := func(b *testing.B) a2a.TaskStore {
		s := blobstore.New(blobstore.NewMemBucket())
		b.Cleanup(func() { s.Close() })
		return s
	}
	for _, bb := range []struct {
		name string
		open func(*testing.B) a2a.TaskStore
	}{{"file", fileBlob}, {"mem", memBlob}} {
		b.Run(bb.name, func(b *testing.B) {
			s := bb.open(b)
			for b.Loop() {
				if err := s.Save(b.Context(), task); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFileStoreEscapedID: an id that reads as one of the bucket's escapes
// ("__0x41__" is a valid task id) keeps one directory: the journal's
// appends, the bucket's writes, the listing and the delete agree on it.
func TestFileStoreEscapedID(t *testing.T) {
	dir := t.TempDir()
	u := mustFileURL(t, dir)
	const id = "x__0x41__y"
	task := sampleTask(id, 1)
	s1 := mustOpen(t, u)
	for i := range 3 {
		task.History = append(task.History, a2a.Message{Kind: "message", Role: "user", MessageID: fmt.Sprint("more", i), Parts: []a2a.Part{a2a.TextPart("more")}})
		if err := s1.Save(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	taskDirs := func() []string {
		t.Helper()
		ents, err := os.ReadDir(filepath.Join(dir, "tasks"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	if got := taskDirs(); len(got) != 1 {
		t.Fatalf("task directories %q, want one", got)
	}
	// Another process (s1 never closed: its journal is read).
	s2 := mustOpen(t, u)
	ids, err := s2.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{id}, ids); d != "" {
		t.Errorf("List (-want +got):\n%s", d)
	}
	got, err := s2.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(task, got); d != "" {
		t.Errorf("Load (-saved +loaded):\n%s", d)
	}
	if err := s2.Delete(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if got := taskDirs(); len(got) != 0 {
		t.Errorf("task directories %q left after Delete", got)
	}
}
