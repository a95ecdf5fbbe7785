package skills

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Set is the skills of a session, by name, in discovery order; a skill
// discovered later under the same name replaces the earlier one in its
// place.
type Set struct {
	skills []*Skill
}

// Add adds skills over those already in the set and returns a warning
// for each one that replaces a skill from another file, worded as Gemini
// CLI's.
func (s *Set) Add(skills ...*Skill) []string {
	var warnings []string
	for _, n := range skills {
		i := s.index(n.Name)
		if i < 0 {
			s.skills = append(s.skills, n)
			continue
		}
		if old := s.skills[i]; old.Location != n.Location {
			warnings = append(warnings, fmt.Sprintf("Skill conflict detected: %q from %q is overriding the same skill from %q.", n.Name, n.Location, old.Location))
		}
		s.skills[i] = n
	}
	return warnings
}

func (s *Set) index(name string) int {
	for i, k := range s.skills {
		if k.Name == name {
			return i
		}
	}
	return -1
}

// All returns every skill, disabled ones included.
func (s *Set) All() []*Skill {
	if s == nil {
		return nil
	}
	return append([]*Skill(nil), s.skills...)
}

// Enabled returns the skills offered to the model.
func (s *Set) Enabled() []*Skill {
	if s == nil {
		return nil
	}
	var out []*Skill
	for _, k := range s.skills {
		if !k.Disabled {
			out = append(out, k)
		}
	}
	return out
}

// Get finds an enabled skill by name, ignoring case as Gemini CLI does.
func (s *Set) Get(name string) *Skill {
	for _, k := range s.Enabled() {
		if strings.EqualFold(k.Name, name) {
			return k
		}
	}
	return nil
}

// Disable marks the named skills disabled (skills.disabled; names are
// compared without case).
func (s *Set) Disable(names []string) {
	if s == nil {
		return
	}
	for _, k := range s.skills {
		k.Disabled = false
		for _, n := range names {
			if strings.EqualFold(k.Name, n) {
				k.Disabled = true
			}
		}
	}
}

// Sources are the places skills are discovered from.
type Sources struct {
	// Home is the user's home directory: ~/.gemini/skills and
	// ~/.agents/skills.
	Home string
	// Workspace is the workspace root: .gemini/skills and .agents/skills,
	// read only when Trusted.
	Workspace string
	Trusted   bool
	// Extensions are the root folders of the active extensions, whose
	// skills/ folders hold skills.
	Extensions []string
}

// Dirs returns the folders skills are read from, lowest precedence
// first: extensions, then the user's, then the workspace's; within a
// tier .agents/skills comes after (and wins over) .gemini/skills.
func (src Sources) Dirs() []string {
	var dirs []string
	for _, e := range src.Extensions {
		dirs = append(dirs, filepath.Join(e, "skills"))
	}
	if src.Home != "" {
		dirs = append(dirs, filepath.Join(src.Home, ".gemini", "skills"), filepath.Join(src.Home, ".agents", "skills"))
	}
	if src.Workspace != "" && src.Trusted {
		dirs = append(dirs, filepath.Join(src.Workspace, ".gemini", "skills"), filepath.Join(src.Workspace, ".agents", "skills"))
	}
	return dirs
}

// Discover loads the skills of every source folder in precedence order.
// Files that cannot be loaded and skills that replace others are
// reported as warnings; nothing stops discovery.
func Discover(src Sources) (*Set, []string) {
	set := &Set{}
	var warnings []string
	seen := map[string]bool{}
	for _, d := range src.Dirs() {
		// The workspace may be the home directory; read each folder once.
		if seen[d] {
			continue
		}
		seen[d] = true
		found, errs := LoadDir(d)
		for _, err := range errs {
			warnings = append(warnings, fmt.Sprintf("skill skipped: %v", err))
		}
		warnings = append(warnings, set.Add(found...)...)
	}
	return set, warnings
}
