package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/castor-dev/castor/tool"
)

// MemoryScope says where a context file was found.
type MemoryScope string

// The kinds of context file.
const (
	// MemoryGlobal is ~/.gemini/GEMINI.md; it goes in the system
	// instruction.
	MemoryGlobal MemoryScope = "global"
	// MemoryExtension is a context file of an active extension.
	MemoryExtension MemoryScope = "extension"
	// MemoryProject is a file found around a workspace directory; it goes
	// in the first user message.
	MemoryProject MemoryScope = "project"
	// MemorySubdirectory is a file loaded later by ForPath because a tool
	// touched a path below it.
	MemorySubdirectory MemoryScope = "subdirectory"
)

// MemoryOptions are the inputs of LoadMemory.
type MemoryOptions struct {
	// Workspace lists the workspace directories (the current directory
	// first, then included directories that should contribute memory).
	Workspace []string
	// Home is the user's home directory (Home.UserDir); "" means
	// ResolveHome with the process environment.
	Home string
	// FileNames are the context file names (context.fileName); empty means
	// GEMINI.md.
	FileNames []string
	// Filter decides which subdirectories and files the downward scan
	// skips; nil skips nothing but .git and node_modules.
	Filter tool.FileFilter
	// Trusted is the workspace trust: without it only global and extension
	// memory is loaded.
	Trusted bool
	// MaxDirs bounds the downward scan below each workspace directory
	// (context.discoveryMaxDirs): 0 means 200, a negative value turns the
	// scan off, which is what Gemini CLI does since May 2026 (it loads
	// subdirectory files only when a tool touches them; see ForPath).
	MaxDirs int
	// BoundaryMarkers are the names that mark a project root
	// (context.memoryBoundaryMarkers): nil means [".git"], an empty list
	// disables the upward walk beyond each workspace directory.
	BoundaryMarkers []string
	// ImportFormat is context.importFormat: "tree" (default) or "flat".
	ImportFormat string
	// ExtensionFiles are the context files of active extensions.
	ExtensionFiles []string
}

// MemoryFile is one loaded context file.
type MemoryFile struct {
	Path  string
	Scope MemoryScope
}

// Memory is the loaded GEMINI.md context, split the way Gemini CLI uses it.
type Memory struct {
	// Global is the concatenated global memory (system instruction).
	Global string
	// Extension is the concatenated extension memory.
	Extension string
	// Project is the concatenated project memory (first user message).
	Project string
	// Warnings list files that were skipped and imports that failed, with
	// the reason.
	Warnings []string

	opts  MemoryOptions
	jitMu sync.Mutex // serialises ForPath, so a file is never loaded twice
	mu    sync.Mutex // guards files and infos
	files []MemoryFile
	infos []os.FileInfo // identities of the loaded files, for dedup
}

// Files returns every loaded file, global first, then extension, project
// and subdirectory files in load order (what /memory list shows).
func (m *Memory) Files() []MemoryFile {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.files)
}

// Paths returns the paths of Files.
func (m *Memory) Paths() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.files))
	for i, f := range m.files {
		out[i] = f.Path
	}
	return out
}

// Count returns the number of loaded files.
func (m *Memory) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.files)
}

