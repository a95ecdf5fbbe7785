package swap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The crash test runs this test binary again as a child that replaces an
// extension and dies (os.Exit, no deferred clean-up) after one step.
const (
	crashEnv = "CASTOR_SWAP_TEST_CRASH_AT"
	dirEnv   = "CASTOR_SWAP_TEST_DIR"
)

func TestMain(m *testing.M) {
	if at := os.Getenv(crashEnv); at != "" {
		step = func(s string) {
			if s == at {
				os.Exit(3)
			}
		}
		_, err := Replace(os.Getenv(dirEnv), func(tmp string) error { return writeVersion(tmp, "2") })
		fmt.Fprintln(os.Stderr, "not killed:", err)
		os.Exit(4)
	}
	os.Exit(m.Run())
}

// writeVersion writes a copy of an extension of the given version: a
// manifest and a few files, so a partial copy is told from a whole one.
func writeVersion(dir, v string) error {
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d", i)), []byte(v), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "version"), []byte(v), 0o644)
}

// installed returns the version of the whole copy in dir, failing the
// test when dir is missing or mixes versions.
func installed(t *testing.T, dir string) string {
	t.Helper()
	v, err := os.ReadFile(filepath.Join(dir, "version"))
	if err != nil {
		t.Fatalf("no whole copy installed: %v", err)
	}
	for i := range 3 {
		f, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("file%d", i)))
		if err != nil || string(f) != string(v) {
			t.Fatalf("copy in %s is not whole: file%d %q, version %q", dir, i, f, v)
		}
	}
	return string(v)
}

func names(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != LockName {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestCrashAtEachStep kills an update after each of its steps and loads
// afterwards: exactly one whole copy is installed, no working folder is
// left, and one line says what recovery did.
func TestCrashAtEachStep(t *testing.T) {
	tests := []struct {
		step, want, note string
	}{
		{"built", "1", "removed its unfinished new copy"},
		{"whole", "2", "finished it (the new version is installed)"},
		{"moved-aside", "2", "finished it (the new version is installed)"},
		{"in-place", "2", "finished it (removed the previous copy)"},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "ext")
			os.Mkdir(dir, 0o755)
			if err := writeVersion(dir, "1"); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crashEnv+"="+tt.step, dirEnv+"="+dir)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				t.Fatalf("child did not die at %s: %v\n%s", tt.step, err, out)
			}
			notes := RecoverAll(root)
			if len(notes) != 1 || !strings.Contains(notes[0], `extension "ext": an update was interrupted; `+tt.note) {
				t.Errorf("notes %q, want one with %q", notes, tt.note)
			}
			if got := installed(t, dir); got != tt.want {
				t.Errorf("installed version %s, want %s", got, tt.want)
			}
			if got := names(t, root); !slices.Equal(got, []string{"ext"}) {
				t.Errorf("left in the extensions folder: %v", got)
			}
			if again := RecoverAll(root); again != nil {
				t.Errorf("second recovery: %q", again)
			}
		})
	}
}

// TestRecoverStates covers what earlier builds and odd crashes leave,
// including the only copy being the one moved aside.
func TestRecoverStates(t *testing.T) {
	tests := []struct {
		name  string
		have  map[string]string // folder → version ("" = partial)
		want  string
		error bool
	}{
		{"only the moved-aside copy", map[string]string{"ext.castor-old": "1"}, "1", false},
		{"legacy update between renames", map[string]string{"ext.castor-old": "1", "ext.castor-update": ""}, "1", false},
		{"legacy update beside the install", map[string]string{"ext": "1", "ext.castor-update": ""}, "1", false},
		{"whole new copy of an install", map[string]string{"ext.castor-new": "2"}, "2", false},
		{"everything", map[string]string{"ext": "1", "ext.castor-old": "0", "ext.castor-new": "2", "ext.castor-partial": "", "ext.castor-update": ""}, "2", false},
		{"only a legacy copy", map[string]string{"ext.castor-update": ""}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for d, v := range tt.have {
				p := filepath.Join(root, d)
				os.Mkdir(p, 0o755)
				if v == "" {
					os.WriteFile(filepath.Join(p, "file0"), []byte("x"), 0o644)
				} else if err := writeVersion(p, v); err != nil {
					t.Fatal(err)
				}
			}
			notes := RecoverAll(root)
			if len(notes) != 1 {
				t.Fatalf("notes %q", notes)
			}
			if tt.error {
				if !strings.Contains(notes[0], "could not be repaired") || !strings.Contains(notes[0], "reinstall") {
					t.Errorf("note %q", notes[0])
				}
				if got := names(t, root); !slices.Equal(got, []string{"ext.castor-update"}) {
					t.Errorf("the last copy was touched: %v", got)
				}
				return
			}
			if got := installed(t, filepath.Join(root, "ext")); got != tt.want {
				t.Errorf("installed %s, want %s (notes %q)", got, tt.want, notes)
			}
			if got := names(t, root); !slices.Equal(got, []string{"ext"}) {
				t.Errorf("left: %v", got)
			}
		})
	}
}

