package chats

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProjectTempDirAllocates(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(t.TempDir(), "My Project")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // macOS temp dirs live behind a symlink
	}
	dir, err := ProjectTempDir(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "tmp", "my-project"); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	key, _ := json.Marshal(root)
	want := "{\n  \"projects\": {\n    " + string(key) + ": \"my-project\"\n  }\n}"
	reg := filepath.Join(home, "projects.json")
	if got := readFile(t, reg); got != want {
		t.Errorf("projects.json =\n%s\nwant\n%s", got, want)
	}
	for _, base := range []string{"tmp", "history"} {
		if got := readFile(t, filepath.Join(home, base, "my-project", ".project_root")); got != root {
			t.Errorf("%s marker = %q", base, got)
		}
	}
	again, err := ProjectTempDir(home, root+string(filepath.Separator))
	if err != nil || again != dir {
		t.Errorf("second lookup = %s, %v", again, err)
	}
	if got := readFile(t, reg); got != want {
		t.Error("lookup of a known project rewrote projects.json")
	}
	if _, err := os.Stat(reg + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Error("lock left behind")
	}
}

func TestProjectTempDirSlugs(t *testing.T) {
	tests := []struct {
		name  string
		roots []string // same home, in order
		want  []string
	}{
		{"clash gets a counter", []string{"/a/app", "/b/app", "/c/app"}, []string{"app", "app-1", "app-2"}},
		{"punctuation", []string{"/x/Hello, World!"}, []string{"hello-world"}},
		{"nothing left", []string{"/x/___"}, []string{"project"}},
		{"non-ascii", []string{"/x/Ünïcode"}, []string{"n-code"}},
		{"root dir", []string{"/"}, []string{"project"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			for i, root := range tt.roots {
				dir, err := ProjectTempDir(home, root)
				if err != nil {
					t.Fatal(err)
				}
				if got := filepath.Base(dir); got != tt.want[i] {
					t.Errorf("%s → %s, want %s", root, got, tt.want[i])
				}
			}
		})
	}
}

func TestProjectTempDirKeepsRegistry(t *testing.T) {
	home := t.TempDir()
	reg := filepath.Join(home, "projects.json")
	writeFile(t, reg, `{"projects":{"/z/zed":"zed","/a/app":"app"},"version":{"n":1,"tags":["x"]}}`)
	dir, err := ProjectTempDir(home, "/n/app")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != "app-1" {
		t.Errorf("slug %s, want app-1 (app is registered)", filepath.Base(dir))
	}
	want := `{
  "projects": {
    "/z/zed": "zed",
    "/a/app": "app",
    "/n/app": "app-1"
  },
  "version": {
    "n": 1,
    "tags": [
      "x"
    ]
  }
}`
	if got := readFile(t, reg); got != want {
		t.Errorf("projects.json =\n%s\nwant\n%s", got, want)
	}
}

