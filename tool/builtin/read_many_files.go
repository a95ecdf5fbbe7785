package builtin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/tool"
)

// rmfDefaultExcludes are Gemini CLI's default exclusions for
// read_many_files: dependency and VCS directories, build output, binaries
// that are never useful as text, and the context files (GEMINI.md) that
// are already in the model's context.
var rmfDefaultExcludes = []string{
	"**/node_modules/**", "**/.git/**", "**/bower_components/**", "**/.svn/**", "**/.hg/**",
	"**/.vscode/**", "**/.idea/**", "**/dist/**", "**/build/**", "**/coverage/**", "**/__pycache__/**",
	"**/*.bin", "**/*.exe", "**/*.dll", "**/*.so", "**/*.dylib", "**/*.class", "**/*.jar", "**/*.war",
	"**/*.zip", "**/*.tar", "**/*.gz", "**/*.bz2", "**/*.rar", "**/*.7z", "**/*.pak", "**/*.rpa",
	"**/*.doc", "**/*.docx", "**/*.xls", "**/*.xlsx", "**/*.ppt", "**/*.pptx", "**/*.odt", "**/*.ods", "**/*.odp",
	"**/*.pyc", "**/*.pyo",
	"**/.DS_Store", "**/.env",
	"**/GEMINI.md",
}

const (
	// rmfSeparator heads each text file's content; {filePath} is the
	// absolute path.
	rmfSeparator = "--- {filePath} ---"
	// rmfTerminator follows the last file.
	rmfTerminator = "\n--- End of content ---"
	// rmfNothing is the whole answer when no file was read.
	rmfNothing = "No files matching the criteria were found or all were skipped."
	// rmfTruncatedWarning precedes a file shown only in part.
	rmfTruncatedWarning = "[WARNING: This file was truncated. To view the full content, use the 'read_file' tool on this specific file.]\n\n"
)

// ReadManyFilesTool is read_many_files: it expands paths and glob patterns
// inside the workspace and returns the text files concatenated, plus
// images, PDFs and audio the patterns name explicitly.
type ReadManyFilesTool struct{ env *Env }

var (
	_ tool.Tool          = (*ReadManyFilesTool)(nil)
	_ tool.ArgNormalizer = (*ReadManyFilesTool)(nil)
)

// NewReadManyFiles returns the read_many_files tool.
func NewReadManyFiles(env *Env) tool.Tool { return &ReadManyFilesTool{env: env} }

// Name is "read_many_files".
func (t *ReadManyFilesTool) Name() string { return "read_many_files" }

// DisplayName is "ReadManyFiles".
func (t *ReadManyFilesTool) DisplayName() string { return "ReadManyFiles" }

// Kind is read.
func (t *ReadManyFilesTool) Kind() tool.Kind { return tool.KindRead }

// Description says what the tool returns and when to prefer it.
func (t *ReadManyFilesTool) Description() string {
	return `Reads several files at once, given as paths or glob patterns relative to the workspace (e.g. 'src/**/*.go', 'docs/'), and returns their text joined, each headed by '--- <path> ---', ending with '--- End of content ---'. Use it for an overview of a part of the code base, or when several files are needed together; use read_file for a single file. Images and PDFs are returned only when named explicitly; other binary files, common dependency folders and ignored files are skipped (useDefaultExcludes).`
}

