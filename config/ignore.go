package config

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/castor-dev/castor/tool"
)

// GeminiIgnoreFileName is the ignore file Gemini CLI reads at the
// workspace root.
const GeminiIgnoreFileName = ".geminiignore"

// NewFileFilter returns the ignore filter for the tree at root:
//
//   - with opts.RespectGitIgnore, and only when root is inside a git work
//     tree (a .git directory or file at root or above), .git/info/exclude
//     and every .gitignore from root down, each applying to its own
//     directory and below;
//   - with opts.RespectGeminiIgnore, root/.geminiignore, whose rules come
//     last and so win over .gitignore (a "!" line can re-include a file);
//   - always, the extra ignore files (context.fileFiltering.customIgnoreFilePaths,
//     relative to root), whose rules come after all others; when several
//     are given the first one wins;
//   - always, anything named .git.
//
// Patterns follow gitignore syntax and, like Gemini CLI's matcher, ignore
// case. A path inside an ignored directory is ignored whatever later rules
// say, as in git. Paths outside root, and root itself, are never ignored.
//
// The filter is safe for concurrent use and cheap to query repeatedly:
// each directory's .gitignore is read once, and the verdict for every
// directory seen is cached, so keep one filter per session rather than
// building one per call. Changes to ignore files after the first query of a
// directory are not noticed.
func NewFileFilter(root string, opts tool.FilterOptions, extraIgnoreFiles ...string) tool.FileFilter {
	return newIgnoreFilter(root, opts, extraIgnoreFiles)
}

var _ tool.FileFilter = (*ignoreFilter)(nil)

// ignoreFilter implements tool.FileFilter.
type ignoreFilter struct {
	root     string // absolute, clean
	realRoot string // root with symlinks resolved
	git      bool   // honour .gitignore files
	// gemini holds the root-level rules that outrank every .gitignore:
	// .geminiignore's, then the extra files'.
	gemini []*ignoreRule

	mu   sync.RWMutex
	dirs map[string]*dirRules // keyed by slash path relative to root; "" is root
}

// dirRules is what is known about one directory.
type dirRules struct {
	ignored bool
	// rules are the .gitignore-family rules that apply to the directory's
	// entries, outermost file first.
	rules []*ignoreRule
}

// ignoreRule is one compiled ignore-file line.
type ignoreRule struct {
	base    string // slash path of the directory the rule is relative to; "" for root
	negate  bool
	dirOnly bool
	re      *regexp.Regexp
}

func newIgnoreFilter(root string, opts tool.FilterOptions, extra []string) *ignoreFilter {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	root = filepath.Clean(root)
	f := &ignoreFilter{root: root, realRoot: realPathOr(root), dirs: map[string]*dirRules{}}
	f.git = opts.RespectGitIgnore && InGitRepo(root)
	if opts.RespectGeminiIgnore {
		f.gemini = readIgnoreFile(filepath.Join(root, GeminiIgnoreFileName), "")
	}
	for i := len(extra) - 1; i >= 0; i-- {
		// Joined even when absolute, as Gemini CLI does.
		f.gemini = append(f.gemini, readIgnoreFile(filepath.Join(root, extra[i]), "")...)
	}
	rules := []*ignoreRule{compileIgnoreLine(".git", "")}
	if f.git {
		rules = append(rules, readIgnoreFile(filepath.Join(root, ".git", "info", "exclude"), "")...)
		rules = append(rules, readIgnoreFile(filepath.Join(root, ".gitignore"), "")...)
	}
	f.dirs[""] = &dirRules{rules: rules}
	return f
}

// InGitRepo reports whether dir or one of its ancestors holds a .git entry
// (a directory, or a file for worktrees and submodules).
func InGitRepo(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// Ignored reports whether the path (absolute, or relative to the root) is
// ignored.
func (f *ignoreFilter) Ignored(p string, isDir bool) bool {
	rel, ok := f.rel(p)
	if !ok || rel == "" {
		return false
	}
	parent := path.Dir(rel)
	if parent == "." {
		parent = ""
	}
	st := f.dir(parent)
	if st.ignored {
		return true
	}
	return f.match(st, rel, isDir)
}

// rel returns p as a slash path relative to the root.
func (f *ignoreFilter) rel(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.root, p)
	}
	p = filepath.Clean(p)
	for _, root := range []string{f.root, f.realRoot} {
		if p == root {
			return "", true
		}
		prefix := strings.TrimSuffix(root, string(filepath.Separator)) + string(filepath.Separator)
		if strings.HasPrefix(p, prefix) {
			return filepath.ToSlash(p[len(prefix):]), true
		}
	}
	return "", false
}

