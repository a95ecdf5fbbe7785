package chats

import (
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/genai"
)

// TestIDsSharingAPrefix: session files are named after the first 8
// characters of the id, so ids people choose (ci-job-42, ci-job-43)
// started in one minute want the same file. The later session is named
// after its whole id instead of running unrecorded; both are listed,
// found and deleted by their own id. Whether the other file is on disk
// when Create looks (one after the other) or only at the first record
// (both at once) makes no difference.
func TestIDsSharingAPrefix(t *testing.T) {
	record := func(t *testing.T, r *Recorder, text string) {
		t.Helper()
		if _, err := r.RecordUser("", []*genai.Part{{Text: text}}, ""); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	for _, together := range []bool{false, true} {
		name := "one after the other"
		if together {
			name = "both at once"
		}
		t.Run(name, func(t *testing.T) {
			s := testStore(t, "2026-08-22T12:00:00Z")
			first, err := s.Create("ci-job-42", CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !together {
				record(t, first, "first")
			}
			second, err := s.Create("ci-job-43", CreateOptions{})
			if err != nil {
				t.Fatalf("second session: %v", err)
			}
			if together {
				record(t, first, "first")
			}
			record(t, second, "second")

			var names []string
			infos, _ := s.List()
			for _, in := range infos {
				names = append(names, in.ID+"="+filepath.Base(in.Path))
			}
			want := []string{
				"ci-job-42=session-2026-08-22T12-00-ci-job-4.jsonl",
				"ci-job-43=session-2026-08-22T12-00-ci-job-43.jsonl",
			}
			if !slices.Equal(names, want) {
				t.Errorf("listed %v, want %v", names, want)
			}
			if second.Path() != filepath.Join(s.Dir(), "session-2026-08-22T12-00-ci-job-43.jsonl") {
				t.Errorf("second.Path() = %s", second.Path())
			}
			for _, id := range []string{"ci-job-42", "ci-job-43"} {
				if ok, err := s.Exists(id); !ok || err != nil {
					t.Errorf("Exists(%s) = %v, %v", id, ok, err)
				}
			}
			if _, err := s.Delete("ci-job-43"); err != nil {
				t.Fatal(err)
			}
			if ok, _ := s.Exists("ci-job-42"); !ok {
				t.Error("deleting ci-job-43 took ci-job-42 with it")
			}
			if ok, _ := s.Exists("ci-job-43"); ok {
				t.Error("ci-job-43 is still there")
			}
		})
	}
	// The same short id twice in a minute is one name for one session:
	// still refused.
	s := testStore(t, "2026-08-22T12:00:00Z")
	r, _ := s.Create("short", CreateOptions{})
	record(t, r, "x")
	if _, err := s.Create("short", CreateOptions{}); err == nil {
		t.Error("a second session of the same short id was created")
	}
}