func TestProjectTempDirCorruptRegistry(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"not json", "{not json"},
		{"bad slug", `{"projects":{"/p":"Bad Slug"}}`},
		{"no projects", `{"other":1}`},
		{"array", `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			reg := filepath.Join(home, "projects.json")
			writeFile(t, reg, tt.content)
			_, err := ProjectTempDir(home, "/w/new")
			var re *RegistryError
			if !errors.As(err, &re) || re.Path != reg {
				t.Fatalf("err = %v, want RegistryError for %s", err, reg)
			}
			// A project whose slug directory is marked is still found.
			writeFile(t, filepath.Join(home, "tmp", "known", ".project_root"), "/w/known")
			dir, err := ProjectTempDir(home, "/w/known")
			if err != nil || dir != filepath.Join(home, "tmp", "known") {
				t.Errorf("marked project: %s, %v", dir, err)
			}
			if got := readFile(t, reg); got != tt.content {
				t.Errorf("corrupt registry was rewritten to %q", got)
			}
		})
	}
}

func TestProjectTempDirStaleMapping(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "projects.json"), `{"projects":{"/p/app":"app"}}`)
	writeFile(t, filepath.Join(home, "tmp", "app", ".project_root"), "/q/app")
	dir, err := ProjectTempDir(home, "/p/app")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != "app-1" {
		t.Errorf("slug %s, want app-1: app belongs to /q/app", filepath.Base(dir))
	}
}

func TestProjectTempDirMigratesLegacyHashDir(t *testing.T) {
	home := t.TempDir()
	root := "/work/legacy-proj"
	sum := sha256.Sum256([]byte(root))
	old := filepath.Join(home, "tmp", hex.EncodeToString(sum[:]))
	writeFile(t, filepath.Join(old, "chats", "session-2025-01-01T00-00-abcdefgh.json"), `{"sessionId":"abcdefgh"}`)
	writeFile(t, filepath.Join(old, "shell_history"), "ls\n")
	dir, err := ProjectTempDir(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "chats", "session-2025-01-01T00-00-abcdefgh.json")); got != `{"sessionId":"abcdefgh"}` {
		t.Errorf("migrated session = %q", got)
	}
	if got := readFile(t, filepath.Join(dir, ".project_root")); got != root {
		t.Errorf("marker = %q", got)
	}
	if _, err := os.Stat(old); err != nil {
		t.Error("legacy dir was removed; Gemini CLI keeps it")
	}
	// Once the slug dir has content, the legacy dir is not copied again.
	writeFile(t, filepath.Join(old, "late.txt"), "x")
	if _, err := ProjectTempDir(home, root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("legacy dir copied twice")
	}
}

func TestProjectTempDirConcurrent(t *testing.T) {
	home := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	got := make([]string, 2*n)
	errs := make([]error, 2*n)
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two callers per project, all projects named "app".
			got[i], errs[i] = ProjectTempDir(home, fmt.Sprintf("/p%d/app", i%n))
		}()
	}
	wg.Wait()
	seen := map[string]string{}
	for i := range 2 * n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		root := fmt.Sprintf("/p%d/app", i%n)
		if other, ok := seen[got[i]]; ok && other != root {
			t.Errorf("%s given to both %s and %s", got[i], root, other)
		}
		seen[got[i]] = root
	}
	if len(seen) != n {
		t.Errorf("%d slugs for %d projects", len(seen), n)
	}
	var reg struct{ Projects map[string]string }
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(home, "projects.json"))), &reg); err != nil {
		t.Fatal(err)
	}
	if len(reg.Projects) != n {
		t.Errorf("registry holds %d projects, want %d", len(reg.Projects), n)
	}
}

func TestProjectTempDirBreaksStaleLock(t *testing.T) {
	home := t.TempDir()
	reg := filepath.Join(home, "projects.json")
	writeFile(t, reg, `{"projects":{}}`)
	lock := reg + ".lock"
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := ProjectTempDir(home, "/w/app"); err != nil {
		t.Fatal(err)
	}
}

func TestProjectTempDirResolvesSymlinks(t *testing.T) {
	home := t.TempDir()
	base := t.TempDir()
	real := filepath.Join(base, "real-proj")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	viaLink, err := ProjectTempDir(home, link)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := ProjectTempDir(home, real)
	if err != nil {
		t.Fatal(err)
	}
	if viaLink != direct || filepath.Base(direct) != "real-proj" || ProjectHash(link) != ProjectHash(real) {
		t.Errorf("symlinked root filed separately: %s vs %s", viaLink, direct)
	}
}

func TestOpenStore(t *testing.T) {
	home := t.TempDir()
	s, err := OpenStore(home, "/w/app")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "tmp", "app", "chats"); s.Dir() != want {
		t.Errorf("Dir = %s, want %s", s.Dir(), want)
	}
	sum := sha256.Sum256([]byte("/w/app"))
	if s.projectHash != hex.EncodeToString(sum[:]) || ProjectHash("/w/app/") != s.projectHash {
		t.Errorf("project hash = %s", s.projectHash)
	}
}

// TestProjectRegistryWrite: registering a project replaces projects.json
// atomically without undoing what the user did to it: a symlinked
// registry stays a symlink (its target is updated) and a file the user
// made private stays private.
func TestProjectRegistryWrite(t *testing.T) {
	tests := []struct {
		name    string
		symlink bool
		mode    os.FileMode
	}{
		{"plain", false, 0o644},
		{"private", false, 0o600},
		{"symlink", true, 0o640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			reg := filepath.Join(home, "projects.json")
			target := reg
			if tt.symlink {
				target = filepath.Join(t.TempDir(), "dotfiles-projects.json")
				if err := os.Symlink(target, reg); err != nil {
					t.Skipf("no symlinks: %v", err)
				}
			}
			if err := os.WriteFile(target, []byte(`{"projects":{}}`), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(target, tt.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			if _, err := ProjectTempDir(home, "/x/app"); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(reg)
			if err != nil {
				t.Fatal(err)
			}
			if tt.symlink != (fi.Mode()&os.ModeSymlink != 0) {
				t.Errorf("projects.json mode %v, symlink wanted: %v", fi.Mode(), tt.symlink)
			}
			if fi, err := os.Stat(target); err != nil {
				t.Error(err)
			} else if fi.Mode().Perm() != tt.mode {
				t.Errorf("registry file mode %v, want %v", fi.Mode().Perm(), tt.mode)
			}
			if got := readFile(t, target); !strings.Contains(got, `"/x/app": "app"`) {
				t.Errorf("registry =\n%s", got)
			}
			entries, _ := os.ReadDir(filepath.Dir(target))
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp") {
					t.Errorf("temporary file left: %s", e.Name())
				}
			}
		})
	}
}

// A known project is found without the registry's lock: another process
// holding it (a fresh lock, not a stale one) does not hold up the start.
func TestProjectTempDirKnownProjectSkipsLock(t *testing.T) {
	home := t.TempDir()
	root := "/w/known-app"
	dir, err := ProjectTempDir(home, root)
	if err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(home, "projects.json")
	if err := os.Mkdir(reg+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	// Dated ahead, so that it never goes stale while a waiter waits.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(reg+".lock", later, later); err != nil {
		t.Fatal(err)
	}
	r := &projectRegistry{path: reg, baseDirs: []string{filepath.Join(home, "tmp"), filepath.Join(home, "history")}}
	if slug, err := r.shortID(root); err != nil || filepath.Join(home, "tmp", slug) != dir {
		t.Fatalf("shortID under another's lock = %q, %v; want %s", slug, err, filepath.Base(dir))
	}
	// A project whose marker is gone still takes the lock to put it back.
	if err := os.Remove(filepath.Join(home, "history", filepath.Base(dir), projectRootFile)); err != nil {
		t.Fatal(err)
	}
	if slug, ok := r.known(normalizeProjectPath(root)); ok {
		t.Fatalf("known(%s) = %s with a marker missing", root, slug)
	}
}
