package builtin

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// Limits of search_file_content.
const (
	// grepDefaultMaxMatches caps the matches returned, as Gemini CLI 0.61
	// does (DEFAULT_TOTAL_MAX_MATCHES): more would cost the model tokens
	// without helping it. The model raises it per call with
	// total_max_matches, the user with Env.SearchMaxMatches.
	grepDefaultMaxMatches = 100
	// grepTimeout bounds one search (Gemini CLI's DEFAULT_SEARCH_TIMEOUT_MS).
	grepTimeout = 30 * time.Second
)

// rgExcludeGlobs are the exclusions Gemini CLI passes to ripgrep, in a
// form that excludes the same files at less cost. Gemini CLI writes the
// directories as "**/node_modules/**": ripgrep then walks into every
// such directory and matches each path against globs with "**" on both
// sides (8-11 % of the CPU of a no-match search of 200,000 files). A
// name with a trailing slash is a gitignore-style rule for a directory
// of that name at any depth, matched on its name alone, which ripgrep
// then never enters: nothing below it is searched either way, and a file
// of that name is searched either way. TestRgExcludeGlobsAsGeminiCLI
// compares the two forms. The other backends apply the same exclusions
// (grepExcludedDirs, grepExcluded), so that every backend searches the
// same files.
var rgExcludeGlobs = []string{
	"node_modules/", ".git/", "bower_components/", ".svn/", ".hg/",
	".vscode/", ".idea/", "dist/", "build/", "coverage/", "__pycache__/",
	"*.log", "*.tmp",
}

// grepExcludedDirs are the directory names of rgExcludeGlobs: nothing
// below a directory of that name is searched.
var grepExcludedDirs = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"node_modules": true, ".git": true, "bower_components": true, ".svn": true, ".hg": true,
		".vscode": true, ".idea": true, "dist": true, "build": true, "coverage": true, "__pycache__": true,
	}
}}

// grepExcluded reports whether rgExcludeGlobs exclude a file, given by its
// slash path relative to the search directory.
func grepExcluded(rel string) bool {
	dir, name := path.Split(rel)
	if strings.HasSuffix(name, ".log") || strings.HasSuffix(name, ".tmp") {
		return true
	}
	for _, el := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if grepExcludedDirs.Get()[el] {
			return true
		}
	}
	return false
}

// grepTool is search_file_content (also answering to today's grep_search):
// a regular-expression search of file contents.
//
// Searching goes down a chain as in Gemini CLI: ripgrep when an rg binary
// was found, else `git grep` inside a git work tree, else a walker in Go.
// Whatever the strategy, the pattern is validated as a Go (RE2) regular
// expression first, so all three accept the same patterns.
type grepTool struct {
	env *Env
	// rgPath is the ripgrep binary, "" to skip ripgrep.
	rgPath string
	// gitPath is the git binary, "" to skip git grep.
	gitPath string
	// find, when set, finds both on PATH instead, once, at the first
	// search: most runs search nothing, and the lookups were a stat of
	// every PATH directory at every start.
	find func() (rg, git string)
}

// rg is the ripgrep binary, "" to skip ripgrep.
func (t *grepTool) rg() string {
	if t.find == nil {
		return t.rgPath
	}
	rg, _ := t.find()
	return rg
}

// git is the git binary, "" to skip git grep.
func (t *grepTool) git() string {
	if t.find == nil {
		return t.gitPath
	}
	_, git := t.find()
	return git
}

// NewGrep returns the search_file_content tool, using ripgrep and git when
// they are on PATH.
func NewGrep(env *Env) tool.Tool {
	return &grepTool{env: env, find: sync.OnceValues(func() (rg, git string) {
		if p, err := exec.LookPath("rg"); err == nil {
			rg = p
		}
		if p, err := exec.LookPath("git"); err == nil {
			git = p
		}
		return rg, git
	})}
}

// Name implements tool.Tool.
func (t *grepTool) Name() string { return "search_file_content" }