// Schema is the spec's (paths required). Today's form, with include
// required and no paths, is accepted through NormalizeArgs.
func (t *ReadManyFilesTool) Schema() map[string]any {
	patterns := func(desc string, minItems bool) map[string]any {
		s := map[string]any{
			"type":        "array",
			"items":       map[string]any{"type": "string", "minLength": 1},
			"description": desc,
		}
		if minItems {
			s["minItems"] = 1
		} else {
			s["default"] = []any{}
		}
		return s
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"paths":   patterns("Glob patterns or paths relative to the workspace, e.g. ['src/**/*.ts'], ['README.md', 'docs/'].", true),
			"include": patterns("More glob patterns, merged with paths.", false),
			"exclude": patterns("Glob patterns to leave out, e.g. '**/*.log'.", false),
			"recursive": map[string]any{
				"type":        "boolean",
				"description": "Search recursively (mostly decided by ** in patterns). Default true.",
				"default":     true,
			},
			"useDefaultExcludes": map[string]any{
				"type":        "boolean",
				"description": "Skip node_modules, .git, binary files and the like. Default true.",
				"default":     true,
			},
			"file_filtering_options": map[string]any{
				"type":        "object",
				"description": "Whether to respect ignore patterns from .gitignore or .geminiignore",
				"properties": map[string]any{
					"respect_git_ignore": map[string]any{
						"type":        "boolean",
						"description": "Optional: Whether to respect .gitignore patterns when listing files. Only available in git repositories. Defaults to true.",
					},
					"respect_gemini_ignore": map[string]any{
						"type":        "boolean",
						"description": "Optional: Whether to respect .geminiignore patterns when listing files. Defaults to true.",
					},
				},
			},
		},
		"required": []any{"paths"},
	}
}

// NormalizeArgs maps today's form (include required, no paths) onto the
// spec's: the include patterns become the paths.
func (t *ReadManyFilesTool) NormalizeArgs(args map[string]any) map[string]any {
	if _, ok := args["paths"]; ok {
		return args
	}
	inc, ok := args["include"]
	if !ok {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		if k != "include" {
			out[k] = v
		}
	}
	out["paths"] = inc
	return out
}

// rmfParams are read_many_files' arguments.
type rmfParams struct {
	Paths              []string `json:"paths"`
	Include            []string `json:"include"`
	Exclude            []string `json:"exclude"`
	Recursive          *bool    `json:"recursive"`
	UseDefaultExcludes *bool    `json:"useDefaultExcludes"`
	Filtering          *struct {
		RespectGitIgnore    *bool `json:"respect_git_ignore"`
		RespectGeminiIgnore *bool `json:"respect_gemini_ignore"`
	} `json:"file_filtering_options"`
}

// Build decodes the arguments.
func (t *ReadManyFilesTool) Build(args map[string]any) (tool.Call, error) {
	var p rmfParams
	if err := argsDecode(args, &p); err != nil {
		return nil, &tool.Error{Type: tool.ErrInvalidParams, Message: err.Error()}
	}
	if len(p.Paths)+len(p.Include) == 0 {
		return nil, &tool.Error{Type: tool.ErrInvalidParams, Message: "params must have required property 'paths'"}
	}
	return &rmfCall{env: t.env, p: p}, nil
}

type rmfCall struct {
	env *Env
	p   rmfParams
}

// patterns are all the patterns to expand, paths first.
func (c *rmfCall) patterns() []string {
	return append(append([]string(nil), c.p.Paths...), c.p.Include...)
}

// excludes are the exclusion patterns in effect.
func (c *rmfCall) excludes() []string {
	var out []string
	if c.p.UseDefaultExcludes == nil || *c.p.UseDefaultExcludes {
		out = append(out, rmfDefaultExcludes...)
	}
	return append(out, c.p.Exclude...)
}

// Describe lists the patterns and exclusions.
func (c *rmfCall) Describe() string {
	ex := c.excludes()
	exDesc := "none specified"
	if len(ex) > 0 {
		exDesc = "patterns like `" + strings.Join(ex[:min(2, len(ex))], "`, `") + "`"
		if len(ex) > 2 {
			exDesc += "..."
		}
	}
	return fmt.Sprintf("Will attempt to read and concatenate files using patterns: `%s` (within target directory: `%s`). Excluding: %s. File encoding: utf-8. Separator: %q.",
		strings.Join(c.patterns(), "`, `"), c.env.workspaceRoot(), exDesc, strings.ReplaceAll(rmfSeparator, "{filePath}", "path/to/file.ext"))
}

