// Package version holds Castor's version, shared by the binary, the SDK
// and every face that reports it (User-Agent, agent cards, MCP client info)
// without importing the SDK package.
package version

import (
	"runtime/debug"
	"strings"
)

// Version is Castor's version. Release builds set it with
// -ldflags "-X github.com/castor-dev/castor/internal/version.Version=…"
// (scripts/release.sh).
var Version = "0.1.0"

// Commit is the git commit a release was built from, and Date the time
// it was built (RFC 3339). Release builds set both with -X; a plain
// `go build` in a checkout falls back to the VCS stamp Go records, and
// `go install …@version` to nothing.
var (
	Commit = ""
	Date   = ""
)

// Long is the line `castor --version` prints: the version first, so a
// script reading the first word still gets it, then what the build knows
// of its origin.
func Long() string {
	commit, date := Commit, Date
	if commit == "" || date == "" {
		c, d := vcsStamp()
		if commit == "" {
			commit = c
		}
		if date == "" {
			date = d
		}
	}
	var extra []string
	if commit != "" {
		extra = append(extra, "commit "+short(commit))
	}
	if date != "" {
		extra = append(extra, "built "+date)
	}
	if len(extra) == 0 {
		return Version
	}
	return Version + " (" + strings.Join(extra, ", ") + ")"
}

// vcsStamp reads the revision and commit time Go records when it builds
// in a git checkout.
func vcsStamp() (commit, date string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.time":
			date = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if commit != "" && modified {
		commit += "-dirty"
	}
	return commit, date
}

// short is a commit hash cut to the 12 digits people quote.
func short(commit string) string {
	hash, suffix, _ := strings.Cut(commit, "-")
	if len(hash) > 12 {
		hash = hash[:12]
	}
	if suffix != "" {
		return hash + "-" + suffix
	}
	return hash
}
