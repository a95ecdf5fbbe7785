package tool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/castor-dev/castor/internal/fsutil"
)

// ResolvePlanPath resolves a plan file name the model gave (exit_plan_mode's
// plan_filename, or write_file's file_path in plan mode) to a path inside
// plansDir, as Gemini CLI's resolveAndValidatePlanPath does: an absolute
// path inside the plans directory, a path relative to the project root
// that lands inside it, or a path relative to the plans directory. Links
// are resolved before the check, so a link cannot lead out of the
// directory. The error is Gemini CLI's "Access denied" text.
func ResolvePlanPath(p, plansDir, root string) (string, error) {
	p = strings.TrimSpace(strings.ReplaceAll(p, "\x00", ""))
	if p == "" {
		return "", errors.New("Plan file path must be non-empty.")
	}
	realPath := func(p string) string { return fsutil.ResolveExisting(filepath.Clean(p)) }
	realDir := realPath(plansDir)
	if filepath.IsAbs(p) && subpath(realDir, realPath(p)) {
		return filepath.Clean(p), nil
	}
	if root != "" {
		if fromRoot := filepath.Join(root, p); subpath(realDir, realPath(fromRoot)) {
			return fromRoot, nil
		}
	}
	resolved := p
	if !filepath.IsAbs(p) {
		resolved = filepath.Join(plansDir, p)
	}
	if !subpath(realDir, realPath(resolved)) {
		return "", fmt.Errorf("Access denied: plan path (%s) must be within the designated plans directory (%s).", p, plansDir)
	}
	return resolved, nil
}

// subpath reports whether p is dir or lies under it.
func subpath(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// PlanFileOK reports whether the plan file at path may be submitted for
// approval, or why not, in Gemini CLI's words.
func PlanFileOK(name, path string) string {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("Plan file does not exist: %s. You must create the plan file before requesting approval.", name)
	case err != nil:
		return "Failed to read plan file: " + err.Error()
	case fi.Size() == 0:
		return "Plan file is empty. You must write content to the plan file before requesting approval."
	}
	return ""
}