// Aliases implements tool.Aliased: today's Gemini CLI calls the tool
// grep_search.
func (t *grepTool) Aliases() []string { return []string{"grep_search"} }

// DisplayName implements tool.Tool.
func (t *grepTool) DisplayName() string { return "SearchText" }

// Kind implements tool.Tool.
func (t *grepTool) Kind() tool.Kind { return tool.KindSearch }

// Description implements tool.Tool.
func (t *grepTool) Description() string {
	return "Searches for a regular expression pattern within the content of files in a specified directory (or current working directory). Can filter files by a glob pattern. Returns the lines containing matches, along with their file paths and line numbers."
}

// Schema implements tool.Tool with the wire spec's parameters.
func (t *grepTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"pattern": map[string]any{
				"type":        "string",
				"description": "The regular expression (regex) pattern to search for within file contents (e.g., 'function\\s+myFunction', 'import\\s+\\{.*\\}\\s+from\\s+.*').",
			},
			"path": map[string]any{
				"type":        "string",
				"description": "Optional: The absolute path to the directory to search within. If omitted, searches the current working directory.",
			},
			"include": map[string]any{
				"type":        "string",
				"description": "Optional: A glob pattern to filter which files are searched (e.g., '*.js', '*.{ts,tsx}', 'src/**'). If omitted, searches all files (respecting potential global ignores).",
			},
		},
		"required": []any{"pattern"},
	}
}

// NormalizeArgs maps grep_search's dir_path and include_pattern onto path
// and include.
func (t *grepTool) NormalizeArgs(args map[string]any) map[string]any {
	return renameArgs(args, map[string]string{"dir_path": "path", "include_pattern": "include"})
}

// grepOptions are a search's parameters after validation.
type grepOptions struct {
	pattern       string
	re            *regexp.Regexp
	pre           *grepPrefilter // literal every match holds, for the Go walker
	exclude       *regexp.Regexp
	include       string
	pathParam     string // as given, for texts ("." when omitted)
	searchPath    string // absolute
	searchIsFile  bool
	caseSensitive bool
	fixedStrings  bool
	namesOnly     bool
	maxMatches    int
	maxPerFile    int
	before, after int
}

// Build implements tool.Tool.
func (t *grepTool) Build(args map[string]any) (tool.Call, error) {
	o := &grepOptions{maxMatches: grepDefaultMaxMatches}
	if t.env != nil && t.env.SearchMaxMatches > 0 {
		o.maxMatches = t.env.SearchMaxMatches
	}
	o.pattern, _ = argString(args, "pattern")
	o.include, _ = argString(args, "include")
	o.caseSensitive, _ = argBool(args, "case_sensitive")
	o.fixedStrings, _ = argBool(args, "fixed_strings")
	o.namesOnly, _ = argBool(args, "names_only")

	// grep_search's optional integer parameters are not in the declared
	// schema, so their types and ranges are checked here.
	var ctxLines int
	for _, p := range []struct {
		key string
		min int
		dst *int
	}{
		{"total_max_matches", 1, &o.maxMatches},
		{"max_matches_per_file", 1, &o.maxPerFile},
		{"before", 0, &o.before},
		{"after", 0, &o.after},
		{"context", 0, &ctxLines},
	} {
		if v, present := args[p.key]; !present || v == nil {
			continue
		}
		n, ok := argNumber(args, p.key)
		if !ok || n != float64(int(n)) {
			return nil, tool.Errorf(tool.ErrInvalidParams, "params/%s must be integer", p.key)
		}
		if int(n) < p.min {
			return nil, tool.Errorf(tool.ErrInvalidParams, "params/%s must be >= %d", p.key, p.min)
		}
		*p.dst = int(n)
	}
	o.before, o.after = max(o.before, ctxLines), max(o.after, ctxLines)

	if strings.TrimSpace(o.pattern) == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, "The 'pattern' parameter cannot be empty.")
	}
	expr := o.pattern
	if o.fixedStrings {
		expr = regexp.QuoteMeta(expr)
	}
	var err error
	if o.re, err = compileSearchRegexp(expr, o.caseSensitive); err != nil {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Invalid regular expression pattern provided: %s. Error: %s", o.pattern, regexpErrorText(err))
	}
	o.pre = newGrepPrefilter(o.re.String())
	if ex, _ := argString(args, "exclude_pattern"); ex != "" {
		if o.exclude, err = compileSearchRegexp(ex, o.caseSensitive); err != nil {
			return nil, tool.Errorf(tool.ErrInvalidParams, "Invalid regular expression pattern provided: %s. Error: %s", ex, regexpErrorText(err))
		}
	}
	if o.include != "" && !doublestar.ValidatePattern(o.include) {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Invalid glob pattern provided for include: %s", o.include)
	}

	o.pathParam, _ = argString(args, "path")
	abs, terr := t.env.resolvePath(o.pathParam)
	if terr != nil {
		return nil, terr
	}
	if o.pathParam == "" {
		o.pathParam = "."
	}
	o.searchPath = abs
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, tool.Errorf(tool.ErrFileNotFound, "Path does not exist: %s", abs)
	case err != nil:
		return nil, tool.Errorf(tool.ErrGrepExecutionError, "Failed to access path stats for %s: %s", abs, nodeErrorMessage(err))
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return nil, tool.Errorf(tool.ErrInvalidParams, "Path is not a valid directory or file: %s", abs)
	}
	o.searchIsFile = !fi.IsDir()
	return &grepCall{tool: t, o: o}, nil
}

