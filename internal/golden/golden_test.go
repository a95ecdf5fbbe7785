package golden

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheckReadsAndUpdateWrites(t *testing.T) {
	old := dir
	dir = t.TempDir()
	defer func() { dir = old }()
	Write(t, "sub/a.txt", "alpha\n")
	if b, err := os.ReadFile(filepath.Join(dir, "testdata", "sub", "a.txt")); err != nil || string(b) != "alpha\n" {
		t.Fatalf("written %q, %v", b, err)
	}
	Check(t, "sub/a.txt", []byte("alpha\n"))
	ft := &testing.T{}
	*update = true
	Check(ft, "sub/a.txt", "beta\n")
	*update = false
	if got := string(Read(t, "sub/a.txt")); got != "beta\n" {
		t.Errorf("after -update: %q", got)
	}
}
