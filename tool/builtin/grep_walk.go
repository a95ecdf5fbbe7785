package builtin

// The pure-Go backend of search_file_content, used when neither ripgrep
// nor git grep can answer. It must give exactly the lines the other
// backends give, and be fast enough not to matter (the target is
// within 3× of ripgrep on Go's source tree):
//
//   - one goroutine walks the tree while workers search files in parallel;
//   - each file is read whole into a reused buffer, binary files (a NUL in
//     the first 8 KB) dropped after the first read;
//   - a literal that every match must contain is taken from the pattern,
//     and only the lines holding it are given to the regular expression.
//     It is found with bytes.Index, or for case-insensitive searches by
//     scanning (IndexByte, both cases) for its rarest byte and comparing
//     around each hit, so files without it cost a fast scan or two.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/castor-dev/castor/tool"
)

const (
	// grepBinaryProbe is how much of a file is checked for a NUL byte, the
	// sign of a binary file that every backend skips.
	grepBinaryProbe = 8192
	// grepWholeFileLimit is the largest file read into memory at once;
	// bigger files are streamed line by line.
	grepWholeFileLimit = 32 << 20
	// grepMinNeedle is the shortest literal worth a prefilter: shorter
	// ones occur on too many lines to save anything.
	grepMinNeedle = 3
)

// grepPrefilter is a literal that every matching line contains.
type grepPrefilter struct {
	needle []byte
	// fold makes the search ASCII case-insensitive; needle is lower case.
	fold bool
	// pivot is the needle's rarest byte (lower case), at pivotAt: folded
	// searches scan for it and compare the needle around each hit.
	pivot   byte
	pivotAt int
}

// grepByteRarity lists bytes from the most to the least frequent in
// source code, roughly; a folded search scans for the needle byte that
// comes last here. Bytes not listed count as rarest.
const grepByteRarity = " etaoinsrlcdhupmfg.(),;=_\n\ty\"bwv/-:k0x{}[]*'12jq<>z&!|+#$%@\\^`~?3456789"

// index returns the offset of the first occurrence of the needle in h, or
// -1.
func (p *grepPrefilter) index(h []byte) int {
	if !p.fold {
		return bytes.Index(h, p.needle)
	}
	lo, up := p.pivot, p.pivot
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	// The next hit of each case is remembered, so that every byte of h is
	// scanned at most once per case.
	nextLo, nextUp := -1, -1
	loDone, upDone := false, lo == up
	for from := p.pivotAt; from < len(h); {
		if !loDone && nextLo < from {
			if i := bytes.IndexByte(h[from:], lo); i >= 0 {
				nextLo = from + i
			} else {
				loDone = true
			}
		}
		if !upDone && nextUp < from {
			if i := bytes.IndexByte(h[from:], up); i >= 0 {
				nextUp = from + i
			} else {
				upDone = true
			}
		}
		hit := -1
		if !loDone {
			hit = nextLo
		}
		if !upDone && (hit < 0 || nextUp < hit) {
			hit = nextUp
		}
		if hit < 0 {
			return -1
		}
		if start := hit - p.pivotAt; start+len(p.needle) <= len(h) && equalFoldLower(h[start:start+len(p.needle)], p.needle) {
			return start
		}
		from = hit + 1
	}
	return -1
}

// equalFoldLower reports whether s equals the lower-case ASCII t when its
// ASCII letters are lower-cased.
func equalFoldLower(s, t []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != t[i] {
			return false
		}
	}
	return true
}

// newGrepPrefilter derives the prefilter of expr (the expression compiled
// for the search, "(?i)" included when case-insensitive), or nil when no
// literal is required or safe to use.
func newGrepPrefilter(expr string) *grepPrefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	var best *grepPrefilter
	for _, p := range grepRequiredLiterals(re.Simplify()) {
		if best == nil || len(p.needle) > len(best.needle) {
			best = p
		}
	}
	if best == nil || len(best.needle) < grepMinNeedle {
		return nil
	}
	return best
}

// grepRequiredLiterals returns literals that every match of re contains,
// each cut to the longest part a byte search can find exactly.
func grepRequiredLiterals(re *syntax.Regexp) []*grepPrefilter {
	switch re.Op {
	case syntax.OpLiteral:
		if p := grepUsableLiteral(re.Rune, re.Flags&syntax.FoldCase != 0); p != nil {
			return []*grepPrefilter{p}
		}
	case syntax.OpConcat:
		var out []*grepPrefilter
		for _, sub := range re.Sub {
			out = append(out, grepRequiredLiterals(sub)...)
		}
		return out
	case syntax.OpCapture, syntax.OpPlus:
		return grepRequiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return grepRequiredLiterals(re.Sub[0])
		}
	}
	return nil
}

