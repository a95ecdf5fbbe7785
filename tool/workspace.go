package tool

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/castor-dev/castor/internal/fsutil"
)

// Workspace is the set of directories tools may touch. The first is the
// root: relative paths resolve against it.
type Workspace struct {
	mu   sync.RWMutex
	dirs []string
	real []string // dirs with symlinks resolved, for containment checks
}

// NewWorkspace returns a workspace of dirs (made absolute).
func NewWorkspace(dirs ...string) *Workspace {
	w := &Workspace{}
	for _, d := range dirs {
		w.Add(d)
	}
	return w
}

// Add adds dir to the workspace, unless it is already there.
func (w *Workspace) Add(dir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	abs = filepath.Clean(abs)
	real := abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range w.dirs {
		if d == abs {
			return
		}
	}
	w.dirs = append(w.dirs, abs)
	w.real = append(w.real, real)
}

// Dirs returns the workspace directories, root first.
func (w *Workspace) Dirs() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return append([]string(nil), w.dirs...)
}

// Root returns the first workspace directory.
func (w *Workspace) Root() string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if len(w.dirs) == 0 {
		return ""
	}
	return w.dirs[0]
}

// Resolve makes p absolute, relative to the root.
func (w *Workspace) Resolve(p string) string {
	if p == "" {
		return w.Root()
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root(), p)
	}
	return filepath.Clean(p)
}

// Contains reports whether the absolute path p lies inside a workspace
// directory. Symlinks are resolved as far as the path exists, so a link
// inside the workspace that points outside it is not contained.
func (w *Workspace) Contains(p string) bool {
	p = filepath.Clean(p)
	real := fsutil.ResolveExisting(p)
	w.mu.RLock()
	defer w.mu.RUnlock()
	for i, d := range w.dirs {
		if within(d, p) && within(w.real[i], real) {
			return true
		}
		if within(w.real[i], real) && within(w.real[i], p) {
			return true
		}
	}
	return false
}

// Rel returns p relative to the workspace directory that holds it, or p
// unchanged when no directory does.
func (w *Workspace) Rel(p string) string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, d := range w.dirs {
		if within(d, p) {
			if r, err := filepath.Rel(d, p); err == nil {
				return r
			}
		}
	}
	return p
}

func within(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// FileFilter decides which paths file tools skip (.gitignore, .geminiignore).
type FileFilter interface {
	// Ignored reports whether the absolute path is ignored.
	Ignored(path string, isDir bool) bool
}

// FilterOptions selects which ignore files a FileFilter honours.
type FilterOptions struct {
	RespectGitIgnore    bool
	RespectGeminiIgnore bool
}