// compileSearchRegexp compiles a search pattern, case-insensitive unless
// asked otherwise. The pattern is checked on its own first so that errors
// quote the model's pattern, not our flag prefix.
func compileSearchRegexp(expr string, caseSensitive bool) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil || caseSensitive {
		return re, err
	}
	return regexp.Compile("(?i)" + expr)
}

// regexpErrorText drops Go's "error parsing regexp: " prefix, which only
// repeats what the message around it says.
func regexpErrorText(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

type grepCall struct {
	tool *grepTool
	o    *grepOptions
	// rgRuns counts the ripgrep processes the call started.
	rgRuns int
}

// Describe implements tool.Call.
func (c *grepCall) Describe() string {
	d := "'" + c.o.pattern + "'"
	if c.o.pathParam != "." {
		d += " within " + c.tool.env.relPath(c.o.searchPath)
	}
	if c.o.include != "" {
		d += " in " + c.o.include
	}
	return d
}

// Confirmation implements tool.Call; searching needs no approval.
func (c *grepCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

// grepMatch is one output line: a match or a context line around one.
type grepMatch struct {
	file    string // relative to the search directory, slash-separated
	line    int
	text    string
	context bool
}

// Execute implements tool.Call.
func (c *grepCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	ctx, cancel := context.WithTimeout(ctx, grepTimeout)
	defer cancel()
	// The path is checked again: a symlink may have been retargeted since
	// the call was built. (The Go walker also checks each file it opens;
	// ripgrep and git grep are trusted not to follow links inside.)
	if _, terr := c.tool.env.resolvePath(c.o.searchPath); terr != nil {
		return &tool.Result{LLMText: terr.Message, Display: "Error: Path not in workspace.", Error: terr}
	}

	var matches []grepMatch
	var err error
	done := false
	if c.tool.rg() != "" {
		matches, err = c.searchRipgrep(ctx)
		done = err == nil
	}
	if !done && c.canUseGitGrep(ctx) {
		matches, err = c.searchGitGrep(ctx)
		done = err == nil
	}
	if !done {
		matches, err = c.searchWalk(ctx)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return tool.Fail(tool.ErrCancelled, "Operation cancelled.")
		}
		msg := "Error during grep search operation: " + err.Error()
		return &tool.Result{LLMText: msg, Display: "Error: " + err.Error(),
			Error: &tool.Error{Type: tool.ErrGrepExecutionError, Message: msg}}
	}
	return c.format(c.postProcess(matches))
}

// grepKeep decides which raw matches survive the filters every backend
// shares: ripgrep's exclusions, the session's ignore files and
// exclude_pattern. Not safe for concurrent use.
type grepKeep struct {
	o       *grepOptions
	filter  tool.FileFilter
	base    string
	ignored map[string]bool // by file
}

func (c *grepCall) newKeep() *grepKeep {
	return &grepKeep{
		o:       c.o,
		filter:  c.tool.env.fileFilter(tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true}),
		base:    c.dirOfSearch(),
		ignored: map[string]bool{},
	}
}

