package builtin

// How a capped ripgrep search over a directory is split into runs.
//
// The result must be the first matches of a complete search in path
// order, while ripgrep searches in parallel, in no order. One run over
// the whole tree gives the right answer but reads all of it even when
// the first directory holds more matches than the cap; ripgrep's
// --sort path reads in order but on one thread. So the directory's
// entries are searched in path order, in a few runs of growing size,
// each run parallel inside: after a run, when the cap's last match sorts
// before every entry not yet searched, nothing left can change the
// answer and the search stops. No entry is searched twice; a sparse
// search costs a few ripgrep starts more than one run.
//
// A run is confined to its entries by an ignore file (--ignore-file)
// that hides the others. ripgrep gives such a file the lowest
// precedence, so every rule of the tree (.gitignore, .ignore, .rgignore,
// global excludes, the exclusion globs) still decides as in one run over
// the whole directory: entries are not handed to ripgrep as paths, which
// it would search even when ignored. An entry a higher-precedence file
// whitelists ("!name" in a .gitignore) escapes the hiding and is read by
// every run; rgKept drops its lines after the first.

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// rgPlanMinEntries: a directory with fewer entries than this has its
	// first subdirectory opened in its place (repeatedly, up to
	// rgPlanMaxExpand times), so that the first runs stay small when the
	// tree is one or two big folders (a repository holding src/ only).
	rgPlanMinEntries = 16
	rgPlanMaxExpand  = 4
)

// rgChunkSizes are the sizes of the runs before the last one, which
// takes every entry left. A run takes entries while their weight (the
// entries they hold, themselves included) fits in its size, and at least
// one. The first is small so that a dense search stops after reading
// little; there are few, since each costs a ripgrep start (3-5 ms of
// CPU): a search whose matches are rare costs about one run over the
// whole tree.
var rgChunkSizes = []int{16, 256}

// rgPlan is the order in which a directory search's entries are given to
// ripgrep.
type rgPlan struct {
	// expanded are the directories whose entries are listed one by one,
	// slash paths relative to the search directory, "" (the search
	// directory itself) first.
	expanded []string
	// units are the entries still to search, in path order: children of
	// an expanded directory, never one itself.
	units []rgUnit
	// done are the entries searched by earlier runs or skipped.
	done []string
	// runs counts the runs planned so far.
	runs int
	// searched is the weight (rgWeight) of the entries given to the runs
	// so far.
	searched int
}

// rgUnit is one entry of a plan.
type rgUnit struct {
	rel string // slash path relative to the search directory
	dir bool
}

// newRgPlan lists dir; nil when the search should be one run over the
// whole directory: it cannot be listed, it holds a single entry, or an
// entry's name cannot be written as a literal ignore rule. Entries skip
// reports as holding no result (excluded or ignored) are left out of
// every run.
func newRgPlan(dir string, skip func(rel string, isDir bool) bool) *rgPlan {
	p := &rgPlan{expanded: []string{""}}
	if !p.list(dir, "", skip, 0) {
		return nil
	}
	for len(p.units) < rgPlanMinEntries && len(p.expanded) <= rgPlanMaxExpand {
		i := slices.IndexFunc(p.units, func(u rgUnit) bool { return u.dir })
		if i < 0 {
			break
		}
		if !p.open(dir, i, skip) {
			return nil
		}
	}
	// A first run of a few files before a big folder (Go's src/:
	// Make.dist, all.bash, ... then archive/) would tell nothing of how
	// dense the matches are, and cost a run more when they are rare: the
	// folder that stops it is opened, so that it fills up.
	for opened := 0; opened < rgPlanMaxExpand; opened++ {
		i, weight := p.runEnd(dir, rgChunkSizes[0])
		if i >= len(p.units) || !p.units[i].dir || 2*weight >= rgChunkSizes[0] {
			break
		}
		if !p.open(dir, i, skip) {
			return nil
		}
	}
	if len(p.units) < 2 {
		return nil
	}
	return p
}

// open replaces the directory units[i] by its entries; false when one
// cannot be an ignore rule.
func (p *rgPlan) open(dir string, i int, skip func(string, bool) bool) bool {
	d := p.units[i].rel
	p.units = slices.Delete(p.units, i, i+1)
	p.expanded = append(p.expanded, d)
	return p.list(dir, d, skip, i)
}

// runEnd is where a run of the given size starting at units[0] ends:
// the index of the first unit it leaves out (len(units) when it takes
// them all) and the weight of those it takes. A run takes units while
// their weight fits in its size, and at least one.
func (p *rgPlan) runEnd(dir string, size int) (n, weight int) {
	weight = rgWeight(dir, p.units[0], size)
	for n = 1; n < len(p.units); n++ {
		w := rgWeight(dir, p.units[n], size-weight)
		if weight+w > size {
			break
		}
		weight += w
	}
	return n, weight
}

// list inserts the entries of dir/rel at units[at], in path order; false
// when one cannot be an ignore rule.
func (p *rgPlan) list(dir, rel string, skip func(string, bool) bool, at int) bool {
	ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	var add []rgUnit
	for _, e := range ents { // os.ReadDir sorts by name: path order
		if !rgPlainName(e.Name()) {
			return false
		}
		u := rgUnit{rel: path.Join(rel, e.Name()), dir: e.IsDir()}
		if skip != nil && skip(u.rel, u.dir) {
			p.done = append(p.done, u.rel)
			continue
		}
		add = append(add, u)
	}
	p.units = slices.Insert(p.units, at, add...)
	return true
}