// grepUsableLiteral returns the longest run of lit a byte search can find
// without missing a match. Case-sensitive runs may hold any rune but
// U+FFFD (which the regexp also matches on invalid UTF-8). Folded runs are
// ASCII only and avoid k and s, whose Unicode case folds include the
// Kelvin sign and the long s that ASCII folding would miss.
func grepUsableLiteral(lit []rune, fold bool) *grepPrefilter {
	var best, cur []byte
	flush := func() {
		if len(cur) > len(best) {
			best = cur
		}
		cur = nil
	}
	for _, r := range lit {
		ok := r != utf8.RuneError
		if fold {
			l := r | 0x20
			ok = r < utf8.RuneSelf && l != 'k' && l != 's'
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
		}
		if !ok {
			flush()
			continue
		}
		cur = utf8.AppendRune(cur, r)
	}
	flush()
	if len(best) == 0 {
		return nil
	}
	hasLetter := false
	for _, b := range best {
		if 'a' <= b && b <= 'z' {
			hasLetter = true
		}
	}
	p := &grepPrefilter{needle: best, fold: fold && hasLetter}
	rank := -1
	for i, b := range best {
		r := strings.IndexByte(grepByteRarity, b)
		if r < 0 {
			r = len(grepByteRarity)
		}
		if r > rank {
			rank, p.pivot, p.pivotAt = r, b, i
		}
	}
	return p
}

// grepWorker holds one worker's reusable buffer.
type grepWorker struct {
	buf []byte
}