func (k *grepKeep) keep(m grepMatch) bool {
	ig, seen := k.ignored[m.file]
	if !seen {
		ig = (!k.o.searchIsFile && grepExcluded(m.file)) || isIgnored(k.filter, filepath.Join(k.base, filepath.FromSlash(m.file)), false)
		k.ignored[m.file] = ig
	}
	return !ig && (k.o.exclude == nil || !k.o.exclude.MatchString(m.text))
}

// grepPathLess orders slash paths as a directory walk meets them: name by
// name, so "a/b" comes before "a.go" ('/' sorts before every other
// byte). The walker and ripgrep --sort path produce files in this order,
// which lets them stop at the cap and still return exactly the first
// matches of a complete search.
func grepPathLess[A, B ~string | ~[]byte](a A, b B) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return true
		}
		if cb == '/' {
			return false
		}
		return ca < cb
	}
	return len(a) < len(b)
}

// grepMatchLess orders lines by file (grepPathLess), then line.
func grepMatchLess(a, b grepMatch) bool {
	if a.file != b.file {
		return grepPathLess(a.file, b.file)
	}
	return a.line < b.line
}

// postProcess applies what every strategy shares: the filters of
// grepKeep, the per-file and total caps, and a stable order.
func (c *grepCall) postProcess(ms []grepMatch) []grepMatch {
	o := c.o
	k := c.newKeep()
	var kept []grepMatch
	for _, m := range ms {
		if k.keep(m) {
			kept = append(kept, m)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return grepMatchLess(kept[i], kept[j]) })
	// Caps count matches, not context lines. A context line stays only
	// next to a kept match: the lines around matches dropped by a cap go
	// with them, whichever backend read how far past the cap.
	perFile := map[string]int{}
	keptLines := map[string][]int{} // by file, ascending
	total := 0
	keepMatch := make([]bool, len(kept))
	for i, m := range kept {
		if m.context || total >= o.maxMatches || (o.maxPerFile > 0 && perFile[m.file] >= o.maxPerFile) {
			continue
		}
		perFile[m.file]++
		total++
		keepMatch[i] = true
		keptLines[m.file] = append(keptLines[m.file], m.line)
	}
	var out []grepMatch
	for i, m := range kept {
		if keepMatch[i] || (m.context && grepNearMatch(keptLines[m.file], m.line, o.before, o.after)) {
			out = append(out, m)
		}
	}
	return out
}

// grepNearMatch reports whether line is within before lines ahead of, or
// after lines behind, one of the sorted match lines.
func grepNearMatch(lines []int, line, before, after int) bool {
	// The first match at or after line is the nearest one that line can
	// precede; the one before it the nearest it can follow.
	i := sort.SearchInts(lines, line)
	if i < len(lines) && lines[i]-line <= before {
		return true
	}
	return i > 0 && line-lines[i-1] <= after
}

