package skills

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/tool"
)

// ToolName is the name the model calls skills by.
const ToolName = "activate_skill"

// Section returns the "Available Agent Skills" part of the system
// instruction, worded as Gemini CLI's, or "" when there are no skills.
func Section(skills []*Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Available Agent Skills\n\n")
	b.WriteString("You have access to the following specialized skills. To activate a skill and receive its detailed instructions, you can call the `" + ToolName + "` tool with the skill's name.\n\n")
	b.WriteString("<available_skills>\n")
	for i, s := range skills {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  <skill>\n    <name>%s</name>\n    <description>%s</description>\n    <location>%s</location>\n  </skill>", s.Name, s.Description, s.Location)
	}
	b.WriteString("\n</available_skills>")
	return b.String()
}

// NewTool returns the activate_skill tool over the enabled skills of set.
// Activating a skill on disk adds its folder to ws (when ws is not nil),
// so the model may read its resources.
func NewTool(set *Set, ws *tool.Workspace) tool.Tool {
	return &activateTool{set: set, ws: ws}
}

type activateTool struct {
	set *Set
	ws  *tool.Workspace
}

func (t *activateTool) Name() string        { return ToolName }
func (t *activateTool) DisplayName() string { return "Activate Skill" }

// Kind is "other", as in Gemini CLI: a headless run without approval
// rules refuses (and hides) it, an interactive one asks for consent.
func (t *activateTool) Kind() tool.Kind { return tool.KindOther }

func (t *activateTool) names() []string {
	var names []string
	for _, s := range t.set.Enabled() {
		names = append(names, s.Name)
	}
	return names
}

func (t *activateTool) Description() string {
	hint := ""
	if names := t.names(); len(names) > 0 {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = "'" + n + "'"
		}
		hint = " (Available: " + strings.Join(quoted, ", ") + ")"
	}
	return "Activates a specialized agent skill by name" + hint + ". Returns the skill's instructions wrapped in `<activated_skill>` tags. These provide specialized guidance for the current task. Use this when you identify a task that matches a skill's description. ONLY use names exactly as they appear in the `<available_skills>` section."
}

func (t *activateTool) Schema() map[string]any {
	name := map[string]any{"type": "string", "description": "No skills are currently available."}
	if names := t.names(); len(names) > 0 {
		enum := make([]any, len(names))
		for i, n := range names {
			enum[i] = n
		}
		name = map[string]any{"type": "string", "description": "The name of the skill to activate.", "enum": enum}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"name": name},
		"required":             []any{"name"},
		"additionalProperties": false,
	}
}

func (t *activateTool) Build(args map[string]any) (tool.Call, error) {
	name, _ := args["name"].(string)
	return &activateCall{t: t, name: name}, nil
}

type activateCall struct {
	t    *activateTool
	name string
}

func (c *activateCall) Describe() string {
	if s := c.t.set.Get(c.name); s != nil {
		return fmt.Sprintf("%q: %s", c.name, s.Description)
	}
	return fmt.Sprintf("%q (?) unknown skill", c.name)
}

func (c *activateCall) Confirmation(ctx context.Context) (*tool.ConfirmationDetails, error) {
	s := c.t.set.Get(c.name)
	if s == nil {
		return nil, nil
	}
	return &tool.ConfirmationDetails{
		Type:  tool.ConfirmInfo,
		Title: "Activate Skill: " + c.name,
		Prompt: fmt.Sprintf("You are about to enable the specialized agent skill **%s**.\n\n**Description:**\n%s\n\n**Resources to be shared with the model:**\n%s",
			c.name, s.Description, Listing(s)),
	}, nil
}

func (c *activateCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	s := c.t.set.Get(c.name)
	if s == nil {
		return tool.Fail(tool.ErrInvalidParams, fmt.Sprintf("Skill %q not found. Available skills are: %s", c.name, strings.Join(c.t.names(), ", ")))
	}
	if s.Dir != "" && c.t.ws != nil {
		c.t.ws.Add(s.Dir)
	}
	listing := Listing(s)
	dir := s.Dir
	if dir == "" {
		dir = path.Dir(s.Location)
	}
	return &tool.Result{
		LLMText: fmt.Sprintf("<activated_skill name=\"%s\">\n  <instructions>\n    %s\n  </instructions>\n\n  <available_resources>\n    %s\n  </available_resources>\n</activated_skill>", c.name, s.Body, listing),
		Display: fmt.Sprintf("Skill **%s** activated. Resources loaded from `%s`:\n\n%s", c.name, dir, listing),
	}
}

// Listing draws the skill's folder the way Gemini CLI shows it to the
// model when the skill is activated.
func Listing(s *Skill) string {
	if s.fsys == nil {
		return config.FolderStructure(s.Dir, config.DefaultFolderStructureItems, nil)
	}
	return fsTree(s.fsys, s.fsDir, config.DefaultFolderStructureItems)
}

// fsTree draws a folder of an fs.FS in FolderStructure's layout (files
// before folders, each in name order), for skills that live in memory.
func fsTree(fsys fs.FS, dir string, maxItems int) string {
	var lines []string
	items, cut := 0, false
	var walk func(d, indent string)
	walk = func(d, indent string) {
		entries, err := fs.ReadDir(fsys, d)
		if err != nil {
			return
		}
		sort.SliceStable(entries, func(i, j int) bool {
			if entries[i].IsDir() != entries[j].IsDir() {
				return !entries[i].IsDir()
			}
			return entries[i].Name() < entries[j].Name()
		})
		for i, e := range entries {
			if items >= maxItems {
				cut = true
				lines = append(lines, indent+"└───...")
				return
			}
			items++
			branch, next := "├───", "│   "
			if i == len(entries)-1 {
				branch, next = "└───", "    "
			}
			if e.IsDir() {
				lines = append(lines, indent+branch+e.Name()+"/")
				walk(path.Join(d, e.Name()), indent+next)
				continue
			}
			lines = append(lines, indent+branch+e.Name())
		}
	}
	walk(dir, "")
	header := fmt.Sprintf("Showing up to %d items (files + folders).", maxItems)
	if cut {
		header = fmt.Sprintf("Showing up to %d items (files + folders). Folders or files indicated with ... contain more items not shown, were ignored, or the display limit (%d items) was reached.", maxItems, maxItems)
	}
	return header + "\n\n" + dir + "/\n" + strings.Join(lines, "\n")
}