// LoadMemory finds, reads and formats the context files.
//
// Global memory is <home>/.gemini/<name> for each file name. Project memory
// (trusted workspaces only) is, for each workspace directory, every context
// file from that directory up to its project root (the nearest directory
// with a boundary marker, by default the git root, looked for no higher
// than the home directory; the directory itself when there is none), plus those found by a breadth-first scan of at most
// MaxDirs directories below it. Project files are ordered by path, as in
// Gemini CLI, which puts a parent directory's file before its
// subdirectories' in the usual case.
//
// A file reachable under two paths (symlinks, case-insensitive file
// systems) is loaded once, the first time. Each file's @imports are
// expanded (see the tree and flat formats of Gemini CLI's import
// processor), then the file is added as
//
//	--- Context from: <absolute path> ---
//	<content, trimmed>
//	--- End of Context from: <absolute path> ---
//
// with blocks separated by a blank line; empty files count as loaded but
// add no block. Unreadable files and failed imports are reported in
// Warnings, never as an error; the error result is reserved for options
// that cannot work.
func LoadMemory(opts MemoryOptions) (*Memory, error) {
	opts, err := normalizeMemoryOptions(opts)
	if err != nil {
		return nil, err
	}
	m := &Memory{opts: opts}
	homeGemini := filepath.Join(opts.Home, GeminiDirName)

	var global []string
	for _, name := range opts.FileNames {
		p := filepath.Join(homeGemini, name)
		if _, err := os.Stat(p); err == nil {
			global = append(global, p)
		}
	}
	ext := uniqueStrings(opts.ExtensionFiles)
	sort.Strings(ext)

	var project []string
	if opts.Trusted {
		for _, dir := range opts.Workspace {
			ceiling := findMarkerRootBelow(dir, opts.BoundaryMarkers, opts.Home)
			if ceiling == "" {
				ceiling = dir
			}
			project = append(project, findUpward(dir, ceiling, opts.FileNames, homeGemini)...)
			// Scanning the whole home directory would be slow and pick up
			// unrelated projects; Gemini CLI skipped it too.
			if opts.MaxDirs > 0 && !sameDir(dir, opts.Home) {
				project = append(project, scanDown(dir, opts.FileNames, opts.MaxDirs, opts.Filter, &m.Warnings)...)
			}
		}
		// Gemini CLI drops second names of a file in discovery order and
		// only then sorts, so which name survives does not depend on it.
		project = uniqueFiles(uniqueStrings(project))
		sort.Strings(project)
	}

	im := &importer{markers: opts.BoundaryMarkers}
	blocks := map[MemoryScope][]string{}
	seen := map[string]bool{}
	for _, group := range []struct {
		scope MemoryScope
		paths []string
	}{{MemoryGlobal, global}, {MemoryExtension, ext}, {MemoryProject, project}} {
		for _, p := range group.paths {
			if seen[p] {
				continue
			}
			seen[p] = true
			if block, ok := m.load(p, group.scope, im, opts.ImportFormat); ok && block != "" {
				blocks[group.scope] = append(blocks[group.scope], block)
			}
		}
	}
	m.Warnings = append(m.Warnings, im.warnings...)
	m.Global = strings.Join(blocks[MemoryGlobal], "\n\n")
	m.Extension = strings.Join(blocks[MemoryExtension], "\n\n")
	m.Project = strings.Join(blocks[MemoryProject], "\n\n")
	return m, nil
}

// normalizeMemoryOptions fills in defaults and makes paths absolute.
func normalizeMemoryOptions(opts MemoryOptions) (MemoryOptions, error) {
	if opts.Home == "" {
		opts.Home = ResolveHome(nil).UserDir
	}
	if abs, err := filepath.Abs(opts.Home); err == nil {
		opts.Home = abs
	}
	var names []string
	for _, n := range opts.FileNames {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		names = []string{DefaultContextFileName}
	}
	opts.FileNames = names
	var dirs []string
	for _, d := range opts.Workspace {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if d = filepath.Clean(d); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	opts.Workspace = dirs
	if opts.MaxDirs == 0 {
		opts.MaxDirs = 200
	}
	if opts.BoundaryMarkers == nil {
		opts.BoundaryMarkers = []string{".git"}
	}
	if opts.ImportFormat == "" {
		opts.ImportFormat = "tree"
	}
	if opts.ImportFormat != "tree" && opts.ImportFormat != "flat" {
		return opts, fmt.Errorf("config: unknown memory import format %q (want tree or flat)", opts.ImportFormat)
	}
	ext := make([]string, len(opts.ExtensionFiles))
	for i, p := range opts.ExtensionFiles {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		ext[i] = p
	}
	opts.ExtensionFiles = ext
	return opts, nil
}

// load reads one context file unless the same file is already loaded, and
// returns its formatted block. ok is false when the file was skipped.
func (m *Memory) load(p string, scope MemoryScope, im *importer, format string) (block string, ok bool) {
	fi, err := os.Stat(p)
	if err != nil {
		im.warnings = append(im.warnings, fmt.Sprintf("skipped %s: %v", p, err))
		return "", false
	}
	if fi.IsDir() {
		// A directory named like a context file is a legitimate layout.
		return "", false
	}
	m.mu.Lock()
	for _, other := range m.infos {
		if os.SameFile(fi, other) {
			m.mu.Unlock()
			return "", false
		}
	}
	m.mu.Unlock()
	data, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, syscall.EISDIR) {
			im.warnings = append(im.warnings, fmt.Sprintf("skipped %s: %v", p, err))
		}
		return "", false
	}
	content := im.expand(decodeUTF8(data), filepath.Dir(p), format)
	m.mu.Lock()
	m.files = append(m.files, MemoryFile{Path: p, Scope: scope})
	m.infos = append(m.infos, fi)
	m.mu.Unlock()
	return contextBlock(p, content), true
}

