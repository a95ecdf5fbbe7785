package command

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/castor-dev/castor/internal/lazy"
	"google.golang.org/genai"
)

// The placeholders of a custom command's prompt, as Gemini CLI spells
// them.
const (
	ArgsPlaceholder = "{{args}}"
	ShellTrigger    = "!{"
	FileTrigger     = "@{"
)

// Scopes of custom commands.
const (
	ScopeUser      = "user"
	ScopeProject   = "project"
	ScopeExtension = "extension"
)

// FileCommand is a custom command read from a .toml file: its prompt is
// a template expanded with the user's arguments, shell output (!{…}) and
// file contents (@{…}).
type FileCommand struct {
	// Name is the command name: the file's path below its commands folder
	// without .toml, with ":" between folders ("git/commit.toml" is
	// "git:commit").
	Name        string
	Description string
	Prompt      string
	// File is the .toml file ("" for a command given in code).
	File string
	// Scope is ScopeUser, ScopeProject or ScopeExtension; Extension names
	// the extension of an extension's command.
	Scope     string
	Extension string
}

// CommandDir is a folder of .toml commands.
type CommandDir struct {
	Path      string
	Scope     string
	Extension string
}

// tomlCommand is a command file's schema.
type tomlCommand struct {
	Prompt      *string `toml:"prompt"`
	Description string  `toml:"description"`
}

var nameUnsafe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_\-.]`) }}

// CommandName turns a file's path relative to its commands folder into a
// command name, as Gemini CLI does: folders joined by ":", characters
// other than letters, digits, "_", "-" and "." replaced by "_", each
// segment cut to 50 characters.
func CommandName(rel string) string {
	rel = strings.TrimSuffix(filepath.ToSlash(rel), ".toml")
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		s = nameUnsafe.Get().ReplaceAllString(s, "_")
		if len(s) > 50 {
			s = s[:47] + "..."
		}
		segs[i] = s
	}
	return strings.Join(segs, ":")
}

// ParseFileCommand parses the .toml command file (data) found at rel
// below its commands folder. Errors name the file and the line.
func ParseFileCommand(file, rel string, data []byte) (*FileCommand, error) {
	var tc tomlCommand
	md, err := toml.Decode(string(data), &tc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: invalid TOML: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: invalid TOML: %v", file, err)
	}
	if tc.Prompt == nil {
		if md.IsDefined("prompt") {
			return nil, fmt.Errorf("%s: the 'prompt' field must be a string", file)
		}
		return nil, fmt.Errorf("%s: the 'prompt' field is required", file)
	}
	fc := &FileCommand{Name: CommandName(rel), Description: tc.Description, Prompt: *tc.Prompt, File: file}
	if err := fc.Validate(); err != nil {
		var ie *InjectionError
		if errors.As(err, &ie) {
			return nil, fmt.Errorf("%s:%d: %s", file, promptLine(data, *tc.Prompt, ie.Offset), ie.Msg)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return fc, nil
}

var promptKey = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*"?prompt"?[ \t]*=[ \t]*`) }}

// promptLine finds the file line of the prompt's byte offset: the line of
// "prompt =" plus the lines before offset (one more when a multi-line
// string starts on the next line).
func promptLine(data []byte, prompt string, offset int) int {
	loc := promptKey.Get().FindIndex(data)
	if loc == nil {
		return 1
	}
	line := strings.Count(string(data[:loc[0]]), "\n") + 1
	rest := string(data[loc[1]:])
	if (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, `'''`)) && len(rest) > 3 && (rest[3] == '\n' || strings.HasPrefix(rest[3:], "\r\n")) {
		line++
	}
	if offset > len(prompt) {
		offset = len(prompt)
	}
	return line + strings.Count(prompt[:offset], "\n")
}

// Validate checks the prompt's template: every !{…} and @{…} closed.
func (f *FileCommand) Validate() error {
	for _, t := range []string{ShellTrigger, FileTrigger} {
		if _, err := Injections(f.Prompt, t); err != nil {
			return err
		}
	}
	return nil
}

// Injection is one !{…} or @{…} in a prompt.
type Injection struct {
	// Content is the trimmed text between the braces.
	Content string
	// Start and End are the byte offsets of the trigger and just past
	// the closing brace.
	Start, End int
}

// InjectionError is an unclosed injection.
type InjectionError struct {
	Offset int
	Msg    string
}

func (e *InjectionError) Error() string { return e.Msg }

