// Command docgen writes the pages of docs/ that are generated from code:
// today the settings reference, docs/configuration/settings.md, from the
// table in config/settingskeys.go. Run it from anywhere in the module
// (`go run ./internal/docgen`, or `go generate ./config`); the package's
// tests fail while a committed page differs from what it would write.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	for _, p := range pages() {
		path := filepath.Join(root, filepath.FromSlash(p.path))
		if err := os.WriteFile(path, p.render(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
	}
}

// page is one generated file, named relative to the module root.
type page struct {
	path   string
	render func() []byte
}

// pages lists every generated file.
func pages() []page {
	return []page{{settingsPagePath, settingsPage}}
}

// moduleRoot is the nearest folder at or above the working directory
// holding go.mod: go generate runs in the package's folder, go run in
// wherever the user is.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}