// contextBlock wraps one file's content for the model; "" for an empty
// file.
func contextBlock(path, content string) string {
	content = jsTrim(content)
	if content == "" {
		return ""
	}
	shown := filepath.ToSlash(path)
	return "--- Context from: " + shown + " ---\n" + content + "\n--- End of Context from: " + shown + " ---"
}

// ForPath loads the context files between a path a tool touched and its
// project root that are not loaded yet, and returns them formatted like
// Project (or "" when there are none), with warnings about files it had to
// skip. It is safe to call from several goroutines. It is Gemini CLI's just-in-time
// subdirectory memory: the walk starts at the path's directory and stops
// at the project root of the deepest workspace directory containing it
// (the workspace directory itself when it has no marker). Paths outside
// the workspace, and untrusted workspaces, give "".
func (m *Memory) ForPath(target string) (string, []string) {
	opts := m.opts
	if !opts.Trusted {
		return "", nil
	}
	if abs, err := filepath.Abs(target); err == nil {
		target = abs
	}
	best := ""
	for _, dir := range opts.Workspace {
		if isSubpath(normalizePath(dir), normalizePath(target)) && len(dir) > len(best) {
			best = dir
		}
	}
	if best == "" {
		return "", nil
	}
	ceiling := findMarkerRootBelow(best, opts.BoundaryMarkers, opts.Home)
	if ceiling == "" {
		ceiling = best
	}
	start := target
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		start = filepath.Dir(target)
	}
	m.jitMu.Lock()
	defer m.jitMu.Unlock()
	im := &importer{markers: opts.BoundaryMarkers}
	var blocks []string
	for _, p := range findUpward(start, ceiling, opts.FileNames, filepath.Join(opts.Home, GeminiDirName)) {
		if block, ok := m.load(p, MemorySubdirectory, im, "tree"); ok && block != "" {
			blocks = append(blocks, block)
		}
	}
	return strings.Join(blocks, "\n\n"), im.warnings
}

// findUpward collects context files from start up to stop (inclusive),
// outermost directory first and, within a directory, in file-name order.
// The walk never looks inside ~/.gemini, whose GEMINI.md is global memory.
func findUpward(start, stop string, names []string, homeGemini string) []string {
	var groups [][]string
	stopKey, globalKey := normalizePath(stop), normalizePath(homeGemini)
	for dir := start; ; {
		key := normalizePath(dir)
		if key == globalKey {
			break
		}
		var found []string
		for _, n := range names {
			p := filepath.Join(dir, n)
			if _, err := os.Stat(p); err == nil {
				found = append(found, p)
			}
		}
		groups = append(groups, found)
		parent := filepath.Dir(dir)
		if key == stopKey || parent == dir {
			break
		}
		dir = parent
	}
	var out []string
	for i := len(groups) - 1; i >= 0; i-- {
		out = append(out, groups[i]...)
	}
	return out
}

// scanDown searches below root, breadth first and at most maxDirs
// directories deep in total, for files with one of the names. Directories
// are entered in name order so that the limit cuts the same way on every
// run. .git and node_modules are never entered.
func scanDown(root string, names []string, maxDirs int, filter tool.FileFilter, warnings *[]string) []string {
	var found []string
	queue := []string{root}
	visited := map[string]bool{}
	scanned := 0
	for len(queue) > 0 && scanned < maxDirs {
		dir := queue[0]
		queue = queue[1:]
		if visited[dir] {
			continue
		}
		visited[dir] = true
		scanned++
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				*warnings = append(*warnings, fmt.Sprintf("skipped unreadable directory %s: %v", dir, err))
			}
			continue
		}
		for _, e := range entries {
			full := filepath.Join(dir, e.Name())
			isDir := e.IsDir()
			if !isDir && !(e.Type().IsRegular() && slices.Contains(names, e.Name())) {
				continue
			}
			if isDir && (e.Name() == ".git" || e.Name() == "node_modules") {
				continue
			}
			if filter != nil && filter.Ignored(full, isDir) {
				continue
			}
			if isDir {
				queue = append(queue, full)
			} else {
				found = append(found, full)
			}
		}
	}
	return found
}

// uniqueFiles drops paths that name a file already listed (through a
// symlink or a different case), keeping the first name. Paths that cannot
// be examined are kept; reading them will report the problem.
func uniqueFiles(paths []string) []string {
	var infos []os.FileInfo
	var out []string
next:
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			out = append(out, p)
			continue
		}
		for _, other := range infos {
			if os.SameFile(fi, other) {
				continue next
			}
		}
		infos = append(infos, fi)
		out = append(out, p)
	}
	return out
}

// uniqueStrings drops repeats, keeping the first occurrence.
func uniqueStrings(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