// Confirmation is nil: the call only reads inside the workspace.
func (c *rmfCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

// rmfSkip is a file left out, with why.
type rmfSkip struct{ path, reason string }

// Execute expands the patterns in every workspace directory, reads the
// files in path order and assembles the parts.
func (c *rmfCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	files, skipped, err := c.find(ctx)
	if err != nil {
		msg := "Error during file search: " + err.Error()
		return &tool.Result{LLMText: msg, Display: "Error: " + err.Error(), Error: &tool.Error{Type: tool.ErrReadManyFilesSearchError, Message: msg}}
	}
	var parts []*genai.Part
	var read []string
	for _, abs := range files {
		if ctx.Err() != nil {
			return tool.Fail(tool.ErrCancelled, "read_many_files was cancelled.")
		}
		rel := c.env.relPath(abs)
		switch detectFileType(abs) {
		case fileImage, filePDF, fileAudio, fileVideo:
			if !c.requested(abs) {
				skipped = append(skipped, rmfSkip{rel, "asset file (image/pdf/audio) was not explicitly requested by name or extension"})
				continue
			}
		}
		fc := c.env.readFileForModel(abs, 0, 0)
		if fc.Err != nil {
			skipped = append(skipped, rmfSkip{rel, "Read error: " + fc.Err.Message})
			continue
		}
		if fc.Part != nil {
			parts = append(parts, fc.Part)
		} else {
			text := fc.Text
			if fc.Window != nil && fc.Window.Truncated() {
				text = rmfTruncatedWarning + text
			}
			parts = append(parts, &genai.Part{Text: strings.ReplaceAll(rmfSeparator, "{filePath}", abs) + "\n\n" + text + "\n\n"})
		}
		read = append(read, rel)
	}
	if len(parts) > 0 {
		parts = append(parts, &genai.Part{Text: rmfTerminator})
	} else {
		parts = append(parts, &genai.Part{Text: rmfNothing})
	}
	return &tool.Result{LLMParts: parts, Display: c.summary(read, skipped)}
}

// requested reports whether a media file was asked for by extension or by
// name, the condition for sending its bytes to the model.
func (c *rmfCall) requested(abs string) bool {
	ext := strings.ToLower(filepath.Ext(abs))
	stem := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	for _, p := range c.patterns() {
		if (ext != "" && strings.Contains(strings.ToLower(p), ext)) || strings.Contains(p, stem) {
			return true
		}
	}
	return false
}

// find expands the patterns in every workspace directory. A pattern naming
// an existing file matches it literally (brackets in file names are common
// and must not be read as globs); one naming a directory means its files,
// recursively unless recursive is false; anything else is a glob matched
// case-insensitively, dot files included. Excluded and ignored directories
// are not descended into.
func (c *rmfCall) find(ctx context.Context) ([]string, []rmfSkip, error) {
	respectGit, respectGemini := true, true
	if f := c.p.Filtering; f != nil {
		if f.RespectGitIgnore != nil {
			respectGit = *f.RespectGitIgnore
		}
		if f.RespectGeminiIgnore != nil {
			respectGemini = *f.RespectGeminiIgnore
		}
	}
	filter := c.env.fileFilter(tool.FilterOptions{RespectGitIgnore: respectGit, RespectGeminiIgnore: respectGemini})
	excludes := make([]string, 0, len(c.excludes()))
	for _, e := range c.excludes() {
		e = strings.ToLower(filepath.ToSlash(e))
		if strings.HasSuffix(e, "/") {
			e += "**"
		}
		if !doublestar.ValidatePattern(e) {
			return nil, nil, fmt.Errorf("invalid exclude pattern %q", e)
		}
		excludes = append(excludes, e)
	}
	excluded := func(rel string) bool {
		rel = strings.ToLower(rel)
		for _, e := range excludes {
			if doublestar.MatchUnvalidated(e, rel) {
				return true
			}
		}
		return false
	}
	recursive := c.p.Recursive == nil || *c.p.Recursive

	var dirs []string
	if c.env != nil && c.env.Workspace != nil {
		dirs = c.env.Workspace.Dirs()
	}
	found := map[string]bool{}
	ignored := 0
	var skipped []rmfSkip
	for _, dir := range dirs {
		for _, raw := range c.patterns() {
			pat := filepath.ToSlash(raw)
			if filepath.IsAbs(raw) {
				r, err := filepath.Rel(dir, filepath.Clean(raw))
				if err != nil || r == ".." || strings.HasPrefix(r, "../") {
					continue
				}
				pat = filepath.ToSlash(r)
			}
			pat = strings.TrimPrefix(pat, "./")
			full := filepath.Join(dir, filepath.FromSlash(pat))
			if fi, err := os.Stat(full); err == nil {
				if !fi.IsDir() {
					rel := filepath.ToSlash(pat)
					switch {
					case excluded(rel):
					case isIgnored(filter, full, false):
						ignored++
					default:
						found[full] = true
					}
					continue
				}
				pat = strings.TrimSuffix(pat, "/")
				if pat == "." || pat == "" {
					pat = ""
				} else {
					pat += "/"
				}
				if recursive {
					pat += "**"
				} else {
					pat += "*"
				}
			}
			lower := strings.ToLower(pat)
			if !doublestar.ValidatePattern(lower) {
				return nil, nil, fmt.Errorf("invalid pattern %q", raw)
			}
			base, _ := doublestar.SplitPattern(pat)
			root := filepath.Join(dir, filepath.FromSlash(base))
			if base == "." {
				root = dir
			}
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					// Unreadable entries are skipped, not fatal: the rest of
					// the tree is still worth reading.
					if d != nil && d.IsDir() && p != root {
						return fs.SkipDir
					}
					return nil
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r, rerr := filepath.Rel(dir, p)
				if rerr != nil {
					return nil
				}
				rel := filepath.ToSlash(r)
				if d.IsDir() {
					if p != root && (excluded(rel+"/x") || isIgnored(filter, p, true)) {
						return fs.SkipDir
					}
					return nil
				}
				if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
					return nil
				}
				if found[p] || !doublestar.MatchUnvalidated(lower, strings.ToLower(rel)) || excluded(rel) {
					return nil
				}
				if isIgnored(filter, p, false) {
					ignored++
					return nil
				}
				found[p] = true
				return nil
			})
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, nil, err
			}
		}
	}
	files := make([]string, 0, len(found))
	for p := range found {
		if !c.env.pathAllowed(p) {
			skipped = append(skipped, rmfSkip{p, "Security: Path not in workspace"})
			continue
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue
		}
		files = append(files, p)
	}
	sort.Strings(files)
	if ignored > 0 {
		skipped = append(skipped, rmfSkip{fmt.Sprintf("%d file(s)", ignored), "ignored by project ignore files"})
	}
	return files, skipped, nil
}

