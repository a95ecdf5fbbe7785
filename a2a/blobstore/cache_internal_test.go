package blobstore

import (
	"context"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
)

// TestSaveAfterDeleteRewrites checks that the store's memory of what it
// wrote never skips an object that is gone: a task deleted and saved again
// with the same content is whole.
func TestSaveAfterDeleteRewrites(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task := &a2a.StoredTask{ID: "t1", ContextID: "c1", State: "input-required", Timestamp: time.Now()}
	for range 2 {
		if err := s.Save(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, task); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, "t1")
	if err != nil || got.ContextID != "c1" {
		t.Fatalf("load after delete and save: %+v, %v", got, err)
	}
	for _, name := range []string{"metadata.json", "history.json", "conversation.json", "push.json", "state.json"} {
		if _, err := s.b.ReadAll(ctx, taskPrefix("t1")+name); err != nil {
			t.Errorf("%s missing after delete and save", name)
		}
	}
}
