package builtin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/tool"
)

// globAlwaysSkippedDirs are pruned from every glob walk, as Gemini CLI's
// glob excludes "**/node_modules/**" and friends before any ignore file is
// consulted (those files are not counted as ignored either).
var globAlwaysSkippedDirs = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"node_modules": true, ".git": true, "bower_components": true, ".svn": true, ".hg": true,
	}
}}

// recentFileWindow is how recent a file must be to be listed first.
const recentFileWindow = 24 * time.Hour

// globTool is glob: files matching a doublestar pattern, recent ones first.
type globTool struct {
	env *Env
	// now is the clock used for the recency split; tests replace it.
	now func() time.Time
}

// NewGlob returns the glob tool.
func NewGlob(env *Env) tool.Tool { return &globTool{env: env, now: time.Now} }

// Name implements tool.Tool.
func (t *globTool) Name() string { return "glob" }

// DisplayName implements tool.Tool.
func (t *globTool) DisplayName() string { return "FindFiles" }

// Kind implements tool.Tool.
func (t *globTool) Kind() tool.Kind { return tool.KindSearch }

// Description implements tool.Tool.
func (t *globTool) Description() string {
	return "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, `**/*.md`), returning absolute paths sorted by modification time (newest first). Ideal for quickly locating files based on their name or path structure, especially in large codebases."
}

// Schema implements tool.Tool with the wire spec's parameters.
func (t *globTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"pattern": map[string]any{
				"type":        "string",
				"description": "The glob pattern to match against (e.g., '**/*.py', 'docs/*.md').",
			},
			"path": map[string]any{
				"type":        "string",
				"description": "Optional: The absolute path to the directory to search within. If omitted, searches the root directory.",
			},
			"case_sensitive": map[string]any{
				"type":        "boolean",
				"description": "Optional: Whether the search should be case-sensitive. Defaults to false.",
			},
			"respect_git_ignore": map[string]any{
				"type":        "boolean",
				"description": "Optional: Whether to respect .gitignore patterns when finding files. Only available in git repositories. Defaults to true.",
			},
		},
		"required": []any{"pattern"},
	}
}

// NormalizeArgs maps today's dir_path onto path.
func (t *globTool) NormalizeArgs(args map[string]any) map[string]any {
	return renameArgs(args, map[string]string{"dir_path": "path"})
}

// Build implements tool.Tool.
func (t *globTool) Build(args map[string]any) (tool.Call, error) {
	pattern, _ := argString(args, "pattern")
	c := &globCall{env: t.env, now: t.now, pattern: pattern,
		opts: tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true}}
	c.caseSensitive, _ = argBool(args, "case_sensitive")
	if b, ok := argBool(args, "respect_git_ignore"); ok {
		c.opts.RespectGitIgnore = b
	}
	if b, ok := argBool(args, "respect_gemini_ignore"); ok {
		c.opts.RespectGeminiIgnore = b
	}

	p, _ := argString(args, "path")
	abs, terr := t.env.resolvePath(p)
	if terr != nil {
		return nil, terr
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, tool.Errorf(tool.ErrInvalidParams, "Search path does not exist %s", abs)
	case err != nil:
		return nil, tool.Errorf(tool.ErrInvalidParams, "Error accessing search path: %s", nodeErrorMessage(err))
	case !fi.IsDir():
		return nil, tool.Errorf(tool.ErrInvalidParams, "Search path is not a directory: %s", abs)
	}
	if strings.TrimSpace(pattern) == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, "The 'pattern' parameter cannot be empty.")
	}
	if !doublestar.ValidatePattern(filepath.ToSlash(pattern)) {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Invalid glob pattern: %s", pattern)
	}
	if p != "" {
		c.dirs = []string{abs}
	} else if t.env.Workspace != nil {
		c.dirs = t.env.Workspace.Dirs()
	} else {
		c.dirs = []string{abs}
	}
	return c, nil
}

