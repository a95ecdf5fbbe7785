package chats

import (
	"os"
	"path/filepath"
	"testing"
)

// countReads makes s count its reads of each file.
func countReads(s *Store) map[string]int {
	reads := map[string]int{}
	s.readFile = func(path string) ([]byte, error) {
		reads[filepath.Base(path)]++
		return os.ReadFile(path)
	}
	return reads
}

// TestResumeReadsFileOnce follows --resume: Resolve, Load, Continue. The
// listing reads every session file once, and nothing reads one again.
func TestResumeReadsFileOnce(t *testing.T) {
	for _, ref := range []string{Latest, sessionID, legacyID} {
		t.Run(ref, func(t *testing.T) {
			s := projectFixture(t)
			reads := countReads(s)
			in, err := s.Resolve(ref)
			if err != nil {
				t.Fatal(err)
			}
			conv, err := s.Load(in)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Continue(in)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for name, n := range reads {
				if n != 1 {
					t.Errorf("%s read %d times", name, n)
				}
			}
			if reads[in.FileName] != 1 {
				t.Errorf("resumed %s without reading it", in.FileName)
			}
			// The recorder's changes stay out of the conversation handed
			// to the caller.
			before := len(conv.Messages)
			if _, err := r.RecordUser("", textParts("more"), ""); err != nil {
				t.Fatal(err)
			}
			if len(conv.Messages) != before || len(r.Conversation().Messages) != before+1 {
				t.Errorf("messages: caller's %d (was %d), recorder's %d", len(conv.Messages), before, len(r.Conversation().Messages))
			}
		})
	}
}

// TestListHoldsNoConversations: List's results do not keep every parsed
// file alive.
func TestListHoldsNoConversations(t *testing.T) {
	infos, err := projectFixture(t).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.conv != nil {
			t.Errorf("%s: List kept its conversation", in.FileName)
		}
	}
}

// BenchmarkResume is --resume latest in a project of 20 sessions of 200
// messages each: list, pick, load, reopen for appending.
func BenchmarkResume(b *testing.B) {
	s := NewStore(filepath.Join(b.TempDir(), "chats"), "hash")
	for i := range 20 {
		r, err := s.Create(sessionIDForBench(i), CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for j := range 100 {
			if _, err := r.RecordUser("", textParts("question number "+sessionIDForBench(j)), ""); err != nil {
				b.Fatal(err)
			}
			if _, err := r.RecordModel(Message{Content: textParts("an answer of a few words to it")}); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
	b.ReportAllocs()
	for b.Loop() {
		in, err := s.Resolve(Latest)
		if err != nil {
			b.Fatal(err)
		}
		conv, err := s.Load(in)
		if err != nil {
			b.Fatal(err)
		}
		_ = conv.History()
		r, err := s.Continue(in)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

func sessionIDForBench(i int) string {
	return "bench-session-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
}
