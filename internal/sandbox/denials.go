package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// denialWords are how programs report an access the kernel refused
// (EACCES, EPERM, EROFS).
var denialWords = []string{"Permission denied", "Operation not permitted", "Read-only file system"}

// maxDenials bounds the lines Denials adds.
const maxDenials = 5

// Denials explains a failed command's output for the model: for each
// absolute path on a line reporting a refused access, the sandbox rule
// that refused it, e.g. "sandbox: write to /etc/x denied (outside the
// workspace; profile permissive-open)"; and a refused connection when
// the profile has no network. Paths the profile allows are left out:
// their refusal is the file system's own.
func (s *Sandbox) Denials(output string) string { return s.DenialsIn("", output) }

// relativePath is what a relative path in an error message may look
// like: not an address (git@host:, user@host) nor a sentence.
var relativePath = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._+/-]+$`) }}

// DenialsIn is Denials for a command run in dir, whose messages name
// paths relative to it ("touch: cannot touch 'x': Permission denied").
func (s *Sandbox) DenialsIn(dir, output string) string {
	p := s.Profile
	var notes, seen []string
	net := false
	words := denialWords
	if p.Method == Bwrap && !slices.Contains(p.Read, "/") {
		// What bubblewrap does not bind is not there at all.
		words = append(slices.Clip(words), "No such file or directory")
	}
	for line := range strings.SplitSeq(output, "\n") {
		i := slices.IndexFunc(words, func(w string) bool { return strings.Contains(line, w) })
		if i < 0 {
			continue
		}
		if !p.Network && strings.Contains(line, "connect") {
			net = true
		}
		// The path is the word just before the message ("cat: /x:
		// Permission denied") or just after it (Python's "Permission
		// denied: '/x'"); the program's own path at the start is not.
		at := strings.Index(line, words[i])
		var near []string
		if f := strings.Fields(line[:at]); len(f) > 0 {
			near = append(near, f[len(f)-1])
		}
		if f := strings.Fields(strings.TrimLeft(line[at+len(words[i]):], ": ")); len(f) > 0 {
			near = append(near, f[0])
		}
		for _, f := range near {
			path := strings.Trim(f, "'\"`:;,()[]")
			if dir != "" && filepath.IsAbs(dir) && !strings.HasPrefix(path, "/") && relativePath.Get().MatchString(path) {
				path = filepath.Join(dir, path)
			}
			if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "/dev/tcp/") || strings.HasPrefix(path, "/dev/udp/") ||
				slices.Contains(seen, path) || len(notes) >= maxDenials {
				continue
			}
			path = filepath.Clean(path)
			seen = append(seen, path)
			if note := p.denial(path); note != "" {
				notes = append(notes, note)
			}
		}
	}
	if net {
		notes = append(notes, fmt.Sprintf("sandbox: network connections denied (profile %s has no network)", p.Name))
	}
	return strings.Join(notes, "\n")
}

// denial is the rule that refuses path, or "" when the profile allows
// it.
func (p Profile) denial(path string) string {
	real := clean(path)
	switch {
	case beneathAny(real, p.Deny):
		return fmt.Sprintf("sandbox: access to %s denied (a credential file; profile %s)", path, p.Name)
	case !beneathAny(real, p.Read) && !beneathAny(real, p.Write):
		return fmt.Sprintf("sandbox: access to %s denied (outside the workspace and the system directories; profile %s)", path, p.Name)
	case beneathAny(real, p.Protect):
		return fmt.Sprintf("sandbox: write to %s denied (%s)", path, p.Rule(path))
	case !beneathAny(real, p.Write):
		return fmt.Sprintf("sandbox: write to %s denied (%s)", path, p.Rule(path))
	case p.Method == Landlock && slices.Contains(p.Write, filepath.Dir(real)) && holdsProtected(filepath.Dir(real), p.Protect):
		return fmt.Sprintf("sandbox: write to %s denied (%s)", path, p.Rule(path))
	}
	return ""
}