// rgPlainName reports whether a file name can stand in a gitignore rule
// as itself: no glob or escape characters, no leading "!" or "#", no
// surrounding or control spaces, valid UTF-8.
func rgPlainName(name string) bool {
	if name == "" || !utf8.ValidString(name) || strings.ContainsAny(name, "\\*?[]{}!#") {
		return false
	}
	if strings.TrimSpace(name) != name {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// next returns the ignore rules of the next run over dir's entries, and
// false when every entry has been searched. found tells whether the runs
// so far found a match: when the first found none, matches are rare and
// the next run takes every entry left, as a run more would cost its
// start for nothing. A first run of less than half its size (a few files
// before a big folder, as Go's src/ starts) tells nothing yet: the
// next run then takes the next size, so that a search whose matches are
// everywhere still stops early.
func (p *rgPlan) next(dir string, found bool) (rules string, ok bool) {
	if len(p.units) == 0 {
		return "", false
	}
	n := len(p.units)
	if p.runs < len(rgChunkSizes) && (p.runs == 0 || found || 2*p.searched < rgChunkSizes[0]) {
		var weight int
		n, weight = p.runEnd(dir, rgChunkSizes[p.runs])
		p.searched += weight
	}
	var b strings.Builder
	if n < len(p.units) {
		// Hide every entry of each expanded directory but the run's own
		// and the expanded directories leading to the others.
		var run []string
		for _, u := range p.units[:n] {
			run = append(run, u.rel)
		}
		for _, e := range p.expanded {
			b.WriteString(path.Join("/", e, "*") + "\n")
			for _, list := range [][]string{run, p.expanded[1:]} {
				for _, u := range list {
					if rgParent(u) == e {
						b.WriteString("!/" + u + "\n")
					}
				}
			}
		}
		p.done = append(p.done, run...)
		p.units = p.units[n:]
	} else {
		// The last run: hide only what earlier runs searched.
		for _, d := range p.done {
			b.WriteString("/" + d + "\n")
		}
		p.units = nil
	}
	p.runs++
	return b.String(), true
}

// rgWeight is the number of entries in a unit, itself included, counted
// up to limit+1 at most.
func rgWeight(dir string, u rgUnit, limit int) int {
	n := 1
	if !u.dir {
		return n
	}
	queue := []string{filepath.Join(dir, filepath.FromSlash(u.rel))}
	for len(queue) > 0 && n <= limit {
		f, err := os.Open(queue[0])
		queue = queue[1:]
		if err != nil {
			continue
		}
		ents, _ := f.ReadDir(limit + 1 - n)
		_ = f.Close()
		for _, e := range ents {
			n++
			if e.IsDir() {
				queue = append(queue, filepath.Join(f.Name(), e.Name()))
			}
		}
	}
	return n
}

// rgParent is the directory of a slash path relative to the search
// directory, "" for the search directory itself.
func rgParent(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

// pending is the first entry not searched yet, "" when none is left.
func (p *rgPlan) pending() string {
	if len(p.units) == 0 {
		return ""
	}
	return p.units[0].rel
}

// rgProbeBytes bounds what firstRunMayMatch reads of the first run's
// files; a first run holding more is left to ripgrep.
const rgProbeBytes = 1 << 20

// firstRunMayMatch reports whether the plan's first run may find a match,
// given pre, a literal every match holds (grepPrefilter), and the
// include glob. It is false only when that run, had it found nothing,
// would leave every other entry to one more run (see next), and every
// file it would search was read here and none holds the literal: then
// one run over the whole directory finds what the two would, for one
// ripgrep start (3-5 ms of CPU) instead of two. Whatever it answers, the
// results come from ripgrep; a wrong answer only costs: a file ripgrep
// ignores, a binary one or one past the bounds counts as a possible
// match, and a file ripgrep decodes (UTF-16) as holding none.
func (p *rgPlan) firstRunMayMatch(dir string, pre *grepPrefilter, include string) bool {
	if p.runs > 0 || len(p.units) == 0 {
		return true
	}
	n, weight := p.runEnd(dir, rgChunkSizes[0])
	if 2*weight < rgChunkSizes[0] {
		return true // a miss would not end the plan
	}
	budget, visits := rgProbeBytes, 4*rgChunkSizes[0]
	var buf []byte
	stack := make([]string, 0, n)
	for i := n - 1; i >= 0; i-- {
		stack = append(stack, p.units[i].rel)
	}
	for len(stack) > 0 {
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visits--; visits < 0 {
			return true
		}
		full := filepath.Join(dir, filepath.FromSlash(rel))
		fi, err := os.Lstat(full)
		switch {
		case err != nil:
			return true
		case fi.IsDir():
			if grepExcludedDirs.Get()[path.Base(rel)] {
				continue // ripgrep never enters it
			}
			// At most the visits left: a bigger folder is left to
			// ripgrep before all its names are read.
			d, err := os.Open(full)
			if err != nil {
				return true
			}
			ents, err := d.ReadDir(visits - len(stack) + 1)
			_ = d.Close()
			if (err != nil && err != io.EOF) || len(ents) > visits-len(stack) {
				return true
			}
			for _, e := range ents {
				stack = append(stack, path.Join(rel, e.Name()))
			}
			continue
		case !fi.Mode().IsRegular() || grepExcluded(rel) || !includeMatches(include, rel):
			continue // a link ripgrep does not follow, or a file it skips
		case fi.Size() > int64(budget):
			return true
		}
		f, err := os.Open(full)
		if err != nil {
			return true
		}
		var binary bool
		buf, binary, err = readProbed(f, buf[:0], int(fi.Size()))
		_ = f.Close()
		if err != nil || binary || pre.index(buf) >= 0 {
			return true
		}
		budget -= len(buf)
	}
	return false
}
