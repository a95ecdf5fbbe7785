package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RealDir resolves p to an existing directory's real path (the allowed
// root clients' workspaces must lie under).
func RealDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return real, nil
}

// Workspace checks a workspace a client names, as Gemini CLI's server
// does: its real path, which it returns, must lie under root (a RealDir),
// exist and be a directory. Its errors are Gemini CLI's, naming p.
func Workspace(p, root string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("Workspace path %s is invalid", p)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("Workspace path %s does not exist", p)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("Workspace path %s is outside the allowed root directory", p)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("Workspace path %s does not exist", p)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("Workspace path %s is not a directory", p)
	}
	return real, nil
}