// format renders matches as Gemini CLI does.
func (c *grepCall) format(ms []grepMatch) *tool.Result {
	o := c.o
	matchCount := 0
	for _, m := range ms {
		if !m.context {
			matchCount++
		}
	}
	filterNote := ""
	if o.include != "" {
		filterNote = ` (filter: "` + o.include + `")`
	}
	where := `for pattern "` + o.pattern + `" in path "` + o.pathParam + `"` + filterNote
	if matchCount == 0 {
		return &tool.Result{LLMText: "No matches found " + where + ".", Display: "No matches found"}
	}
	truncNote := ""
	if matchCount >= o.maxMatches {
		truncNote = fmt.Sprintf(" (results limited to %d matches for performance)", o.maxMatches)
	}
	term := "matches"
	if matchCount == 1 {
		term = "match"
	}
	display := fmt.Sprintf("Found %d %s", matchCount, term)
	if truncNote != "" {
		display += " (limited)"
	}

	var files []string
	byFile := map[string][]grepMatch{}
	for _, m := range ms {
		if _, ok := byFile[m.file]; !ok {
			files = append(files, m.file)
		}
		byFile[m.file] = append(byFile[m.file], m)
	}

	var b strings.Builder
	if o.namesOnly {
		fmt.Fprintf(&b, "Found %d files with matches %s%s:\n%s", len(files), where, truncNote, strings.Join(files, "\n"))
		return &tool.Result{LLMText: b.String(), Display: fmt.Sprintf("Found %d files", len(files))}
	}
	fmt.Fprintf(&b, "Found %d %s %s%s:\n---\n", matchCount, term, where, truncNote)
	for _, f := range files {
		b.WriteString("File: " + f + "\n")
		for _, m := range byFile[f] {
			sep := ":"
			if m.context {
				sep = "-"
			}
			text, _ := shortenLine(m.text)
			b.WriteByte('L')
			b.WriteString(strconv.Itoa(m.line))
			b.WriteString(sep)
			b.WriteByte(' ')
			b.WriteString(text)
			b.WriteByte('\n')
		}
		b.WriteString("---\n")
	}
	return &tool.Result{LLMText: strings.TrimSpace(b.String()), Display: display}
}

// includeMatches reports whether a file (path relative to the search
// directory) passes the include glob: a pattern without "/" matches the
// base name at any depth, as ripgrep's --glob does; one with "/" matches
// the whole relative path.
func includeMatches(include, rel string) bool {
	if include == "" {
		return true
	}
	pat := strings.TrimPrefix(include, "./")
	name := rel
	if !strings.Contains(pat, "/") {
		name = filepath.Base(rel)
	}
	return doublestar.MatchUnvalidated(pat, name)
}

// ---------------------------------------------------------------------------
// ripgrep

// searchRipgrep runs ripgrep with Gemini CLI's arguments. An error
// (anything but exit status 0 or 1) makes the caller fall back.
//
// Its output is the plain one, each line "path NUL number:text" (a match)
// or "path NUL number-text" (a context line): an eighth of what --json
// writes for the same lines, so ripgrep and the reading here both stay
// close to what ripgrep alone costs.
//
// ripgrep searches in parallel, in no fixed order, so a run stopped at
// the cap would return whichever matches it happened to find first. Each
// run goes to its end instead, kept cheap: no file can give more matches
// than the cap (--max-count), and the lines that can no longer make the
// cut are dropped as they stream in (rgKept). A directory is searched in
// runs over its entries in path order (rgPlan), stopping once the cut
// sorts before every entry left: the result is the first matches of a
// complete search, as the other backends return, and a search whose
// first folder holds enough matches reads little more than that folder.
func (c *grepCall) searchRipgrep(ctx context.Context) ([]grepMatch, error) {
	kept := &rgKept{o: c.o, keep: c.newKeep()}
	var plan *rgPlan
	if !c.o.searchIsFile {
		plan = newRgPlan(c.o.searchPath, c.rgSkip(kept.keep))
	}
	if plan != nil && c.o.pre != nil && !plan.firstRunMayMatch(c.o.searchPath, c.o.pre, c.o.include) {
		// The first entries hold nothing to find, so matches are rare:
		// one run over everything, as the plan would have searched the
		// rest after a first run that found nothing.
		plan = nil
	}
	if plan == nil {
		if err := c.runRipgrep(ctx, "", kept); err != nil {
			return nil, err
		}
		return kept.lines, nil
	}
	for {
		rules, more := plan.next(c.o.searchPath, kept.live > 0)
		if !more {
			break
		}
		if err := c.runRipgrepRules(ctx, rules, kept); err != nil {
			return nil, err
		}
		kept.endRun()
		if u := plan.pending(); u == "" || kept.cutBefore(u) {
			break
		}
	}
	return kept.lines, nil
}

