package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/atpath"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// Gemini CLI's framing of @path contents.
const (
	refContentHeader = "\n--- Content from referenced files ---"
	// maxGlobSearch bounds the walk looking for a file an @name does not
	// name exactly.
	maxGlobSearch = 20000
)

// resolvedRef is an @path that names a workspace file or folder.
type resolvedRef struct {
	part     *atpath.Part
	pathSpec string // what the prompt text shows after "@"
	label    string // what "Content from @…" shows
	abs      string
}

// atPaths expands the @path references of text, as Gemini CLI's
// handleAtCommand does: the text keeps each reference (rewritten to its
// workspace-relative form), then the referenced contents follow, read by
// read_many_files, each file introduced by "Content from @path:".
// Ignored (.gitignore, .geminiignore) and missing paths are left as
// typed; text with no readable reference is sent unchanged.
func (x *expander) atPaths(ctx context.Context, text string) ([]*genai.Part, error) {
	parts := atpath.Parse(text)
	filter := x.filter()
	var refs []resolvedRef
	var resources []mcp.Resource // @server:uri references (mcpresources.go)
	for i := range parts {
		p := &parts[i]
		if !p.IsRef() {
			continue
		}
		if r, ok := x.resourceRef(p.Path); ok {
			resources = append(resources, r)
			continue
		}
		abs, rel, ok := x.resolveRef(p.Path)
		if !ok && x.search {
			abs, rel, ok = x.searchRef(ctx, p.Path)
		}
		if !ok {
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil {
			continue
		}
		if filter != nil && filter.Ignored(abs, fi.IsDir()) {
			continue
		}
		label := p.Path
		if filepath.IsAbs(p.Path) {
			label = rel
		}
		spec := rel
		if fi.IsDir() {
			spec = filepath.Join(rel, "**")
		}
		refs = append(refs, resolvedRef{part: p, pathSpec: spec, label: label, abs: abs})
	}
	if len(refs) == 0 && len(resources) == 0 {
		return []*genai.Part{genai.NewPartFromText(text)}, nil
	}

	var b strings.Builder
	for i := range parts {
		p := &parts[i]
		content := p.Text
		if p.IsRef() {
			for _, r := range refs {
				if r.part == p {
					content = "@" + r.pathSpec
				}
			}
			if i > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
		}
		b.WriteString(content)
	}
	out := []*genai.Part{genai.NewPartFromText(strings.TrimSpace(b.String()))}
	fromResources, err := x.readResources(ctx, resources)
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return withResources(out, fromResources), nil
	}
	// Files of the project's temporary directory (a pasted image) are
	// read one by one: read_many_files reads the workspace only.
	var temp []*genai.Part
	inWS := refs[:0:0]
	for _, r := range refs {
		if x.env.Workspace.Contains(r.abs) {
			inWS = append(inWS, r)
			continue
		}
		temp = append(temp, genai.NewPartFromText("\nContent from @"+r.label+":\n"))
		temp = append(temp, x.readFile(ctx, r.abs)...)
	}
	if refs = inWS; len(refs) == 0 {
		out = append(out, genai.NewPartFromText(refContentHeader))
		return append(append(out, fromResources...), withTemp(nil, temp)...), nil
	}

	include := make([]any, len(refs))
	for i, r := range refs {
		include[i] = r.abs
	}
	args := map[string]any{
		"include": include,
		"file_filtering_options": map[string]any{
			"respect_git_ignore":    x.respect.RespectGitIgnore,
			"respect_gemini_ignore": x.respect.RespectGeminiIgnore,
		},
	}
	labels := make([]string, len(refs))
	for i, r := range refs {
		labels[i] = r.label
	}
	call, err := builtin.NewReadManyFiles(x.env).Build(args)
	if err != nil {
		return nil, fmt.Errorf("Exiting due to an error processing the @ command: Error reading files (%s): %v", strings.Join(labels, ", "), err)
	}
	res := call.Execute(ctx, nil)
	if res.Error != nil {
		return nil, fmt.Errorf("Exiting due to an error processing the @ command: Error reading files (%s): %s", strings.Join(labels, ", "), res.Error.Message)
	}
	var read []*genai.Part
	for _, p := range res.LLMParts {
		if p.Text == "" {
			read = append(read, p)
			continue
		}
		m := fileFrame.Get().FindStringSubmatch(p.Text)
		if m == nil {
			read = append(read, p)
			continue
		}
		read = append(read, genai.NewPartFromText("\nContent from @"+x.displayPath(m[1], refs)+":\n"), genai.NewPartFromText(strings.TrimSpace(m[2])))
	}
	read = withTemp(read, temp)
	if len(read) > 0 {
		out = append(out, genai.NewPartFromText(refContentHeader))
		out = append(out, fromResources...)
		out = append(out, read...)
		return out, nil
	}
	return withResources(out, fromResources), nil
}

