// Package subagents implements Gemini CLI's local subagents: Markdown
// definitions (YAML front matter, the body being the system prompt)
// discovered from the workspace, the user's folder and extensions, the
// "Available Sub-Agents" section of the system instruction, and the
// invoke_agent tool, which runs a subagent's own turn loop on the engine
// until it calls complete_task.
//
// A subagent's stats join the invoking session's call by call
// (agent.Config.OnStats → Session.AddStats, role subagent), so /stats
// shows a subagent that is still running.
package subagents

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/frontmatter"
	"github.com/castor-dev/castor/internal/lazy"
)

// Defaults, as Gemini CLI's.
const (
	DefaultMaxTurns    = 30
	DefaultTimeout     = 10 * time.Minute
	DefaultTemperature = 1.0
)

// Definition is one subagent.
type Definition struct {
	// Name is what the model passes as agent_name (a slug).
	Name        string
	Description string
	DisplayName string
	// Tools names the parent's tools the subagent may use; "*" is all of
	// them, "mcp_*" every MCP tool, "mcp_<server>_*" one server's. Nil
	// inherits every tool.
	Tools []string
	// Model is the model to ask ("" or "inherit": the parent's).
	Model string
	// Temperature is the sampling temperature (nil: DefaultTemperature).
	Temperature *float64
	// MaxTurns bounds the model calls (≤0: DefaultMaxTurns); Timeout the
	// run (≤0: DefaultTimeout).
	MaxTurns int
	Timeout  time.Duration
	// SystemPrompt is the definition's body; ${query} and the other
	// placeholders Gemini CLI fills are replaced.
	SystemPrompt string
	// Instructions, when set, computes the system prompt before each of
	// the subagent's model calls instead (programs using the SDK).
	Instructions func(Info) string
	// Run, when set, answers the invocation itself instead of a turn loop
	// (an SDK agent standing in as a subagent).
	Run func(ctx context.Context, prompt string) (string, error)
	// File is where the definition was read from ("" when given in code).
	File string
}

// Info is what dynamic instructions learn about the run they serve.
type Info struct {
	// Prompt is the task the parent gave.
	Prompt    string
	SessionID string
	WorkDir   string
	Timestamp time.Time
	// Transcript is the subagent's conversation so far.
	Transcript []*genai.Content
}

func (d *Definition) withDefaults() *Definition {
	c := *d
	if c.MaxTurns <= 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	return &c
}

// frontMatter is the local-agent schema of Gemini CLI; unknown keys are
// refused, as its strict schema refuses them.
type frontMatter struct {
	Kind          string         `yaml:"kind"`
	Name          *string        `yaml:"name"`
	Description   *string        `yaml:"description"`
	DisplayName   string         `yaml:"display_name"`
	Tools         []string       `yaml:"tools"`
	MCPServers    map[string]any `yaml:"mcp_servers"`
	Model         string         `yaml:"model"`
	Temperature   *float64       `yaml:"temperature"`
	MaxTurns      *int           `yaml:"max_turns"`
	TimeoutMins   *int           `yaml:"timeout_mins"`
	AgentCardURL  string         `yaml:"agent_card_url"`
	AgentCardJSON string         `yaml:"agent_card_json"`
	Auth          any            `yaml:"auth"`
}

var slug = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-_]+$`) }}

// LoadError is a definition file that cannot be used, worded as Gemini
// CLI's ("Failed to load agent from <file>: …").
type LoadError struct {
	File string
	Err  error
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("Failed to load agent from %s: %v", e.File, e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

// Parse reads a definition file. Problems are *LoadError values naming
// the file (and the line, for YAML errors).
func Parse(data []byte, file string) (*Definition, error) {
	fail := func(line int, format string, args ...any) error {
		return &LoadError{File: file, Err: &frontmatter.Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}}
	}
	front, body, ok := frontmatter.Split(string(data))
	if !ok {
		return nil, fail(1, `missing mandatory YAML front matter: agent Markdown files must start with front matter enclosed in "---" lines (e.g. ---\nname: my-agent\n---)`)
	}
	var fm frontMatter
	if err := frontmatter.Decode(file, front, &fm, true); err != nil {
		return nil, &LoadError{File: file, Err: err}
	}
	if fm.Kind == "remote" || fm.AgentCardURL != "" || fm.AgentCardJSON != "" || fm.Auth != nil {
		return nil, fail(1, "remote (A2A) subagents are not supported by Castor yet")
	}
	if fm.Kind != "" && fm.Kind != "local" {
		return nil, fail(1, "kind must be \"local\" or \"remote\", not %q", fm.Kind)
	}
	switch {
	case fm.Name == nil:
		return nil, fail(1, "name: Required")
	case !slug.Get().MatchString(*fm.Name):
		return nil, fail(1, "name: Name must be a valid slug (lowercase letters, digits, - and _), not %q", *fm.Name)
	case fm.Description == nil:
		return nil, fail(1, "description: Required")
	case strings.TrimSpace(*fm.Description) == "":
		return nil, fail(1, "description: must not be empty")
	case fm.MaxTurns != nil && *fm.MaxTurns <= 0:
		return nil, fail(1, "max_turns: must be a positive integer")
	case fm.TimeoutMins != nil && *fm.TimeoutMins <= 0:
		return nil, fail(1, "timeout_mins: must be a positive integer")
	}
	for _, t := range fm.Tools {
		if !validToolName(t) {
			return nil, fail(1, "tools: Invalid tool name %q", t)
		}
	}
	if len(fm.MCPServers) > 0 {
		return nil, fail(1, "mcp_servers: subagent-specific MCP servers are not supported by Castor yet")
	}
	d := &Definition{
		Name:         *fm.Name,
		Description:  *fm.Description,
		DisplayName:  fm.DisplayName,
		Tools:        fm.Tools,
		Model:        fm.Model,
		Temperature:  fm.Temperature,
		SystemPrompt: strings.TrimSpace(body),
		File:         file,
	}
	if fm.MaxTurns != nil {
		d.MaxTurns = *fm.MaxTurns
	}
	if fm.TimeoutMins != nil {
		d.Timeout = time.Duration(*fm.TimeoutMins) * time.Minute
	}
	return d, nil
}

var toolName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_.:*-]+$`) }}

