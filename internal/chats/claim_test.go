package chats

import (
	"errors"
	"os"
	"testing"

	"google.golang.org/genai"
)

// TestClaim: one holder per id at a time, within a process as across
// processes (flock excludes two opens alike); released ids can be taken
// again; deleting the session removes its claim file.
func TestClaim(t *testing.T) {
	s := testStore(t, "2026-08-22T12:00:00Z")
	first, err := s.Claim("job-1")
	if err != nil {
		t.Fatal(err)
	}
	if first == nil {
		t.Skip("no non-blocking file locks on this platform")
	}
	if _, err := s.Claim("job-1"); !errors.Is(err, ErrClaimed) {
		t.Errorf("second claim: %v, want ErrClaimed", err)
	}
	other, err := s.Claim("job-2")
	if err != nil {
		t.Errorf("another id: %v", err)
	}
	other.Release()
	first.Release()
	first.Release() // twice is harmless
	again, err := s.Claim("job-1")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again.Release()
	for _, bad := range []string{"", "../x", "a b", "."} {
		if _, err := s.Claim(bad); err == nil || errors.Is(err, ErrClaimed) {
			t.Errorf("Claim(%q) = %v, want an invalid-id error", bad, err)
		}
	}

	rec, err := s.Create("job-1", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.RecordUser("", []*genai.Part{{Text: "hello"}}, ""); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	if _, err := s.Delete("job-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.claimPath("job-1")); !os.IsNotExist(err) {
		t.Errorf("claim file after delete: %v", err)
	}
}
