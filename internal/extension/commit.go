package extension

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/castor-dev/castor/config"
)

// Newer fetches e's source again when it has changed since the install,
// and returns nil when it has not. A git install whose commit was
// recorded is compared by commit, as Gemini CLI does: the ref's commit
// upstream (git ls-remote, no clone) against the one installed, so new
// commits are offered even under the same manifest version. Other
// installs (local folders, git installs made before Castor recorded
// commits) are fetched and compared by version.
func Newer(ctx context.Context, e *config.Extension, wd string) (*Upstream, error) {
	if e.Install != nil && e.Install.Type == "git" && e.Install.Commit != "" {
		remote, err := remoteCommit(ctx, e.Install.Source, e.Install.Ref)
		if err != nil {
			return nil, err
		}
		if remote == e.Install.Commit {
			return nil, nil
		}
		return FetchUpstream(ctx, e, wd)
	}
	u, err := FetchUpstream(ctx, e, wd)
	if err != nil {
		return nil, err
	}
	if u.Manifest.Version == e.Version {
		u.Close()
		return nil, nil
	}
	return u, nil
}

// Versions names the installed and the fetched copy of e for the user:
// their versions, and their commits too when the versions are the same.
func Versions(e *config.Extension, u *Upstream) (from, to string) {
	from, to = e.Version, u.Manifest.Version
	if from == to && e.Install != nil && e.Install.Commit != "" && u.Commit != "" && e.Install.Commit != u.Commit {
		from += " (" + shortCommit(e.Install.Commit) + ")"
		to += " (" + shortCommit(u.Commit) + ")"
	}
	return from, to
}

func shortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// headCommit is the commit checked out in the clone dir; "" when git
// cannot say.
func headCommit(ctx context.Context, dir string) string {
	c := exec.CommandContext(ctx, "git", "rev-parse", "HEAD")
	c.Dir = dir
	c.Env = gitEnv(ctx)
	out, err := c.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// remoteCommit is the commit ref (HEAD when empty) names in the git
// repository at source, by git ls-remote: the commit an annotated tag
// points to, as a clone of the tag checks out.
func remoteCommit(ctx context.Context, source, ref string) (string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	// The peeled pattern too: git lists an annotated tag's commit only
	// when asked for it.
	c := exec.CommandContext(ctx, "git", "ls-remote", "--", source, ref, ref+"^{}")
	c.Env = gitEnv(ctx)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		why := oneLine(stderr.String())
		if why == "" {
			why = err.Error()
		}
		return "", fmt.Errorf("Failed to reach Git repository %s: %s", source, why)
	}
	return parseLsRemote(string(out), source, ref)
}

// parseLsRemote picks ref's commit from git ls-remote's output: the
// peeled line (ref^{}) of an annotated tag, else the first line.
func parseLsRemote(out, source, ref string) (string, error) {
	var first string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok || !isHash(hash) {
			continue
		}
		if strings.HasSuffix(name, "^{}") {
			return hash, nil
		}
		if first == "" {
			first = hash
		}
	}
	if first == "" {
		return "", fmt.Errorf("Git ref %s not found in %s", ref, source)
	}
	return first, nil
}

func isHash(s string) bool {
	if len(s) < 40 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