// summary is the Markdown report for UIs, in Gemini CLI's form.
func (c *rmfCall) summary(read []string, skipped []rmfSkip) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### ReadManyFiles Result (Target Dir: `%s`)\n\n", c.env.workspaceRoot())
	if len(read) > 0 {
		fmt.Fprintf(&b, "Successfully read and concatenated content from **%d file(s)**.\n", len(read))
		if len(read) <= 10 {
			b.WriteString("\n**Processed Files:**\n")
			for _, p := range read {
				fmt.Fprintf(&b, "- `%s`\n", p)
			}
		} else {
			b.WriteString("\n**Processed Files (first 10 shown):**\n")
			for _, p := range read[:10] {
				fmt.Fprintf(&b, "- `%s`\n", p)
			}
			fmt.Fprintf(&b, "- ...and %d more.\n", len(read)-10)
		}
	}
	if len(skipped) > 0 {
		if len(read) == 0 {
			b.WriteString("No files were read and concatenated based on the criteria.\n")
		}
		if len(skipped) <= 5 {
			fmt.Fprintf(&b, "\n**Skipped %d item(s):**\n", len(skipped))
		} else {
			fmt.Fprintf(&b, "\n**Skipped %d item(s) (first 5 shown):**\n", len(skipped))
		}
		for _, s := range skipped[:min(5, len(skipped))] {
			fmt.Fprintf(&b, "- `%s` (Reason: %s)\n", s.path, s.reason)
		}
		if len(skipped) > 5 {
			fmt.Fprintf(&b, "- ...and %d more.\n", len(skipped)-5)
		}
	} else if len(read) == 0 {
		b.WriteString("No files were read and concatenated based on the criteria.\n")
	}
	return strings.TrimSpace(b.String())
}