// searchWalk searches with a directory walk in Go, skipping the common
// VCS and dependency directories, ignored paths and binary files.
func (c *grepCall) searchWalk(ctx context.Context) ([]grepMatch, error) {
	o := c.o
	filter := c.tool.env.fileFilter(tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true})
	allowed := c.tool.env.realAllowed()
	base := c.dirOfSearch()
	if o.searchIsFile {
		var w grepWorker
		return w.grepFile(ctx, o.searchPath, filepath.Base(o.searchPath), o, allowed)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct{ path, rel string }
	jobs := make(chan job, 256)
	var (
		mu       sync.Mutex
		out      []grepMatch
		firstErr error
		found    atomic.Int64
		wg       sync.WaitGroup
	)
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w grepWorker
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain, so the walker never blocks
				}
				ms, err := w.grepFile(ctx, j.path, j.rel, o, allowed)
				n := 0
				for _, m := range ms {
					if !m.context && (o.exclude == nil || !o.exclude.MatchString(m.text)) {
						n++
					}
				}
				found.Add(int64(n))
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				out = append(out, ms...)
				mu.Unlock()
			}
		}()
	}
	walkErr := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			if d != nil && d.IsDir() && p != base {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != base && (grepExcludedDirs.Get()[d.Name()] || isIgnored(filter, p, true)) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || isIgnored(filter, p, false) {
			return nil
		}
		// Files are handed out in walk order and every file handed out is
		// searched to the end, so once the cap is reached the files
		// searched hold the first matches of a complete search (the
		// order postProcess sorts by), context lines included.
		if found.Load() >= int64(o.maxMatches) {
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		if grepExcluded(rel) || !includeMatches(o.include, rel) {
			return nil
		}
		select {
		case jobs <- job{p, rel}:
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	})
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if walkErr != nil {
		return nil, walkErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// grepFile returns the matches (and requested context lines) of one file.
// Binary files (a NUL byte in the first 8 KB) are skipped, as ripgrep and
// git grep -I skip them; unreadable files, and files that turn out to lie
// outside the workspace (a directory swapped for a symlink during the
// walk), are skipped silently.
func (w *grepWorker) grepFile(ctx context.Context, path, rel string, o *grepOptions, allowed func(string) bool) ([]grepMatch, error) {
	f, err := openVerified(path, allowed)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	if fi.Size() > grepWholeFileLimit {
		return grepStream(ctx, f, rel, o)
	}
	size := int(fi.Size())
	data, binary, err := readProbed(f, w.buf[:0], size)
	w.buf = data[:0]
	if err != nil || binary {
		return nil, nil
	}
	if cap(data) > grepWholeFileLimit {
		// A file that grew past the limit while read is not kept as the
		// buffer of every later one.
		w.buf = nil
	}
	return grepBuffer(data, rel, o), nil
}

// readProbed reads f (about size bytes) into buf, first only the binary
// probe: when that holds a NUL byte it stops and reports the file binary.
// The returned slice reuses buf's storage when it is big enough.
func readProbed(f *os.File, buf []byte, size int) (data []byte, binary bool, err error) {
	if cap(buf) < max(size+1, grepBinaryProbe) {
		buf = make([]byte, 0, max(size+size/8+512, grepBinaryProbe))
	}
	probe := buf[:min(grepBinaryProbe, cap(buf))]
	n, err := io.ReadFull(f, probe)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return buf, false, err
	}
	if bytes.IndexByte(probe[:n], 0) >= 0 {
		return buf, true, nil
	}
	buf = buf[:n]
	if n < len(probe) {
		return buf, false, nil // the whole file fit in the probe
	}
	// Read to EOF: the file may have grown since Stat.
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
}

// grepBuffer finds the matching lines of a whole file. Lines are buf's
// lines with their line ending ("\r\n" or "\n", all trailing CR and LF)
// removed, as the streaming reader yields them.
func grepBuffer(buf []byte, rel string, o *grepOptions) []grepMatch {
	pre := o.pre
	if pre != nil && pre.index(buf) < 0 {
		return nil
	}
	// Without context lines, whole runs of lines that cannot match are
	// jumped over from one literal occurrence to the next.
	jump := pre != nil && o.before == 0 && o.after == 0
	var out []grepMatch
	var before []grepMatch // ring of the last o.before lines
	afterLeft, lastEmitted, matches := 0, 0, 0
	pos, n := 0, 1 // start and number of the current line
	for pos < len(buf) {
		if jump {
			i := pre.index(buf[pos:])
			if i < 0 {
				break
			}
			start := pos + bytes.LastIndexByte(buf[pos:pos+i], '\n') + 1
			n += bytes.Count(buf[pos:start], []byte{'\n'})
			pos = start
		}
		end := len(buf)
		next := len(buf)
		if i := bytes.IndexByte(buf[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		text := bytes.TrimRight(buf[pos:end], "\r\n")
		isMatch := (pre == nil || pre.index(buf[pos:end]) >= 0) &&
			o.re.Match(text) && (o.maxPerFile == 0 || matches < o.maxPerFile)
		switch {
		case isMatch:
			for _, b := range before {
				if b.line > lastEmitted {
					out = append(out, b)
				}
			}
			before = before[:0]
			out = append(out, grepMatch{file: rel, line: n, text: string(text)})
			lastEmitted = n
			matches++
			afterLeft = o.after
		case afterLeft > 0:
			out = append(out, grepMatch{file: rel, line: n, text: string(text), context: true})
			lastEmitted = n
			afterLeft--
		case o.before > 0:
			before = append(before, grepMatch{file: rel, line: n, text: string(text), context: true})
			if len(before) > o.before {
				before = before[1:]
			}
		}
		if o.maxPerFile > 0 && matches >= o.maxPerFile && afterLeft == 0 {
			break
		}
		pos = next
		n++
	}
	return out
}

// grepStream searches a file too big to hold in memory line by line, with
// the same line and context semantics as grepBuffer.
func grepStream(ctx context.Context, r io.Reader, rel string, o *grepOptions) ([]grepMatch, error) {
	rd := bufio.NewReaderSize(r, 64*1024)
	if head, _ := rd.Peek(grepBinaryProbe); bytes.IndexByte(head, 0) >= 0 {
		return nil, nil
	}
	var out []grepMatch
	var before []grepMatch
	afterLeft, lastEmitted, matches := 0, 0, 0
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		raw, rerr := rd.ReadString('\n')
		if raw == "" && rerr != nil {
			break
		}
		text := strings.TrimRight(raw, "\r\n")
		isMatch := o.re.MatchString(text) && (o.maxPerFile == 0 || matches < o.maxPerFile)
		switch {
		case isMatch:
			for _, b := range before {
				if b.line > lastEmitted {
					out = append(out, b)
				}
			}
			before = before[:0]
			out = append(out, grepMatch{file: rel, line: n, text: text})
			lastEmitted = n
			matches++
			afterLeft = o.after
		case afterLeft > 0:
			out = append(out, grepMatch{file: rel, line: n, text: text, context: true})
			lastEmitted = n
			afterLeft--
		case o.before > 0:
			before = append(before, grepMatch{file: rel, line: n, text: text, context: true})
			if len(before) > o.before {
				before = before[1:]
			}
		}
		if o.maxPerFile > 0 && matches >= o.maxPerFile && afterLeft == 0 {
			break
		}
		if rerr != nil {
			break
		}
	}
	return out, nil
}
