// Package semver says whether one version serves a client asking for
// another, by Semantic Versioning 2.0, over golang.org/x/mod/semver. It
// reads versions leniently: with or without the "v", and with only the
// major (or major and minor) number, as version strings in URIs and
// protocol headers give them.
package semver

import (
	"strings"

	modsemver "golang.org/x/mod/semver"
)

// Parse reads "v0", "0.1", "v1.2.3" or "1.2.3-rc.1" as a canonical
// version ("v0.0.0", "v0.1.0", ...): missing numbers count as zeros. ok
// is false for anything else.
func Parse(s string) (v string, ok bool) {
	v = "v" + strings.TrimPrefix(s, "v")
	return modsemver.Canonical(v), modsemver.IsValid(v)
}

// Satisfies reports whether an implementation of version have serves a
// client that asks for want (both canonical, see Parse): the same major
// version (below 1.0.0, where anything may change, the same minor version
// too) and no older than what was asked.
func Satisfies(have, want string) bool {
	if modsemver.Major(have) != modsemver.Major(want) {
		return false
	}
	if modsemver.Major(have) == "v0" && modsemver.MajorMinor(have) != modsemver.MajorMinor(want) {
		return false
	}
	return modsemver.Compare(have, want) >= 0
}
