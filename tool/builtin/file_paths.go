package builtin

// Paths the model gives the file tools: resolution, the workspace check
// and Gemini CLI's text for a path outside it, and the ignore filters.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/castor-dev/castor/tool"
)

// resolvePath turns a path given by the model into an absolute, cleaned path
// (relative paths resolve against the workspace root, "~/" against the home
// directory) and checks that it may be accessed: it must lie inside a
// workspace directory or the project temp directory, with symlinks resolved.
// The error is PATH_NOT_IN_WORKSPACE with Gemini CLI's message.
func (e *Env) resolvePath(p string) (string, *tool.Error) {
	abs := e.absPath(p)
	if !e.pathAllowed(abs) {
		return abs, e.pathNotInWorkspaceError(abs)
	}
	return abs, nil
}

// absPath makes p absolute without checking where it points.
func (e *Env) absPath(p string) string {
	if e == nil || e.Workspace == nil {
		a, err := filepath.Abs(p)
		if err != nil {
			return filepath.Clean(p)
		}
		return a
	}
	return e.Workspace.Resolve(p)
}

// pathAllowed reports whether the absolute path lies inside the workspace or
// the project temp directory (where truncated outputs are saved, so the
// model can read them back). Symlinks are resolved: a link inside the
// workspace pointing outside it is not allowed.
func (e *Env) pathAllowed(abs string) bool {
	if e == nil {
		return false
	}
	if e.Workspace != nil && e.Workspace.Contains(abs) {
		return true
	}
	if e.TempDir != "" {
		return tool.NewWorkspace(e.TempDir).Contains(abs)
	}
	return false
}

// pathNotInWorkspaceError is the error for a path outside every allowed
// directory, worded as Gemini CLI's Config.validatePathAccess words it.
func (e *Env) pathNotInWorkspaceError(abs string) *tool.Error {
	var dirs []string
	if e != nil && e.Workspace != nil {
		dirs = e.Workspace.Dirs()
	}
	msg := fmt.Sprintf("Path not in workspace: Attempted path %q resolves outside the allowed workspace directories: %s", abs, strings.Join(dirs, ", "))
	if e != nil && e.TempDir != "" {
		msg += " or the project temp directory: " + e.TempDir
	}
	return &tool.Error{Type: tool.ErrPathNotInWorkspace, Message: msg}
}

// workspaceRoot returns the root workspace directory, or "" without one.
func (e *Env) workspaceRoot() string {
	if e == nil || e.Workspace == nil {
		return ""
	}
	return e.Workspace.Root()
}

// relPath returns abs relative to the workspace root with forward slashes,
// the form Gemini CLI uses in display texts ("src/a.go"); "." for the root
// itself. Paths in other workspace directories come out as "../x/y", as
// Node's path.relative gives them.
func (e *Env) relPath(abs string) string {
	root := e.workspaceRoot()
	if root == "" {
		return filepath.ToSlash(abs)
	}
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// fileFilter returns the ignore filter for opts, or nil when the session has
// none. Use isIgnored to query it nil-safely.
func (e *Env) fileFilter(opts tool.FilterOptions) tool.FileFilter {
	if e == nil || e.Filter == nil {
		return nil
	}
	return e.Filter(opts)
}

// isIgnored reports whether f ignores the absolute path; a nil filter
// ignores nothing.
func isIgnored(f tool.FileFilter, abs string, isDir bool) bool {
	return f != nil && f.Ignored(abs, isDir)
}
