package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/tool"
)

// Helpers shared by the tests of the file tools (prefixed fs to stay clear
// of other test helpers in the package).

// fsTestEnv returns an Env over a fresh workspace (symlinks resolved, so
// paths in messages are predictable) with a separate project temp dir.
func fsTestEnv(t *testing.T) (*Env, string) {
	t.Helper()
	dir := fsTempDir(t)
	return &Env{Workspace: tool.NewWorkspace(dir), TempDir: fsTempDir(t)}, dir
}

// fsTempDir is t.TempDir with symlinks resolved.
func fsTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// fsNotInWorkspace is the error text for path p outside env's workspace.
func fsNotInWorkspace(env *Env, p string) string {
	return `Path not in workspace: Attempted path "` + p + `" resolves outside the allowed workspace directories: ` +
		strings.Join(env.Workspace.Dirs(), ", ") + " or the project temp directory: " + env.TempDir
}

// fsWrite creates a file (and its parents) under dir.
func fsWrite(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fsRead returns a file's content.
func fsRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fsPrepare runs a call through a registry as the engine does: name or
// alias lookup, argument normalization, schema validation, Build.
func fsPrepare(tl tool.Tool, name string, args map[string]any) (tool.Call, *tool.Error) {
	if name == "" {
		name = tl.Name()
	}
	_, c, err := tool.NewRegistry(tl).Prepare(name, args, nil)
	return c, err
}

// fsRun prepares and executes a call, failing the test when preparation
// fails.
func fsRun(t *testing.T, tl tool.Tool, args map[string]any) *tool.Result {
	t.Helper()
	c, err := fsPrepare(tl, "", args)
	if err != nil {
		t.Fatalf("prepare %s: %s: %s", tl.Name(), err.Type, err.Message)
	}
	return c.Execute(context.Background(), nil)
}

// fsGolden compares got with testdata/<name> (internal/golden: go test
// -update rewrites it).
func fsGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name, got)
}

// fsFilter ignores paths with a listed name as any element, like a
// .gitignore of bare names would.
type fsFilter map[string]bool

// Ignored implements tool.FileFilter.
func (f fsFilter) Ignored(path string, _ bool) bool {
	for _, el := range strings.Split(filepath.ToSlash(path), "/") {
		if f[el] {
			return true
		}
	}
	return false
}

// fsWithFilter sets a filter that ignores the given base names.
func fsWithFilter(env *Env, names ...string) {
	f := fsFilter{}
	for _, n := range names {
		f[n] = true
	}
	env.Filter = func(tool.FilterOptions) tool.FileFilter { return f }
}