// match applies the rules for entries of st's directory to rel: the last
// matching rule decides, .geminiignore rules being the last of all.
func (f *ignoreFilter) match(st *dirRules, rel string, isDir bool) bool {
	for i := len(f.gemini) - 1; i >= 0; i-- {
		if r := f.gemini[i]; r.matches(rel, isDir) {
			return !r.negate
		}
	}
	for i := len(st.rules) - 1; i >= 0; i-- {
		if r := st.rules[i]; r.matches(rel, isDir) {
			return !r.negate
		}
	}
	return false
}

// dir returns the cached state of the directory rel, computing it (and its
// ancestors) on first use.
func (f *ignoreFilter) dir(rel string) *dirRules {
	f.mu.RLock()
	st, ok := f.dirs[rel]
	f.mu.RUnlock()
	if ok {
		return st
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dirLocked(rel)
}

func (f *ignoreFilter) dirLocked(rel string) *dirRules {
	if st, ok := f.dirs[rel]; ok {
		return st
	}
	parentRel := path.Dir(rel)
	if parentRel == "." {
		parentRel = ""
	}
	parent := f.dirLocked(parentRel)
	st := &dirRules{rules: parent.rules}
	st.ignored = parent.ignored || f.match(parent, rel, true)
	if f.git && !st.ignored {
		if more := readIgnoreFile(filepath.Join(f.root, filepath.FromSlash(rel), ".gitignore"), rel); len(more) > 0 {
			// Copy so that sibling directories never share a backing array.
			st.rules = append(parent.rules[:len(parent.rules):len(parent.rules)], more...)
		}
	}
	f.dirs[rel] = st
	return st
}

// matches reports whether the rule matches rel (a slash path relative to
// the root).
func (r *ignoreRule) matches(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.base != "" {
		if !strings.HasPrefix(rel, r.base+"/") {
			return false
		}
		rel = rel[len(r.base)+1:]
	}
	return r.re.MatchString(rel)
}

// readIgnoreFile compiles the lines of an ignore file; a missing or
// unreadable file has no rules.
func readIgnoreFile(file, base string) []*ignoreRule {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var rules []*ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	sc.Split(scanAnyLines)
	for sc.Scan() {
		if r := compileIgnoreLine(sc.Text(), base); r != nil {
			rules = append(rules, r)
		}
	}
	return rules
}

// scanAnyLines splits on \n, \r\n and lone \r, as Gemini CLI does.
func scanAnyLines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\r' {
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if !atEOF {
				return 0, nil, nil // might be \r\n split across reads
			}
		}
		return i + 1, data[:i], nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// compileIgnoreLine turns one gitignore line into a rule relative to base,
// or nil for blanks, comments and lines that cannot match anything.
func compileIgnoreLine(line, base string) *ignoreRule {
	// Gemini CLI drops leading whitespace (git would keep it).
	line = strings.TrimLeft(line, " \t")
	if line == "" || line[0] == '#' {
		return nil
	}
	r := &ignoreRule{base: base}
	switch {
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	line = trimTrailingSpaces(line)
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimLeft(line, "/")
	if line == "" {
		return nil
	}
	expr := globRegexp(line)
	if anchored {
		expr = "(?i)^" + expr + "$"
	} else {
		expr = "(?i)^(?:.*/)?" + expr + "$"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	r.re = re
	return r
}

// trimTrailingSpaces drops trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			// "\ " keeps one space; the backslash is handled by globRegexp.
			break
		}
		end--
	}
	return s[:end]
}

// globRegexp translates a gitignore glob (without leading slash) into a
// regular expression over slash paths: * and ? never cross a slash, a
// leading **/ and an inner /**/ span any number of directories, a trailing
// /** matches everything inside.
func globRegexp(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); {
		segStart := i == 0 || glob[i-1] == '/'
		switch c := glob[i]; {
		case segStart && strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 3
		case segStart && glob[i:] == "**":
			b.WriteString(".*")
			i += 2
		case c == '*':
			b.WriteString("[^/]*")
			i++
		case c == '?':
			b.WriteString("[^/]")
			i++
		case c == '[':
			class, n := globClass(glob[i:])
			if n == 0 {
				b.WriteString(`\[`)
				i++
				continue
			}
			b.WriteString(class)
			i += n
		case c == '\\' && i+1 < len(glob):
			b.WriteString(regexp.QuoteMeta(glob[i+1 : i+2]))
			i += 2
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
			i++
		}
	}
	return b.String()
}

// globClass translates a bracket expression at the start of s, returning
// the regexp class and the bytes consumed, or n == 0 when s has no closing
// bracket (the '[' is then literal).
func globClass(s string) (string, int) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteString("^/")
		i++
	}
	first := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return b.String(), i + 1
		case c == '\\' && i+1 < len(s):
			b.WriteString(regexp.QuoteMeta(s[i+1 : i+2]))
			i += 2
		case c == '-':
			b.WriteByte('-')
			i++
		case c == '[' || c == ']' || c == '^' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
		first = false
	}
	return "", 0
}