func validToolName(s string) bool { return toolName.Get().MatchString(s) }

// LoadDir loads dir/*.md, skipping files whose name starts with "_", in
// name order. A missing dir holds no definitions; each file that cannot
// be loaded gives an error and is skipped.
func LoadDir(dir string) ([]*Definition, []error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{&LoadError{File: dir, Err: fmt.Errorf("could not list directory: %w", err)}}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var defs []*Definition
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), "_") || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, &LoadError{File: p, Err: fmt.Errorf("could not read file: %w", err)})
			continue
		}
		d, err := Parse(data, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		defs = append(defs, d)
	}
	return defs, errs
}

// Sources are the places definitions are discovered from.
type Sources struct {
	// Workspace is the workspace root (.gemini/agents), read only when
	// Trusted.
	Workspace string
	Trusted   bool
	// Home is the user's home directory (~/.gemini/agents).
	Home string
	// Extensions are the root folders of active extensions (agents/).
	Extensions []string
}

// Discover loads definitions in Gemini CLI's order: the workspace's, the
// user's, then the extensions'. The first definition of a name wins; later
// ones are reported and ignored, as are files that cannot be loaded.
func Discover(src Sources) ([]*Definition, []string) {
	var dirs []string
	var warnings []string
	if src.Workspace != "" {
		if src.Trusted {
			dirs = append(dirs, filepath.Join(src.Workspace, ".gemini", "agents"))
		} else if _, err := os.Stat(filepath.Join(src.Workspace, ".gemini", "agents")); err == nil {
			warnings = append(warnings, "Skipping project agents due to untrusted folder. To enable, ensure that the project root is trusted.")
		}
	}
	if src.Home != "" {
		dirs = append(dirs, filepath.Join(src.Home, ".gemini", "agents"))
	}
	for _, e := range src.Extensions {
		dirs = append(dirs, filepath.Join(e, "agents"))
	}
	var defs []*Definition
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen["dir:"+d] {
			continue
		}
		seen["dir:"+d] = true
		found, errs := LoadDir(d)
		for _, err := range errs {
			warnings = append(warnings, "Agent loading error: "+err.Error())
		}
		var warn []string
		defs, warn = Merge(defs, found)
		warnings = append(warnings, warn...)
	}
	return defs, warnings
}

// Merge adds definitions whose names are not taken yet and warns about
// the others, as Gemini CLI's registry does.
func Merge(defs, more []*Definition) ([]*Definition, []string) {
	var warnings []string
	for _, d := range more {
		taken := false
		for _, o := range defs {
			if o.Name == d.Name {
				taken = true
			}
		}
		if taken {
			warnings = append(warnings, fmt.Sprintf("Duplicate agent name '%s' detected. The later definition will be ignored. Rename one of the agents to avoid this conflict.", d.Name))
			continue
		}
		defs = append(defs, d)
	}
	return defs, warnings
}

// Section returns the "Available Sub-Agents" part of the system
// instruction, worded as Gemini CLI's, or "" without subagents.
func Section(defs []*Definition) string {
	if len(defs) == 0 {
		return ""
	}
	var list []string
	for _, d := range defs {
		list = append(list, "- "+d.Name+" -> "+d.Description)
	}
	return "# Available Sub-Agents\n" +
		"Sub-agents are specialized expert agents that you can use to assist you in the completion of all or part of a task.\n\n" +
		"You can invoke sub-agents using the `" + ToolName + "` tool by passing their name to the `agent_name` parameter. You MUST always delegate tasks to the sub-agent with the relevant expertise, if one is available.\n\n" +
		"The following sub-agents are available:\n\n" +
		strings.Join(list, "\n") + "\n\n" +
		"Remember that the closest relevant sub-agent should still be used even if its expertise is broader than the given task.\n\n" +
		"For example:\n" +
		"- A license-agent -> Should be used for a range of tasks, including reading, validating, and updating licenses and headers.\n" +
		"- A test-fixing-agent -> Should be used both for fixing tests as well as investigating test failures."
}

// Validate checks a definition given in code (the SDK's) as files are
// checked: a slug name and a description.
func (d *Definition) Validate() error {
	switch {
	case !slug.Get().MatchString(d.Name):
		return fmt.Errorf("subagent %q: name must be a valid slug (lowercase letters, digits, - and _)", d.Name)
	case strings.TrimSpace(d.Description) == "":
		return fmt.Errorf("subagent %q: description is required", d.Name)
	}
	for _, t := range d.Tools {
		if !validToolName(t) {
			return fmt.Errorf("subagent %q: invalid tool name %q", d.Name, t)
		}
	}
	return nil
}
