package castor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/castor-dev/castor/internal/skills"
)

// SkillSource is where skills come from: a skill's folder (SkillDir), a
// folder of skill folders (SkillRoot) or any file system (SkillFS).
//
// A skill is a folder holding a SKILL.md: YAML front matter with a name
// and a description, then the instructions the model receives when it
// activates the skill. The model sees each skill's name and description
// in its system instruction and activates one with the activate_skill
// tool, as in Gemini CLI.
type SkillSource struct {
	load func() ([]*skills.Skill, error)
}

// SkillDir is one skill: dir holds its SKILL.md and resources.
func SkillDir(dir string) SkillSource {
	return SkillSource{load: func() ([]*skills.Skill, error) {
		s, err := skills.LoadFile(filepath.Join(dir, skills.FileName))
		if err != nil {
			return nil, fmt.Errorf("skill %s: %w", dir, err)
		}
		return []*skills.Skill{s}, nil
	}}
}

// SkillRoot is the skills of a folder: root/SKILL.md and every
// root/<name>/SKILL.md.
func SkillRoot(root string) SkillSource {
	return SkillSource{load: func() ([]*skills.Skill, error) {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("skill root %s is not a folder", root)
		}
		found, errs := skills.LoadDir(root)
		if len(errs) > 0 {
			return nil, errs[0]
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no %s in %s or its subfolders", skills.FileName, root)
		}
		return found, nil
	}}
}

// SkillFS is the skills of a file system: SKILL.md at its root and
// <name>/SKILL.md below it. It serves skills kept in memory
// (fstest.MapFS) or embedded in the program (embed.FS). Such skills have
// no folder on disk: the model is told their files' names but cannot
// read them with its file tools.
func SkillFS(fsys fs.FS) SkillSource {
	return SkillSource{load: func() ([]*skills.Skill, error) {
		return skills.LoadFS(fsys, ".", true)
	}}
}

// WithSkills gives the agent skills besides those discovered in the
// user's and the workspace's skills folders (which WithoutSettings
// leaves out); a skill given here replaces a discovered one of the same
// name. A source that cannot be loaded makes New fail with an error
// naming the file and line.
//
// The program vouches for its skills, so activate_skill runs without
// confirmation (Gemini CLI asks a user first, and refuses it in headless
// runs).
func WithSkills(sources ...SkillSource) Option {
	return func(o *options) {
		o.AllowedTools = append(o.AllowedTools, skills.ToolName)
		for _, s := range sources {
			if s.load != nil {
				o.Skills = append(o.Skills, s.load)
			}
		}
	}
}
