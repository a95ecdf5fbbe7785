package blobstore_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdata/fileblob/sidecars is a store that gocloud's fileblob, the
// file:// bucket of castors before the package had its own, wrote with
// ?metadata= (sidecar files on): sampleTask("sidecars", 3), one save,
// every object with its <name>.attrs. The store opens such a directory as
// it opened it before, leaves the sidecars out of what it lists, takes
// them with their objects, and writes the same sidecars itself when asked.
func TestReadsFileblobDirectory(t *testing.T) {
	ctx := t.Context()
	fixture := filepath.Join("testdata", "fileblob", "sidecars")
	want := sampleTask("sidecars", 3)

	t.Run("load, shrink, delete", func(t *testing.T) {
		s, dir := openFixture(t, fixture)
		got, err := s.Load(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("(-fileblob saved +loaded):\n%s", d)
		}
		if ids, err := s.List(ctx); err != nil || !slices.Equal(ids, []string{want.ID}) {
			t.Errorf("List = %v, %v", ids, err)
		}
		// Two artifacts fewer: their objects go with their sidecars.
		if err := s.Save(ctx, sampleTask("sidecars", 1)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for _, f := range listFiles(t, dir) {
			if strings.HasPrefix(f, "tasks/sidecars/artifacts/") && !strings.HasPrefix(f, "tasks/sidecars/artifacts/0000.json") {
				t.Errorf("%s left after its artifact went", f)
			}
		}
		s = mustOpen(t, mustFileURL(t, dir))
		if got, err := s.Load(ctx, want.ID); err != nil || len(got.Artifacts) != 1 {
			t.Fatalf("reloaded: %v artifacts, %v", len(got.Artifacts), err)
		}
		// Deleted, the task leaves nothing: no sidecar keeps its
		// directory.
		if err := s.Delete(ctx, want.ID); err != nil {
			t.Fatal(err)
		}
		if f := listFiles(t, dir); len(f) != 0 {
			t.Errorf("files left after Delete: %v", f)
		}
		if _, err := os.Stat(filepath.Join(dir, "tasks", want.ID)); !os.IsNotExist(err) {
			t.Errorf("the task's directory is left: %v", err)
		}
	})

	t.Run("same sidecars", func(t *testing.T) {
		dir := t.TempDir()
		s := mustOpen(t, mustFileURL(t, dir)+"?metadata=")
		if err := s.Save(ctx, want); err != nil {
			t.Fatal(err)
		}
		ffiles, bfiles := listFiles(t, fixture), listFiles(t, dir)
		if d := cmp.Diff(ffiles, bfiles); d != "" {
			t.Fatalf("files (-fileblob +blobstore):\n%s", d)
		}
		for _, f := range ffiles {
			fb, _ := os.ReadFile(filepath.Join(fixture, f))
			bb, _ := os.ReadFile(filepath.Join(dir, f))
			if d := cmp.Diff(string(fb), string(bb)); d != "" {
				t.Errorf("%s (-fileblob +blobstore):\n%s", f, d)
			}
		}
	})
}
