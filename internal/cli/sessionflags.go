package cli

// Three of Gemini CLI 0.61's flags that shape the session before it
// starts: -w/--worktree (the session runs in a git worktree of its own),
// --session-file (a session file imported as a new session) and
// --screen-reader (plain, linear output in the terminal).

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/chats"
)

// worktreeAuto is --worktree's value when given without a name.
const worktreeAuto = "(random)"

// worktree is the git worktree a session runs in (-w/--worktree), as
// Gemini CLI makes it: .gemini/worktrees/<name> under the project root
// (the folder holding the repository's common .git), on a new branch
// worktree-<name> from HEAD.
type worktree struct {
	root, path, name, base string
}

// startWorktree creates the worktree and makes it the working folder.
func startWorktree(name string) (*worktree, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	common, err := git(wd, "rev-parse", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("--worktree needs a git repository: %v", err)
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(wd, common)
	}
	w := &worktree{root: filepath.Dir(common), name: strings.TrimSpace(name)}
	if w.name == "" || name == worktreeAuto {
		b := make([]byte, 2)
		rand.Read(b)
		w.name = time.Now().UTC().Format("2006-01-02-15-04-05") + "-" + hex.EncodeToString(b)
	}
	if strings.ContainsAny(w.name, `/\`) || w.name == "." || w.name == ".." {
		return nil, fmt.Errorf("--worktree %q: a name cannot hold a path separator", w.name)
	}
	if w.base, err = git(w.root, "rev-parse", "HEAD"); err != nil {
		return nil, fmt.Errorf("--worktree needs a commit to start from: %v", err)
	}
	w.path = filepath.Join(w.root, ".gemini", "worktrees", w.name)
	if _, err := git(w.root, "worktree", "add", w.path, "-b", "worktree-"+w.name); err != nil {
		return nil, fmt.Errorf("--worktree: %v", err)
	}
	if err := os.Chdir(w.path); err != nil {
		return nil, err
	}
	return w, nil
}

// finish removes the worktree and its branch when the session left them
// as they were made (no uncommitted change, no new commit), as Gemini CLI
// does; otherwise it keeps them and says how to come back.
func (w *worktree) finish(stderr io.Writer) {
	status, err := git(w.path, "status", "--porcelain")
	head, herr := git(w.path, "rev-parse", "HEAD")
	if err == nil && herr == nil && status == "" && head == w.base {
		_ = os.Chdir(w.root) // the folder is about to go
		if _, err := git(w.root, "worktree", "remove", w.path, "--force"); err == nil {
			_, _ = git(w.root, "branch", "-D", "worktree-"+w.name)
			return
		}
	}
	fmt.Fprintf(stderr, "The worktree %s has changes and was kept. To resume: cd %s && castor --resume latest\n", w.path, w.path)
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %v", args[0], err)
	}
	return strings.TrimSpace(string(out)), nil
}

// importSessionFile copies the session in path (Gemini CLI's JSONL or
// legacy JSON) into a new session of the project, keeping its user and
// model messages after a note of where they came from, as Gemini CLI's
// --session-file does, and returns the new session's id to resume.
func importSessionFile(wd, path string) (string, error) {
	conv, err := chats.LoadFile(path)
	if err != nil {
		return "", fmt.Errorf("--session-file %s: %v", path, err)
	}
	store, err := openStore(wd)
	if err != nil {
		return "", err
	}
	id, err := store.Import(conv, "Imported session from "+path)
	if err != nil {
		return "", fmt.Errorf("--session-file %s: %v", path, err)
	}
	return id, nil
}