// rgSkip is what a plan leaves out: entries ripgrep's exclusion globs
// exclude (a glob outranks every other rule) and those the session's
// ignore files hide, whose lines postProcess would drop.
func (c *grepCall) rgSkip(k *grepKeep) func(rel string, isDir bool) bool {
	return func(rel string, isDir bool) bool {
		if isDir && grepExcludedDirs.Get()[path.Base(rel)] || !isDir && grepExcluded(rel) {
			return true
		}
		return isIgnored(k.filter, filepath.Join(k.base, filepath.FromSlash(rel)), isDir)
	}
}

// runRipgrepRules is runRipgrep with the ignore rules of one run of a
// plan, written to a temporary file for the run. Its name ends in .tmp,
// which rgExcludeGlobs exclude, should the search reach the temporary
// directory.
func (c *grepCall) runRipgrepRules(ctx context.Context, rules string, kept *rgKept) error {
	f, err := os.CreateTemp("", "castor-rg-*.tmp")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(f.Name()) }()
	_, err = f.WriteString(rules)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return c.runRipgrep(ctx, f.Name(), kept)
}

// runRipgrep runs ripgrep once over the search path, hiding what the
// ignore file ignoreFile (when not "") lists, and hands its lines to
// kept.
func (c *grepCall) runRipgrep(ctx context.Context, ignoreFile string, kept *rgKept) error {
	o := c.o
	// --no-config: a user's ripgreprc must not change the output's shape.
	args := []string{"--no-config", "--null", "--no-heading", "--with-filename", "--line-number", "--color", "never", "--hidden"}
	if !o.caseSensitive {
		args = append(args, "--ignore-case")
	}
	if o.fixedStrings {
		args = append(args, "--fixed-strings")
	}
	args = append(args, "--regexp", o.pattern)
	if o.after > 0 {
		args = append(args, "--after-context", strconv.Itoa(o.after))
	}
	if o.before > 0 {
		args = append(args, "--before-context", strconv.Itoa(o.before))
	}
	// A file's first matches are the only ones of it that can be among the
	// first of the whole search; exclude_pattern drops matches after
	// ripgrep counted them, so then only max_matches_per_file bounds it.
	perFile := o.maxPerFile
	if o.exclude == nil && (perFile == 0 || o.maxMatches < perFile) {
		perFile = o.maxMatches
	}
	if perFile > 0 {
		args = append(args, "--max-count", strconv.Itoa(perFile))
	}
	if o.include != "" {
		args = append(args, "--glob", o.include)
	}
	for _, ex := range rgExcludeGlobs {
		args = append(args, "--glob", "!"+ex)
	}
	if ignoreFile != "" {
		args = append(args, "--ignore-file", ignoreFile)
	}
	// A directory is searched as ".", from inside: the anchored rules of
	// an ignore file are matched against paths relative to the working
	// directory, which ripgrep then prints as "./rel".
	target := "."
	if o.searchIsFile {
		target = o.searchPath
	}
	args = append(args, "--threads", "4", "--", target)

	cmd := exec.CommandContext(ctx, c.tool.rg(), args...)
	cmd.Dir = c.dirOfSearch()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	c.rgRuns++
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	base := c.dirOfSearch()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 256*1024*1024)
	for sc.Scan() {
		path, number, text, context, ok := rgParseLine(sc.Bytes())
		if !ok {
			continue
		}
		if o.searchIsFile {
			rel, err := filepath.Rel(base, string(path))
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			path = []byte(filepath.ToSlash(rel))
		} else if path = rgRelPath(path); path == nil {
			continue
		}
		// Lines of files past the cut are dropped before any copy.
		if kept.pastCut(path) {
			continue
		}
		if !utf8.Valid(path) {
			continue // a path the model could not name
		}
		// A line that is not UTF-8 stays as read, as the walker keeps it
		// (the request to the model carries U+FFFD for its bad bytes).
		kept.add(grepMatch{file: string(path), line: number,
			text: strings.TrimRight(string(text), "\r"), context: context})
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ee *exec.ExitError
	if werr != nil && !(errors.As(werr, &ee) && ee.ExitCode() == 1) {
		return fmt.Errorf("ripgrep failed: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// rgRelPath turns a path ripgrep printed for a search of "." ("./a/b",
// ".\\a\\b" on Windows) into the slash path relative to the search
// directory, in place; nil for anything else.
func rgRelPath(p []byte) []byte {
	if len(p) < 3 || p[0] != '.' || (p[1] != '/' && p[1] != filepath.Separator) {
		return nil
	}
	p = p[2:]
	if filepath.Separator != '/' {
		for i, b := range p {
			if b == filepath.Separator {
				p[i] = '/'
			}
		}
	}
	return p
}

// rgParseLine splits a line of ripgrep's output; ok is false for lines
// that are neither a match nor a context line (the "--" between context
// groups, warnings).
func rgParseLine(line []byte) (path []byte, number int, text []byte, context, ok bool) {
	nul := bytes.IndexByte(line, 0)
	if nul < 0 {
		return nil, 0, nil, false, false
	}
	path, rest := line[:nul], line[nul+1:]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		number = number*10 + int(rest[i]-'0')
		i++
	}
	if i == 0 || i >= len(rest) || i > 9 || (rest[i] != ':' && rest[i] != '-') {
		return nil, 0, nil, false, false
	}
	return path, number, rest[i+1:], rest[i] == '-', true
}

// rgKept holds the lines of a streaming ripgrep search that can still be
// among the results: once more than enough matches have arrived, those
// past the cap's cut (in the order postProcess sorts by) are dropped, and
// so is every later line past it.
type rgKept struct {
	o     *grepOptions
	keep  *grepKeep
	lines []grepMatch
	// live counts the matches in lines that survive the filters.
	live int
	// cut is the last match that can still be kept; zero until the first
	// prune.
	cut grepMatch
	// next is the count of live at which to prune again.
	next int
	// read are the files with lines from earlier runs of a plan: a file
	// every run reads (see rgPlan) counts once.
	read map[string]bool
}

func (k *rgKept) add(m grepMatch) {
	if (k.cut.file != "" && k.past(m)) || k.read[m.file] {
		return
	}
	k.lines = append(k.lines, m)
	if m.context || !k.keep.keep(m) {
		return
	}
	k.live++
	// Pruning sorts everything kept, so it waits until the kept matches
	// are a few times the cap: its cost stays linear in the output.
	if k.next == 0 {
		k.next = 4*k.o.maxMatches + 256
	}
	if k.live >= k.next {
		k.prune()
		k.next = max(k.next, 2*k.live)
	}
}

// past reports whether a line comes after the cut: in a later file, or
// in the cut's file beyond the after-context lines of the cut match.
func (k *rgKept) past(m grepMatch) bool {
	if m.file != k.cut.file {
		return grepPathLess(k.cut.file, m.file)
	}
	return m.line > k.cut.line+k.o.after
}

// pastCut is past for a file's slash path relative to the search
// directory, as ripgrep's output holds it.
func (k *rgKept) pastCut(rel []byte) bool {
	return k.cut.file != "" && string(rel) != k.cut.file && grepPathLess(k.cut.file, rel)
}

// endRun marks the end of one run of a plan: its files are read whole.
func (k *rgKept) endRun() {
	if k.read == nil {
		k.read = map[string]bool{}
	}
	for _, m := range k.lines {
		k.read[m.file] = true
	}
}

// cutBefore reports whether the cap's cut sorts before every path of the
// entry rel (a slash path relative to the search directory): nothing in
// it or after it can be among the results.
func (k *rgKept) cutBefore(rel string) bool {
	k.prune()
	return k.cut.file != "" && grepPathLess(k.cut.file, rel)
}

// prune finds the match at which the caps are reached and drops every line
// past it: later matches can only push that cut earlier.
func (k *rgKept) prune() {
	var ms []grepMatch
	for _, m := range k.lines {
		if !m.context && k.keep.keep(m) {
			ms = append(ms, m)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return grepMatchLess(ms[i], ms[j]) })
	perFile := map[string]int{}
	n := 0
	for _, m := range ms {
		if k.o.maxPerFile > 0 && perFile[m.file] >= k.o.maxPerFile {
			continue
		}
		perFile[m.file]++
		if n++; n == k.o.maxMatches {
			k.cut = m
			break
		}
	}
	if n < k.o.maxMatches {
		return
	}
	out := k.lines[:0]
	k.live = 0
	for _, m := range k.lines {
		if k.past(m) {
			continue
		}
		out = append(out, m)
		if !m.context && k.keep.keep(m) {
			k.live++
		}
	}
	clear(k.lines[len(out):])
	k.lines = out
}

// dirOfSearch is the directory output paths are relative to.
func (c *grepCall) dirOfSearch() string {
	if c.o.searchIsFile {
		return filepath.Dir(c.o.searchPath)
	}
	return c.o.searchPath
}

// ---------------------------------------------------------------------------
// git grep

// gitUnsafeRE matches regexp syntax whose meaning differs between Go's RE2
// and the POSIX extended expressions git grep -E uses (\d is a literal "d"
// there, for one), so such patterns go to the Go walker instead.
var gitUnsafeRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\\[dDpPAzQE]|\(\?|[*+?}]\?`) }}

// canUseGitGrep reports whether git grep can answer this search: a git
// binary, a directory inside a work tree, no context lines (git's --null
// output cannot tell them apart from matches) and an ERE-compatible
// pattern.
func (c *grepCall) canUseGitGrep(ctx context.Context) bool {
	o := c.o
	if c.tool.git() == "" || o.searchIsFile || o.before > 0 || o.after > 0 {
		return false
	}
	if !o.fixedStrings && gitUnsafeRE.Get().MatchString(o.pattern) {
		return false
	}
	cmd := exec.CommandContext(ctx, c.tool.git(), "rev-parse", "--is-inside-work-tree")
	cmd.Dir = o.searchPath
	out, err := cmd.Output()
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// searchGitGrep runs git grep over tracked and untracked, non-ignored
// files under the search directory.
func (c *grepCall) searchGitGrep(ctx context.Context) ([]grepMatch, error) {
	o := c.o
	args := []string{"-c", "core.quotepath=off", "grep", "--untracked", "-n", "-I", "--null", "--no-color"}
	if o.fixedStrings {
		args = append(args, "-F")
	} else {
		args = append(args, "-E")
	}
	if !o.caseSensitive {
		args = append(args, "--ignore-case")
	}
	args = append(args, "-e", o.pattern, "--", ".")
	cmd := exec.CommandContext(ctx, c.tool.git(), args...)
	cmd.Dir = o.searchPath
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var out []grepMatch
	rd := bufio.NewReaderSize(stdout, 64*1024)
	for {
		line, rerr := rd.ReadString('\n')
		if line != "" {
			parts := strings.SplitN(strings.TrimSuffix(line, "\n"), "\x00", 3)
			if len(parts) == 3 {
				n, _ := strconv.Atoi(parts[1])
				file := filepath.ToSlash(parts[0])
				if includeMatches(o.include, file) {
					out = append(out, grepMatch{file: file, line: n, text: strings.TrimRight(parts[2], "\r")})
				}
			}
		}
		if rerr != nil {
			break
		}
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) && ee.ExitCode() == 1 {
		return out, nil
	}
	if werr != nil {
		return nil, fmt.Errorf("git grep failed: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