// withTemp puts the files read from the temporary directory after those
// read_many_files read, before its closing line.
func withTemp(read, temp []*genai.Part) []*genai.Part {
	if len(temp) == 0 {
		return read
	}
	end := genai.NewPartFromText(refContentFooter)
	if n := len(read); n > 0 && read[n-1].Text == refContentFooter {
		end, read = read[n-1], read[:n-1]
	}
	return append(append(read, temp...), end)
}

// fileFrame is read_many_files' framing of one file.
var fileFrame = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?s)^--- (.*?) ---\n\n(.*?)\n\n$`) }}

// displayPath names a file read for an @path: the reference as typed
// when it named the file, else its path relative to a workspace folder.
func (x *expander) displayPath(file string, refs []resolvedRef) string {
	for _, r := range refs {
		if r.abs == file || r.pathSpec == file {
			return r.label
		}
	}
	for _, d := range x.env.Workspace.Dirs() {
		if rel, err := filepath.Rel(d, file); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return file
}

// resolveRef finds p in the workspace: an absolute path inside it, or a
// relative one below one of its folders (the first that has it).
func (x *expander) resolveRef(p string) (abs, rel string, ok bool) {
	ws := x.env.Workspace
	if filepath.IsAbs(p) && x.env.TempDir != "" && !ws.Contains(p) && tool.NewWorkspace(x.env.TempDir).Contains(p) {
		// The project's temporary directory, where the terminal saves
		// a pasted image (Ctrl+V), as Gemini CLI lets @ read it.
		if _, err := os.Stat(p); err != nil {
			return "", "", false
		}
		return p, p, true
	}
	if filepath.IsAbs(p) {
		if !ws.Contains(p) {
			return "", "", false
		}
		if _, err := os.Stat(p); err != nil {
			return "", "", false
		}
		rel = p
		for _, d := range ws.Dirs() {
			if r, err := filepath.Rel(d, p); err == nil && !strings.HasPrefix(r, "..") {
				rel = r
				break
			}
		}
		return p, rel, true
	}
	for _, d := range ws.Dirs() {
		cand := filepath.Join(d, p)
		if !ws.Contains(cand) {
			continue
		}
		if _, err := os.Stat(cand); err == nil {
			return cand, p, true
		}
	}
	return "", "", false
}

var errFound = errors.New("found")

// searchRef looks for a file whose path matches **/*name* in each
// workspace folder, as Gemini CLI does for an @name that names nothing
// exactly, ignored files skipped.
func (x *expander) searchRef(ctx context.Context, name string) (abs, rel string, ok bool) {
	if filepath.IsAbs(name) || strings.TrimSpace(name) == "" {
		return "", "", false
	}
	filter := x.filter()
	pattern := "*" + filepath.ToSlash(name) + "*"
	for _, d := range x.env.Workspace.Dirs() {
		seen := 0
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > maxGlobSearch || ctx.Err() != nil {
				return filepath.SkipAll
			}
			if p == d {
				return nil
			}
			if e.IsDir() {
				if e.Name() == ".git" || e.Name() == "node_modules" || (filter != nil && filter.Ignored(p, true)) {
					return filepath.SkipDir
				}
				return nil
			}
			if filter != nil && filter.Ignored(p, false) {
				return nil
			}
			r, _ := filepath.Rel(d, p)
			if globMatch(pattern, filepath.ToSlash(r)) {
				abs, rel = p, r
				return errFound
			}
			return nil
		})
		if errors.Is(err, errFound) {
			return abs, rel, true
		}
	}
	return "", "", false
}

// globMatch matches "**/" + pattern: pattern against the path's last
// segments (as many as the pattern has).
func globMatch(pattern, rel string) bool {
	n := strings.Count(pattern, "/") + 1
	segs := strings.Split(rel, "/")
	if len(segs) < n {
		return false
	}
	ok, _ := filepath.Match(pattern, strings.Join(segs[len(segs)-n:], "/"))
	return ok
}
