// Package skills implements Gemini CLI's Agent Skills: folders holding a
// SKILL.md (YAML front matter with a name and a description, then
// instructions), discovered from the user's and the workspace's skill
// folders and from extensions, listed in the system instruction, and
// handed to the model on demand by the activate_skill tool.
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/frontmatter"
	"github.com/castor-dev/castor/internal/lazy"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// Skill is one discovered skill.
type Skill struct {
	// Name is the front matter's name, with characters that cannot be in a
	// file name replaced by "-", as Gemini CLI does.
	Name        string
	Description string
	// Body is the instructions below the front matter, trimmed.
	Body string
	// Location is the SKILL.md file: an absolute path for skills on disk,
	// the path inside the file system for skills read from an fs.FS.
	Location string
	// Dir is the skill's folder on disk ("" for a skill read from an
	// fs.FS); activating the skill adds it to the workspace so the model
	// may read the skill's resources.
	Dir string
	// Disabled skills are listed by `castor skills list` but not offered
	// to the model (skills.disabled).
	Disabled bool

	// fsys and fsDir hold a skill read from an fs.FS, for its listing.
	fsys  fs.FS
	fsDir string
}

// unsafeName are the characters Gemini CLI replaces in skill names.
var unsafeName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`[:\\/<>*?"|]`) }}

// Parse reads a SKILL.md. location names it in errors and becomes the
// skill's Location. A file without front matter, with front matter that
// is neither YAML nor the simple "key: value" lines Gemini CLI also
// accepts, or without a name and a description is an error naming the
// file and, when known, the line.
func Parse(data []byte, location string) (*Skill, error) {
	front, body, ok := frontmatter.Split(string(data))
	if !ok {
		return nil, &frontmatter.Error{File: location, Line: 1, Msg: `no front matter: a SKILL.md starts with "---", a "name:" and a "description:" line, and "---"`}
	}
	var m map[string]any
	yerr := frontmatter.Decode(location, front, &m, false)
	name, okName := m["name"].(string)
	desc, okDesc := m["description"].(string)
	if yerr != nil || !okName || !okDesc {
		// Gemini CLI falls back to reading "name:" and "description:"
		// lines, so that a description holding ": " still loads.
		var found bool
		name, desc, found = parseSimple(front)
		if !found {
			if yerr != nil {
				return nil, yerr
			}
			missing := "name"
			if okName {
				missing = "description"
			}
			return nil, &frontmatter.Error{File: location, Line: 1, Msg: fmt.Sprintf("front matter has no %q string", missing)}
		}
	}
	if strings.TrimSpace(name) == "" {
		return nil, &frontmatter.Error{File: location, Line: 1, Msg: "front matter has an empty name"}
	}
	return &Skill{
		Name:        unsafeName.Get().ReplaceAllString(name, "-"),
		Description: desc,
		Body:        strings.TrimSpace(body),
		Location:    location,
	}, nil
}

var (
	simpleName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s*name:\s*(.*)$`) }}
	simpleDesc = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s*description:\s*(.*)$`) }}
	indented   = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[ \t]+\S`) }}
	newline    = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\r?\n`) }}
)

// parseSimple is Gemini CLI's fallback front matter reader: "name:" and
// "description:" lines, the description continued by indented lines.
func parseSimple(front string) (name, desc string, ok bool) {
	lines := newline.Get().Split(front, -1)
	var haveName, haveDesc bool
	for i := 0; i < len(lines); i++ {
		if m := simpleName.Get().FindStringSubmatch(lines[i]); m != nil {
			name, haveName = strings.TrimSpace(m[1]), true
			continue
		}
		if m := simpleDesc.Get().FindStringSubmatch(lines[i]); m != nil {
			parts := []string{strings.TrimSpace(m[1])}
			for i+1 < len(lines) && indented.Get().MatchString(lines[i+1]) {
				i++
				parts = append(parts, strings.TrimSpace(lines[i]))
			}
			parts = slices.DeleteFunc(parts, func(s string) bool { return s == "" })
			desc, haveDesc = strings.Join(parts, " "), true
		}
	}
	return name, desc, haveName && haveDesc
}

// LoadDir loads the skills of dir: dir/SKILL.md and dir/*/SKILL.md, as
// Gemini CLI's loader globs them. A missing dir holds no skills. Each
// file that cannot be loaded gives an error and is skipped.
func LoadDir(dir string) ([]*Skill, []error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, []error{err}
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, nil
	}
	found, errs := load(os.DirFS(abs), ".", func(p string) string {
		return filepath.Join(abs, filepath.FromSlash(p))
	})
	for _, s := range found {
		s.Dir = filepath.Dir(s.Location)
		s.fsys = nil
	}
	return found, errs
}

// LoadFS loads skills from a file system: root/SKILL.md and
// root/*/SKILL.md. The skills' Location is their path in fsys and their
// resources are listed from fsys. With strict, a root holding no skill
// is an error.
func LoadFS(fsys fs.FS, root string, strict bool) ([]*Skill, error) {
	found, errs := load(fsys, root, func(p string) string { return p })
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if strict && len(found) == 0 {
		return nil, fmt.Errorf("no %s in %s or its subfolders", FileName, root)
	}
	return found, nil
}

// load reads root/SKILL.md, then root/*/SKILL.md in name order, skipping
// node_modules and .git; name turns a path in fsys into the location
// shown in skills and errors.
func load(fsys fs.FS, root string, name func(string) string) ([]*Skill, []error) {
	var files []string
	if fi, err := fs.Stat(fsys, path.Join(root, FileName)); err == nil && !fi.IsDir() {
		files = append(files, path.Join(root, FileName))
	}
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, []error{fmt.Errorf("%s: %w", name(root), err)}
	}
	for _, e := range entries {
		if e.Name() == "node_modules" || e.Name() == ".git" {
			continue
		}
		p := path.Join(root, e.Name(), FileName)
		if fi, err := fs.Stat(fsys, p); err == nil && !fi.IsDir() {
			files = append(files, p)
		}
	}
	var out []*Skill
	var errs []error
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name(f), err))
			continue
		}
		s, err := Parse(data, name(f))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.fsys, s.fsDir = fsys, path.Dir(f)
		out = append(out, s)
	}
	return out, errs
}

// LoadFile loads one SKILL.md on disk.
func LoadFile(file string) (*Skill, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, abs)
	if err != nil {
		return nil, err
	}
	s.Dir = filepath.Dir(abs)
	return s, nil
}