type globCall struct {
	env           *Env
	now           func() time.Time
	pattern       string
	dirs          []string
	caseSensitive bool
	opts          tool.FilterOptions
}

// Describe implements tool.Call.
func (c *globCall) Describe() string {
	d := "'" + c.pattern + "'"
	if len(c.dirs) == 1 && c.dirs[0] != c.env.workspaceRoot() {
		d += " within " + c.env.relPath(c.dirs[0])
	}
	return d
}

// Confirmation implements tool.Call; searching needs no approval.
func (c *globCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

type globMatch struct {
	path  string
	mtime time.Time
}

// Execute implements tool.Call.
func (c *globCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	// The directories are checked again: a symlink may have been
	// retargeted since the call was built.
	for _, d := range c.dirs {
		if _, terr := c.env.resolvePath(d); terr != nil {
			return &tool.Result{LLMText: terr.Message, Display: "Error: Path not in workspace.", Error: terr}
		}
	}
	filter := c.env.fileFilter(c.opts)
	var matches []globMatch
	ignored := 0
	for _, dir := range c.dirs {
		found, skipped, err := c.walk(ctx, dir, filter)
		ignored += skipped
		if err != nil {
			if ctx.Err() != nil {
				return tool.Fail(tool.ErrCancelled, "Operation cancelled.")
			}
			msg := "Error during glob search operation: " + err.Error()
			return &tool.Result{LLMText: msg, Display: "Error: An unexpected error occurred.",
				Error: &tool.Error{Type: tool.ErrGlobExecutionError, Message: msg}}
		}
		matches = append(matches, found...)
	}

	where := ""
	if len(c.dirs) == 1 {
		where = " within " + c.dirs[0]
	}
	if len(matches) == 0 {
		msg := `No files found matching pattern "` + c.pattern + `"`
		if len(c.dirs) == 1 {
			msg += where
		} else {
			msg += fmt.Sprintf(" within %d workspace directories", len(c.dirs))
		}
		if ignored > 0 {
			msg += fmt.Sprintf(" (%d files were ignored)", ignored)
		}
		return &tool.Result{LLMText: msg, Display: "No files found"}
	}

	sortGlobMatches(matches, c.now())
	paths := make([]string, len(matches))
	for i, m := range matches {
		paths[i] = m.path
	}
	msg := fmt.Sprintf("Found %d file(s) matching \"%s\"", len(matches), c.pattern)
	if len(c.dirs) == 1 {
		msg += where
	} else {
		msg += fmt.Sprintf(" across %d workspace directories", len(c.dirs))
	}
	if ignored > 0 {
		msg += fmt.Sprintf(" (%d additional files were ignored)", ignored)
	}
	msg += ", sorted by modification time (newest first):\n" + strings.Join(paths, "\n")
	return &tool.Result{LLMText: msg, Display: fmt.Sprintf("Found %d matching file(s)", len(matches))}
}

// sortGlobMatches puts files modified within the last 24 hours first,
// newest first, then the rest in collation order of their paths (Gemini
// CLI's sortFileEntries). Ties keep path order, so output is deterministic.
func sortGlobMatches(ms []globMatch, now time.Time) {
	type keyed struct {
		m      globMatch
		keys   string
		recent bool
	}
	// The paths usually share a long prefix (the directory searched),
	// which cannot decide their order: keys are made of the rest only,
	// from just after a separator so that no character is split from
	// what follows it.
	prefix := 0
	if len(ms) > 0 {
		first := ms[0].path
		prefix = len(first)
		for _, m := range ms[1:] {
			n := 0
			for n < prefix && n < len(m.path) && m.path[n] == first[n] {
				n++
			}
			prefix = n
		}
		prefix = strings.LastIndexByte(first[:prefix], filepath.Separator) + 1
	}
	col := textutil.NewCollator()
	ks := make([]keyed, len(ms))
	for i, m := range ms {
		ks[i] = keyed{m, col.Key(m.path[prefix:]), now.Sub(m.mtime) < recentFileWindow}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.recent != b.recent:
			if a.recent {
				return -1
			}
			return 1
		case a.recent && !a.m.mtime.Equal(b.m.mtime):
			return b.m.mtime.Compare(a.m.mtime)
		}
		if c := strings.Compare(a.keys, b.keys); c != 0 {
			return c
		}
		return strings.Compare(a.m.path, b.m.path)
	})
	for i := range ks {
		ms[i] = ks[i].m
	}
}