// Injections finds the injections of trigger ("!{" or "@{") in s.
// Braces nest, so "!{echo {a,b}}" is one injection; an unclosed one is
// an error, as in Gemini CLI.
func Injections(s, trigger string) ([]Injection, error) {
	var out []Injection
	i := 0
	for i < len(s) {
		start := strings.Index(s[i:], trigger)
		if start < 0 {
			break
		}
		start += i
		depth := 1
		j := start + len(trigger)
		for ; j < len(s); j++ {
			if s[j] == '{' {
				depth++
			} else if s[j] == '}' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if depth != 0 {
			return nil, &InjectionError{Offset: start, Msg: fmt.Sprintf("invalid syntax: unclosed injection starting at %q ('%s'); ensure braces are balanced", excerpt(s[start:]), trigger)}
		}
		out = append(out, Injection{Content: strings.TrimSpace(s[start+len(trigger) : j]), Start: start, End: j + 1})
		i = j + 1
	}
	return out, nil
}

func excerpt(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// LoadFileCommands reads every **/*.toml below each dir (a missing dir
// is skipped). Broken files are returned as errors naming file and line;
// the other commands still load.
func LoadFileCommands(dirs []CommandDir) ([]*FileCommand, []error) {
	var cmds []*FileCommand
	var errs []error
	for _, d := range dirs {
		var files []string
		err := filepath.WalkDir(d.Path, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if p == d.Path {
					return err
				}
				return nil
			}
			if e.IsDir() {
				return nil
			}
			if strings.HasSuffix(e.Name(), ".toml") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("loading commands from %s: %w", d.Path, err))
			}
			continue
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			rel, _ := filepath.Rel(d.Path, f)
			fc, err := ParseFileCommand(f, rel, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			fc.Scope, fc.Extension = d.Scope, d.Extension
			cmds = append(cmds, fc)
		}
	}
	return cmds, errs
}

// Resolve orders commands as Gemini CLI does: user commands, then project
// commands replacing user ones of the same name, then extension commands,
// which never replace another command: a clash renames the extension's
// to "<extension>.<name>" (with a number added while that is taken too).
// taken reports names already used by other commands (built-ins), which
// extension commands also avoid. ResolveConflicts also says what was
// renamed.
func Resolve(cmds []*FileCommand, taken func(string) bool) []*FileCommand {
	out, _ := ResolveConflicts(cmds, taken)
	return out
}

// Conflict is an extension command renamed because its name was taken.
type Conflict struct {
	// Name is the command's own name, RenamedTo the name it got.
	Name, RenamedTo string
	// Extension is the renamed command's extension.
	Extension string
	// Winner is what holds Name: a *FileCommand, or nil for a built-in.
	Winner *FileCommand
}

// String is Gemini CLI's notice of the rename.
func (c Conflict) String() string {
	winner := "built-in command"
	switch {
	case c.Winner == nil:
	case c.Winner.Scope == ScopeExtension:
		winner = fmt.Sprintf("extension '%s' command", c.Winner.Extension)
	case c.Winner.Scope == ScopeUser:
		winner = "user command"
	default:
		winner = "workspace command"
	}
	return fmt.Sprintf("Command '/%s' from extension '%s' command was renamed to '/%s' because it conflicts with %s.", c.Name, c.Extension, c.RenamedTo, winner)
}

// ResolveConflicts is Resolve, returning the renames too.
func ResolveConflicts(cmds []*FileCommand, taken func(string) bool) ([]*FileCommand, []Conflict) {
	rank := func(c *FileCommand) int {
		switch c.Scope {
		case ScopeUser:
			return 0
		case ScopeExtension:
			return 2
		}
		return 1
	}
	ordered := append([]*FileCommand(nil), cmds...)
	sort.SliceStable(ordered, func(i, j int) bool { return rank(ordered[i]) < rank(ordered[j]) })
	byName := map[string]int{}
	used := func(n string) bool {
		_, ok := byName[n]
		return ok || (taken != nil && taken(n))
	}
	var out []*FileCommand
	var conflicts []Conflict
	for _, c := range ordered {
		if c.Scope == ScopeExtension && used(c.Name) {
			conflict := Conflict{Name: c.Name, Extension: c.Extension}
			if i, ok := byName[c.Name]; ok {
				conflict.Winner = out[i]
			}
			renamed := c.Extension + "." + c.Name
			for n := 1; used(renamed); n++ {
				renamed = fmt.Sprintf("%s.%s%d", c.Extension, c.Name, n)
			}
			cp := *c
			cp.Name = renamed
			c = &cp
			conflict.RenamedTo = renamed
			conflicts = append(conflicts, conflict)
		}
		if i, ok := byName[c.Name]; ok {
			out[i] = c
			continue
		}
		byName[c.Name] = len(out)
		out = append(out, c)
	}
	return out, conflicts
}

// Injector performs what a prompt's injections ask for. The assembly's
// injector runs shell commands through the session's shell tool, so they
// obey its policy and confirmations, and reads files with the session's
// file reader.
type Injector interface {
	// CheckShell decides about every command before any runs: nil when
	// all may run, else an error saying which is refused or needs a
	// confirmation nobody can give.
	CheckShell(ctx context.Context, commands []string) error
	// RunShell runs one command and returns what the prompt receives.
	RunShell(ctx context.Context, command string) (string, error)
	// ReadPath returns a file's or folder's contents for the prompt; no
	// parts means it is ignored (.gitignore, .geminiignore).
	ReadPath(ctx context.Context, path string) ([]*genai.Part, error)
}

