package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
)

// maxImportDepth is how deep @file imports nest before the rest of the
// content is left as written.
const maxImportDepth = 5

// importer expands @path imports in context files the way Gemini CLI's
// memoryImportProcessor does.
type importer struct {
	markers  []string // project-root markers bounding what may be imported
	warnings []string
}

// expand processes the imports of one context file's content. dir is the
// file's directory.
func (im *importer) expand(content, dir, format string) string {
	root := findImportRoot(dir, im.markers)
	if format == "flat" {
		return im.flat(content, dir, root)
	}
	return im.tree(content, dir, map[string]bool{}, 0, root)
}

// tree replaces each import by the imported file's (recursively expanded)
// content between HTML comments. chain holds the files on the current
// import path; a file importing one of them gets a "File already processed"
// comment instead, which is what stops cycles. Note that, as in Gemini CLI,
// the top-level file is not in the chain, so a file importing itself is
// expanded once.
func (im *importer) tree(content, dir string, chain map[string]bool, depth int, root string) string {
	if depth >= maxImportDepth {
		return content
	}
	code := findCodeRegions(content)
	var b strings.Builder
	last := 0
	for _, imp := range findImports(content) {
		b.WriteString(content[last:imp.start])
		last = imp.end
		if inRegions(code, imp.start) {
			b.WriteString("@" + imp.path)
			continue
		}
		if !validImportPath(imp.path, dir, root) {
			im.warnings = append(im.warnings, fmt.Sprintf("import %q in %s: outside %s", imp.path, dir, root))
			b.WriteString("<!-- Import failed: " + imp.path + " - Path traversal attempt -->")
			continue
		}
		full := resolvePath(dir, imp.path)
		if chain[full] {
			b.WriteString("<!-- File already processed: " + imp.path + " -->")
			continue
		}
		data, err := readImport(full)
		if err != nil {
			im.warnings = append(im.warnings, fmt.Sprintf("import %q in %s: %s", imp.path, dir, err))
			b.WriteString("<!-- Import failed: " + imp.path + " - " + err.Error() + " -->")
			continue
		}
		next := make(map[string]bool, len(chain)+1)
		for k := range chain {
			next[k] = true
		}
		next[full] = true
		inner := im.tree(data, filepath.Dir(full), next, depth+1, root)
		b.WriteString("<!-- Imported from: " + imp.path + " -->\n" + inner + "\n<!-- End of import from: " + imp.path + " -->")
	}
	b.WriteString(content[last:])
	return b.String()
}

// flat lists the file and everything it imports, each once, as
// "--- File: <path> ---" blocks in order of first encounter (imports of a
// file are visited last to first, as in Gemini CLI). As there, the top
// file is labelled with its directory's path.
func (im *importer) flat(content, dir, root string) string {
	type entry struct{ path, content string }
	var files []entry
	done := map[string]bool{}
	var visit func(content, dir, path string)
	visit = func(content, dir, path string) {
		path = filepath.Clean(path)
		if done[path] {
			return
		}
		done[path] = true
		files = append(files, entry{path, content})
		code := findCodeRegions(content)
		imps := findImports(content)
		for i := len(imps) - 1; i >= 0; i-- {
			imp := imps[i]
			if inRegions(code, imp.start) || !validImportPath(imp.path, dir, root) {
				continue
			}
			full := resolvePath(dir, imp.path)
			if done[full] {
				continue
			}
			data, err := readImport(full)
			if err != nil {
				im.warnings = append(im.warnings, fmt.Sprintf("import %q in %s: %s", imp.path, dir, err))
				continue
			}
			visit(data, filepath.Dir(full), full)
		}
	}
	visit(content, dir, resolvePath(dir, "."))
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = "--- File: " + f.path + " ---\n" + jsTrim(f.content) + "\n--- End of File: " + f.path + " ---"
	}
	return strings.Join(parts, "\n\n")
}

// importRef is one @path found in content; start is the offset of '@',
// end the offset just after the path.
type importRef struct {
	start, end int
	path       string
}

// findImports finds "@path" tokens: an '@' at the start or after
// whitespace, followed by a path that starts with '.', '/' or an ASCII
// letter and runs to the next whitespace.
func findImports(content string) []importRef {
	var out []importRef
	for i := 0; i < len(content); {
		at := strings.IndexByte(content[i:], '@')
		if at < 0 {
			break
		}
		i += at
		if i > 0 && !isImportSpace(content[i-1]) {
			i++
			continue
		}
		j := i + 1
		for j < len(content) && !isImportSpace(content[j]) {
			j++
		}
		p := content[i+1 : j]
		if p != "" && (p[0] == '.' || p[0] == '/' || isASCIILetter(p[0])) {
			out = append(out, importRef{start: i, end: j, path: p})
		}
		i = j + 1
	}
	return out
}

func isImportSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isASCIILetter(c byte) bool { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') }

// findCodeRegions returns the [start, end) spans of inline code and fenced
// blocks: a run of backticks up to the next run of the same length. It is
// the leftmost-first match of /(`+)([\s\S]*?)\1/g, including its
// backtracking to a shorter opening run when no closing run of the full
// length exists.
func findCodeRegions(content string) [][2]int {
	var out [][2]int
	for p := 0; p < len(content); {
		if content[p] != '`' {
			next := strings.IndexByte(content[p:], '`')
			if next < 0 {
				break
			}
			p += next
		}
		run := 0
		for p+run < len(content) && content[p+run] == '`' {
			run++
		}
		matched := false
		for n := run; n >= 1; n-- {
			if k := strings.Index(content[p+n:], strings.Repeat("`", n)); k >= 0 {
				end := p + n + k + n
				out = append(out, [2]int{p, end})
				p = end
				matched = true
				break
			}
		}
		if !matched {
			p++
		}
	}
	return out
}

func inRegions(regions [][2]int, at int) bool {
	for _, r := range regions {
		if at >= r[0] && at < r[1] {
			return true
		}
	}
	return false
}

// urlImport matches imports that name URLs, which are never fetched.
var urlImport = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(file|https?)://`) }}

// validImportPath reports whether importPath, relative to dir, stays inside
// root once symlinks are resolved.
func validImportPath(importPath, dir, root string) bool {
	if urlImport.Get().MatchString(importPath) {
		return false
	}
	target := fsutil.ResolveExisting(resolvePath(dir, importPath))
	allowed := fsutil.ResolveExisting(root)
	return isSubpath(normalizePath(allowed), normalizePath(target))
}

// resolvePath resolves p against dir like Node's path.resolve.
func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// findImportRoot returns the nearest directory at or above dir holding one
// of the markers, or dir itself when there is none (or no markers).
func findImportRoot(dir string, markers []string) string {
	if root := findMarkerRoot(dir, markers); root != "" {
		return root
	}
	return dir
}

// findMarkerRoot returns the nearest directory at or above dir that holds
// one of markers (a file or a directory), or "". Markers that are absolute
// or climb with ".." are ignored.
func findMarkerRoot(dir string, markers []string) string {
	return findMarkerRootBelow(dir, markers, "")
}

// findMarkerRootBelow is findMarkerRoot that, when dir is inside limit,
// does not look above limit.
func findMarkerRootBelow(dir string, markers []string, limit string) string {
	if len(markers) == 0 {
		return ""
	}
	limitKey := ""
	if limit != "" && isSubpath(normalizePath(limit), normalizePath(dir)) {
		limitKey = normalizePath(limit)
	}
	cur := dir
	for {
		for _, m := range markers {
			if m == "" || filepath.IsAbs(m) || strings.Contains(m, "..") {
				continue
			}
			if _, err := os.Lstat(filepath.Join(cur, m)); err == nil {
				return cur
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur || (limitKey != "" && normalizePath(cur) == limitKey) {
			return ""
		}
		cur = parent
	}
}

// readImport reads an imported file, describing failures the way Node
// does, since the message ends up in the model's context.
func readImport(path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("ENOENT: no such file or directory, access '%s'", path)
		}
		return "", nodeError(err, "access", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nodeError(err, "open", path)
	}
	return decodeUTF8(data), nil
}

// nodeError words common file errors like Node's fs module.
func nodeError(err error, syscallName, path string) error {
	switch {
	case errors.Is(err, syscall.EISDIR):
		return errors.New("EISDIR: illegal operation on a directory, read")
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("EACCES: permission denied, %s '%s'", syscallName, path)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("ENOENT: no such file or directory, %s '%s'", syscallName, path)
	}
	return err
}

// decodeUTF8 turns file bytes into text the way Node's "utf-8" decoding
// does: invalid sequences become U+FFFD.
func decodeUTF8(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}

// jsTrim trims what JavaScript's String.prototype.trim trims: Unicode
// spaces, line terminators and the byte-order mark, but not U+0085.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}
