package extension

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/extension/swap"
	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
)

// ErrBadSource is wrapped by Fetch's error when the source is neither a
// git URL nor an existing folder.
var ErrBadSource = errors.New("not a valid URL or local path")

// ErrNotUpdatable is wrapped by the errors of extensions that are read in
// place (linked) or whose origin is unknown.
var ErrNotUpdatable = errors.New("not updatable")

// cloneWaitDelay is how long a cancelled clone waits for git's helper
// processes to let go of its output.
const cloneWaitDelay = 2 * time.Second

var gitSource = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(https?://|git@|sso://|ssh://|git://|file://)`) }}

// IsGitSource reports whether source is installed by cloning it.
func IsGitSource(source string) bool { return gitSource.Get().MatchString(source) }

// Fetch makes meta.Source readable as a folder: a git URL is cloned (at
// meta.Ref) into a temporary folder that cleanup removes; a local path is
// made absolute and real. meta.Type and meta.Source are set to what was
// found. A link never clones.
func Fetch(ctx context.Context, meta *config.ExtensionInstall, link bool) (dir string, cleanup func(), err error) {
	cleanup = func() {}
	source := meta.Source
	if IsGitSource(source) && !link {
		if _, err := exec.LookPath("git"); err != nil {
			return "", cleanup, errors.New("installing from a git URL needs git, which is not installed")
		}
		tmp, err := os.MkdirTemp("", "castor-extension")
		if err != nil {
			return "", cleanup, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
		args := []string{"clone", "--depth", "1"}
		if meta.Ref != "" {
			args = append(args, "--branch", meta.Ref)
		}
		args = append(args, "--", source, tmp)
		c := exec.CommandContext(ctx, "git", args...)
		c.Env = gitEnv(ctx)
		// Cancelling kills git, not its transport helper (git-remote-http,
		// ssh), which holds the output pipe until the server answers: do
		// not wait for it, or a stalled server holds up the exit.
		c.WaitDelay = cloneWaitDelay
		if out, err := c.CombinedOutput(); err != nil {
			cleanup()
			return "", func() {}, fmt.Errorf("Failed to clone Git repository from %s: %s", source, strings.TrimSpace(string(out)))
		}
		meta.Type = "git"
		meta.Commit = headCommit(ctx, tmp)
		return tmp, cleanup, nil
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return "", cleanup, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", cleanup, fmt.Errorf("The source %q is %w.", source, ErrBadSource)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	meta.Source = abs
	if link {
		meta.Type = "link"
	}
	return abs, cleanup, nil
}

// CopyTree copies the folder src to dest (which must not exist), files
// and folders only; the .git folder of a clone is left behind.
func CopyTree(src, dest string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dest, rel)
		switch {
		case d.IsDir():
			if d.Name() == ".git" && p != src {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return fsutil.CopyFile(p, target, false)
		}
		return nil // symlinks and special files are not copied
	})
}

// Install puts the extension fetched into src ("": a link, an empty
// folder) at dest with its install metadata, whole or not at all. An
// existing dest is an error wrapping fs.ErrExist (so is one that
// recovering an interrupted update brings back, which note then says).
func Install(dest, src string, meta config.ExtensionInstall) (note string, err error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	return swap.Create(dest, func(tmp string) error {
		if src != "" {
			if err := CopyTree(src, tmp); err != nil {
				return err
			}
		}
		return writeMetadata(tmp, &meta)
	})
}

func writeMetadata(dir string, meta *config.ExtensionInstall) error {
	md, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, config.ExtensionInstallMetadataName), md, 0o644)
}

// Upstream is an installed extension's source fetched again.
type Upstream struct {
	// Dir holds the fetched copy until Close.
	Dir string
	// Manifest is its gemini-extension.json.
	Manifest *config.ExtensionManifest
	// Commit is the commit cloned ("" for a local folder).
	Commit  string
	cleanup func()
}

// Close removes a cloned copy.
func (u *Upstream) Close() {
	if u != nil && u.cleanup != nil {
		u.cleanup()
	}
}

// FetchUpstream fetches e again from where it was installed from; wd is
// the workspace (${workspacePath} of the manifest). Linked extensions and
// ones without install metadata fail with ErrNotUpdatable.
func FetchUpstream(ctx context.Context, e *config.Extension, wd string) (*Upstream, error) {
	if e.Install == nil || e.InstallDir == "" {
		return nil, fmt.Errorf("%w: it has no install metadata (%s)", ErrNotUpdatable, config.ExtensionInstallMetadataName)
	}
	if e.Install.Type == "link" {
		return nil, fmt.Errorf("%w: it is linked from %s and read in place", ErrNotUpdatable, e.Install.Source)
	}
	meta := *e.Install
	src, cleanup, err := Fetch(ctx, &meta, false)
	if err != nil {
		return nil, err
	}
	u := &Upstream{Dir: src, Commit: meta.Commit, cleanup: cleanup}
	manifest := filepath.Join(src, config.ExtensionManifestName)
	data, err := os.ReadFile(manifest)
	if err != nil {
		u.Close()
		return nil, fmt.Errorf("Configuration file not found at %s", manifest)
	}
	if u.Manifest, err = config.ParseExtensionManifest(manifest, data, config.ExtensionVars(src, wd), nil, nil); err != nil {
		u.Close()
		return nil, err
	}
	if u.Manifest.Name != e.Name {
		u.Close()
		return nil, fmt.Errorf("the source at %s is now extension %q, not %q; uninstall and install it instead", e.Install.Source, u.Manifest.Name, e.Name)
	}
	return u, nil
}

// Apply replaces e's installed copy with u, keeping its install metadata
// and the user's settings values (the extension's .env). It returns what
// recovering an earlier interrupted update did, if anything.
func Apply(e *config.Extension, u *Upstream) (note string, err error) {
	return swap.Replace(e.InstallDir, func(tmp string) error {
		if err := CopyTree(u.Dir, tmp); err != nil {
			return err
		}
		if envData, err := os.ReadFile(filepath.Join(e.InstallDir, config.ExtensionSettingsFileName)); err == nil {
			if err := os.WriteFile(filepath.Join(tmp, config.ExtensionSettingsFileName), envData, 0o600); err != nil {
				return err
			}
		}
		meta := *e.Install
		if u.Commit != "" {
			meta.Commit = u.Commit
		}
		return writeMetadata(tmp, &meta)
	})
}

// Update fetches e again and installs the fetched copy when it is newer
// (Newer: another commit of a git source, else another version); from
// and to name both, equal when it was up to date.
func Update(ctx context.Context, e *config.Extension, wd string) (from, to, note string, err error) {
	u, err := Newer(ctx, e, wd)
	if err != nil {
		return "", "", "", err
	}
	if u == nil {
		return e.Version, e.Version, "", nil
	}
	defer u.Close()
	note, err = Apply(e, u)
	if err != nil {
		return "", "", note, err
	}
	from, to = Versions(e, u)
	return from, to, note, nil
}