// TestReplaceFailures: a build that fails or a fresh install leave the
// folder as expected, and a leftover is finished before the next update.
func TestReplaceFailures(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ext")
	if _, err := Replace(dir, func(tmp string) error { return writeVersion(tmp, "1") }); err != nil {
		t.Fatal(err)
	}
	if got := installed(t, dir); got != "1" {
		t.Fatalf("install: %s", got)
	}
	if _, err := Replace(dir, func(tmp string) error { return fmt.Errorf("disk full") }); err == nil || err.Error() != "disk full" {
		t.Fatalf("err %v", err)
	}
	if got := installed(t, dir); got != "1" {
		t.Fatalf("after a failed build: %s", got)
	}
	os.Rename(dir, dir+oldSuffix)
	note, err := Replace(dir, func(tmp string) error { return writeVersion(tmp, "3") })
	if err != nil || !strings.Contains(note, "rolled it back") {
		t.Fatalf("note %q, err %v", note, err)
	}
	if got := installed(t, dir); got != "3" {
		t.Fatalf("after update: %s", got)
	}
	if got := names(t, root); !slices.Equal(got, []string{"ext"}) {
		t.Errorf("left: %v", got)
	}
}

// TestCreate: an install never replaces an extension, not even one that
// recovery brings back from where a crash left it.
func TestCreate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ext")
	os.Mkdir(dir+oldSuffix, 0o755)
	writeVersion(dir+oldSuffix, "1")
	note, err := Create(dir, func(tmp string) error { return writeVersion(tmp, "2") })
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(note, "rolled it back") {
		t.Fatalf("note %q, err %v", note, err)
	}
	if got := installed(t, dir); got != "1" {
		t.Errorf("installed %s", got)
	}
	os.RemoveAll(dir)
	if _, err := Create(dir, func(tmp string) error { return writeVersion(tmp, "2") }); err != nil {
		t.Fatal(err)
	}
	if got := installed(t, dir); got != "2" {
		t.Errorf("installed %s", got)
	}
}

// TestCreateOverLegacyCopy: when only an earlier build's possibly
// incomplete copy is left, the note says to reinstall, and the install
// does work, replacing that copy.
func TestCreateOverLegacyCopy(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ext")
	if err := os.Mkdir(dir+legacySuffix, 0o755); err != nil {
		t.Fatal(err)
	}
	if notes := RecoverAll(root); len(notes) != 1 || !strings.Contains(notes[0], "reinstall") {
		t.Fatalf("notes %q", notes)
	}
	note, err := Create(dir, func(tmp string) error { return writeVersion(tmp, "2") })
	if err != nil {
		t.Fatalf("install after the note said to reinstall: %v", err)
	}
	if !strings.Contains(note, "removed") {
		t.Errorf("note %q", note)
	}
	if got := installed(t, dir); got != "2" {
		t.Errorf("installed %s", got)
	}
	if got := names(t, root); !slices.Equal(got, []string{"ext"}) {
		t.Errorf("left: %v", got)
	}
}

func TestLeftover(t *testing.T) {
	for name, want := range map[string]bool{"ext": false, "ext.castor-old": true, "ext.castor-new": true, "ext.castor-partial": true, "ext.castor-update": true, "castor-old": false} {
		if got := Leftover(name); got != want {
			t.Errorf("Leftover(%q) = %t", name, got)
		}
	}
}