// Expand builds the prompt for the invocation line raw ("/name args…")
// whose arguments are args: @{path} contents, then {{args}} (shell-quoted
// inside !{…}) and shell output, then — when the prompt has no {{args}}
// but the user gave arguments — the whole invocation appended after a
// blank line, which is Gemini CLI's rule. Only the command's own template
// is expanded: text read from files or printed by commands is never
// searched for further injections.
func (f *FileCommand) Expand(ctx context.Context, raw, args string, inj Injector) ([]*genai.Part, error) {
	usesArgs := strings.Contains(f.Prompt, ArgsPlaceholder)
	// Segments of the template, each either literal template text or
	// injected parts.
	type seg struct {
		text     string
		parts    []*genai.Part
		template bool
	}
	segs := []seg{{text: f.Prompt, template: true}}
	if strings.Contains(f.Prompt, FileTrigger) {
		injs, err := Injections(f.Prompt, FileTrigger)
		if err != nil {
			return nil, fmt.Errorf("command /%s: %w", f.Name, err)
		}
		segs = nil
		last := 0
		for _, in := range injs {
			if in.Start > last {
				segs = append(segs, seg{text: f.Prompt[last:in.Start], template: true})
			}
			parts, err := inj.ReadPath(ctx, in.Content)
			if err != nil {
				return nil, fmt.Errorf("command /%s: failed to inject content for '@{%s}': %w", f.Name, in.Content, err)
			}
			segs = append(segs, seg{parts: parts})
			last = in.End
		}
		if last < len(f.Prompt) {
			segs = append(segs, seg{text: f.Prompt[last:], template: true})
		}
	}
	// Shell injections: all are checked before any runs.
	var commands []string
	type shellSeg struct {
		injs []Injection
	}
	shells := make([]shellSeg, len(segs))
	for i, s := range segs {
		if !s.template || !strings.Contains(s.text, ShellTrigger) {
			continue
		}
		injs, err := Injections(s.text, ShellTrigger)
		if err != nil {
			return nil, fmt.Errorf("command /%s: %w", f.Name, err)
		}
		shells[i].injs = injs
		for _, in := range injs {
			if in.Content != "" {
				commands = append(commands, strings.ReplaceAll(in.Content, ArgsPlaceholder, ShellQuote(args)))
			}
		}
	}
	if len(commands) > 0 {
		if err := inj.CheckShell(ctx, commands); err != nil {
			return nil, fmt.Errorf("command /%s: %w", f.Name, err)
		}
	}
	var parts []*genai.Part
	for i, s := range segs {
		if !s.template {
			parts = append(parts, s.parts...)
			continue
		}
		if !usesArgs && len(shells[i].injs) == 0 {
			parts = append(parts, genai.NewPartFromText(s.text))
			continue
		}
		var b strings.Builder
		last := 0
		for _, in := range shells[i].injs {
			b.WriteString(strings.ReplaceAll(s.text[last:in.Start], ArgsPlaceholder, args))
			last = in.End
			if in.Content == "" {
				continue
			}
			out, err := inj.RunShell(ctx, strings.ReplaceAll(in.Content, ArgsPlaceholder, ShellQuote(args)))
			if err != nil {
				return nil, fmt.Errorf("command /%s: %w", f.Name, err)
			}
			b.WriteString(out)
		}
		b.WriteString(strings.ReplaceAll(s.text[last:], ArgsPlaceholder, args))
		parts = append(parts, genai.NewPartFromText(b.String()))
	}
	if !usesArgs && args != "" {
		if n := len(parts); n > 0 && parts[n-1].Text != "" {
			parts[n-1] = genai.NewPartFromText(parts[n-1].Text + "\n\n" + raw)
		} else {
			parts = append(parts, genai.NewPartFromText("\n\n"+raw))
		}
	}
	return parts, nil
}

// ShellQuote quotes s as one word for a POSIX shell.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command returns the command as the registry holds it: it answers with
// the expanded prompt for the face to send (ResultSubmitPrompt). Parts
// that are not text (an image read by @{…}) cannot travel in a Result;
// faces that send prompts themselves use Expand through
// setup.Agent.ExpandPrompt instead.
func (f *FileCommand) Command(inj func(Env) Injector) *Command {
	desc := f.Description
	if desc == "" {
		desc = "Custom command from " + filepath.Base(f.File)
	}
	if f.Extension != "" {
		desc = "[" + f.Extension + "] " + desc
	}
	return &Command{
		Name:        f.Name,
		Description: desc,
		Execute: func(ctx context.Context, inv *Invocation) (*Result, error) {
			args := strings.Join(inv.Args, " ")
			raw := "/" + strings.TrimSpace(strings.Join(append(append([]string(nil), inv.Path...), inv.Args...), " "))
			parts, err := f.Expand(ctx, raw, args, inj(inv.Env))
			if err != nil {
				return nil, err
			}
			var texts []string
			for _, p := range parts {
				if p.Text != "" {
					texts = append(texts, p.Text)
				}
			}
			return &Result{Kind: ResultSubmitPrompt, Content: strings.Join(texts, "")}, nil
		},
	}
}