// globWalkers is how many directories glob reads at once; the walk is
// bound by system calls, which run in parallel.
var globWalkers = lazy.Value[int]{New: func() int { return max(4, 2*runtime.GOMAXPROCS(0)) }}

// walk returns the files under dir matching the pattern that filter does
// not ignore, and how many it ignored. Directories the pattern cannot
// reach (too deep for a pattern without "**") are not entered; symlinked
// directories are not followed. Directories are read in parallel, in no
// particular order: the caller sorts.
func (c *globCall) walk(ctx context.Context, dir string, filter tool.FileFilter) ([]globMatch, int, error) {
	pattern := filepath.ToSlash(c.pattern)
	pattern = strings.TrimPrefix(pattern, "./")
	if filepath.IsAbs(c.pattern) {
		rel, err := filepath.Rel(dir, c.pattern)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, 0, nil
		}
		pattern = filepath.ToSlash(rel)
	}
	// A pattern naming an existing file is taken literally, so that names
	// with glob metacharacters ("app[1].js") can be found, as Gemini CLI
	// escapes such patterns.
	literal := false
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(pattern))); err == nil {
		literal = true
	}
	if !c.caseSensitive {
		pattern = strings.ToLower(pattern)
	}
	maxDepth := -1
	if !strings.Contains(pattern, "**") {
		maxDepth = strings.Count(pattern, "/") + 1
	}
	matches := func(rel string) bool {
		if !c.caseSensitive {
			rel = strings.ToLower(rel)
		}
		if literal {
			return rel == pattern
		}
		return doublestar.MatchUnvalidated(pattern, rel)
	}

	var (
		mu      sync.Mutex
		out     []globMatch
		ignored int
		wg      sync.WaitGroup
	)
	sem := make(chan struct{}, globWalkers.Get())
	// visit reads one directory (rel is its slash path below dir, "" for
	// dir itself) and starts the walk of its subdirectories.
	var visit func(abs, rel string)
	visit = func(abs, rel string) {
		defer wg.Done()
		if ctx.Err() != nil {
			return
		}
		sem <- struct{}{}
		var found []globMatch
		var subdirs []string
		skipped := 0
		// Unreadable directories are skipped, as glob does.
		if f, err := os.Open(abs); err == nil {
			entries, _ := f.ReadDir(-1)
			f.Close()
			for _, d := range entries {
				name := d.Name()
				r := name
				if rel != "" {
					r = rel + "/" + name
				}
				if d.IsDir() {
					if !globAlwaysSkippedDirs.Get()[name] && (maxDepth < 0 || strings.Count(r, "/")+1 < maxDepth) {
						subdirs = append(subdirs, r)
					}
					continue
				}
				if !matches(r) {
					continue
				}
				p := abs + string(filepath.Separator) + name
				if d.Type()&fs.ModeSymlink != 0 {
					if st, err := os.Stat(p); err != nil || st.IsDir() {
						continue
					}
				}
				info, err := d.Info()
				if err != nil {
					continue
				}
				if isIgnored(filter, p, false) {
					skipped++
					continue
				}
				found = append(found, globMatch{path: p, mtime: info.ModTime()})
			}
		}
		<-sem
		if len(found) > 0 || skipped > 0 {
			mu.Lock()
			out = append(out, found...)
			ignored += skipped
			mu.Unlock()
		}
		for _, r := range subdirs {
			wg.Add(1)
			go visit(filepath.Join(dir, filepath.FromSlash(r)), r)
		}
	}
	wg.Add(1)
	visit(dir, "")
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	return out, ignored, nil
}
