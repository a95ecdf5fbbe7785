package tui

import (
	"strconv"
	"strings"
	"unicode"
)

// Vim's NORMAL mode over the input's text, with Gemini CLI 0.61's key set
// (its vim.ts and text-buffer's vim_* actions): counts; h j k l, w b e
// and W B E, 0 ^ $, gg G and [N]G, f F t T and ; ,; x X ~ r; the d, c
// and y operators with those motions (dd cc yy whole lines, cw as ce);
// D C Y; p P; i a I A o O into INSERT; u undo and . to repeat the last
// change. The text is one rune slice with "\n" between lines and the
// cursor an offset into it, so that word motions cross lines as vim's do.

// vimBuf is the input's text and cursor.
type vimBuf struct {
	r   []rune
	pos int
}

func (b *vimBuf) lineStart(p int) int {
	for p > 0 && b.r[p-1] != '\n' {
		p--
	}
	return p
}

// lineEnd is the offset of the "\n" ending p's line, or the text's end.
func (b *vimBuf) lineEnd(p int) int {
	for p < len(b.r) && b.r[p] != '\n' {
		p++
	}
	return p
}

// lastCol is where NORMAL mode's cursor may rest at most on p's line: on
// its last character, not after it.
func (b *vimBuf) lastCol(p int) int {
	s, e := b.lineStart(p), b.lineEnd(p)
	return max(s, e-1)
}

// rowCol is p as a line and a column.
func (b *vimBuf) rowCol(p int) (row, col int) {
	for i := 0; i < p && i < len(b.r); i++ {
		if b.r[i] == '\n' {
			row++
			col = 0
		} else {
			col++
		}
	}
	return row, col
}

// lineAt is the offset of the start of line row (clamped).
func (b *vimBuf) lineAt(row int) int {
	p := 0
	for i := 0; i < row; i++ {
		e := b.lineEnd(p)
		if e >= len(b.r) {
			break
		}
		p = e + 1
	}
	return p
}

func (b *vimBuf) lines() int { return strings.Count(string(b.r), "\n") + 1 }

// class is a rune's word class: 0 blank, 1 keyword, 2 other; big words
// know only blank and not.
func class(r rune, big bool) int {
	switch {
	case unicode.IsSpace(r):
		return 0
	case big || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
		return 1
	}
	return 2
}

// wordForward is the start of the next word after p.
func (b *vimBuf) wordForward(p int, big bool) int {
	n := len(b.r)
	if p >= n {
		return n
	}
	c := class(b.r[p], big)
	for p < n && c != 0 && class(b.r[p], big) == c {
		p++
	}
	for p < n && class(b.r[p], big) == 0 {
		p++
	}
	return p
}

// wordEnd is the end of the word at or after p+1.
func (b *vimBuf) wordEnd(p int, big bool) int {
	n := len(b.r)
	p++
	for p < n && class(b.r[p], big) == 0 {
		p++
	}
	if p >= n {
		return max(n-1, 0)
	}
	c := class(b.r[p], big)
	for p+1 < n && class(b.r[p+1], big) == c {
		p++
	}
	return p
}

// wordBackward is the start of the word before p.
func (b *vimBuf) wordBackward(p int, big bool) int {
	p--
	for p > 0 && class(b.r[p], big) == 0 {
		p--
	}
	if p <= 0 {
		return 0
	}
	c := class(b.r[p], big)
	for p > 0 && class(b.r[p-1], big) == c {
		p--
	}
	return p
}

// firstNonBlank is the first non-blank character of p's line.
func (b *vimBuf) firstNonBlank(p int) int {
	s, e := b.lineStart(p), b.lineEnd(p)
	for s < e && (b.r[s] == ' ' || b.r[s] == '\t') {
		s++
	}
	return s
}

// vertical is p moved n lines down (up when negative), at the same
// column where the line is long enough.
func (b *vimBuf) vertical(p, n int) int {
	row, col := b.rowCol(p)
	row = min(max(row+n, 0), b.lines()-1)
	s := b.lineAt(row)
	return min(s+col, b.lastCol(s))
}

// find is f F t T: the count-th c on p's line forward or back, or one
// short of it (till); ok false when there is none.
func (b *vimBuf) find(p int, c rune, count int, back, till bool) (int, bool) {
	s, e := b.lineStart(p), b.lineEnd(p)
	q := p
	for range count {
		for {
			if back {
				q--
			} else {
				q++
			}
			if q < s || q >= e {
				return p, false
			}
			if b.r[q] == c {
				break
			}
		}
	}
	if till {
		if back {
			q++
		} else {
			q--
		}
	}
	return q, true
}

// vimState is what NORMAL mode remembers between keys.
type vimState struct {
	count    string // digits typed
	op       string // d, c or y waiting for its motion
	opCount  string // the count typed before the operator
	pending  string // g, r, or a find (f F t T) waiting for its character
	register []rune
	linewise bool // the register holds whole lines
	lastFind string
	keys     []string // the keys of the command in progress
	last     []string // the keys of the last change, for "."
}

// vimResult is what a key did.
type vimResult struct {
	changed bool // the text changed: an undo step
	insert  bool // INSERT mode begins
	undo    bool // u
	done    bool // the command ended (the keys are not pending)
}

func (s *vimState) reset() {
	s.count, s.op, s.opCount, s.pending = "", "", "", ""
	s.keys = s.keys[:0]
}

// counts is the command's count: the operator's times the motion's.
func (s *vimState) counts() (n int, given bool) {
	n = 1
	for _, c := range []string{s.opCount, s.count} {
		if c != "" {
			v, _ := strconv.Atoi(c)
			n *= max(v, 1)
			given = true
		}
	}
	return n, given
}

// key runs one key of NORMAL mode on b.
func (s *vimState) key(b *vimBuf, k string) vimResult {
	s.keys = append(s.keys, k)
	if s.pending != "" {
		return s.pendingKey(b, k)
	}
	if k >= "1" && k <= "9" || k == "0" && s.count != "" {
		s.count += k
		return vimResult{}
	}
	n, given := s.counts()
	if s.op != "" {
		return s.operate(b, k, n, given)
	}
	res := vimResult{done: true}
	change := func() {
		res.changed = true
		s.last = append(s.last[:0], s.keys...)
	}
	switch k {
	case "d", "c", "y":
		s.op, s.opCount, s.count = k, s.count, ""
		return vimResult{}
	case "g", "r", "f", "F", "t", "T":
		s.pending = k
		return vimResult{}
	case "u":
		res.undo = true
	case ".":
		if len(s.last) > 0 {
			last := append([]string(nil), s.last...)
			if given {
				// A count given to "." replaces the command's own.
				last = stripCount(last)
				last = append(strings.Split(strconv.Itoa(n), ""), last...)
			}
			s.reset()
			for _, x := range last {
				r := s.key(b, x)
				res.changed = res.changed || r.changed
				res.insert = res.insert || r.insert
			}
			s.last = last
		}
		return res
	case "x", "X":
		e := b.lineEnd(b.pos)
		from, to := b.pos, min(b.pos+n, e)
		if k == "X" {
			from, to = max(b.pos-n, b.lineStart(b.pos)), b.pos
		}
		if from < to {
			s.yank(b, from, to, false)
			b.cut(from, to)
			b.pos = min(from, b.lastCol(from))
			change()
		}
	case "~":
		e := b.lineEnd(b.pos)
		for i := b.pos; i < min(b.pos+n, e); i++ {
			r := b.r[i]
			if unicode.IsUpper(r) {
				b.r[i] = unicode.ToLower(r)
			} else {
				b.r[i] = unicode.ToUpper(r)
			}
		}
		b.pos = min(b.pos+n, b.lastCol(b.pos))
		change()
	case "D", "C":
		return s.operate(b, "$", n, given, map[string]string{"D": "d", "C": "c"}[k])
	case "Y":
		return s.operate(b, "y", n, given, "y")
	case "p", "P":
		if len(s.register) > 0 {
			b.paste(s.register, s.linewise, k == "P", n)
			change()
		}
	case "i", "a", "I", "A", "o", "O":
		switch k {
		case "a":
			b.pos = min(b.pos+1, b.lineEnd(b.pos))
		case "I":
			b.pos = b.firstNonBlank(b.pos)
		case "A":
			b.pos = b.lineEnd(b.pos)
		case "o":
			e := b.lineEnd(b.pos)
			b.insert(e, []rune{'\n'})
			b.pos = e + 1
		case "O":
			st := b.lineStart(b.pos)
			b.insert(st, []rune{'\n'})
			b.pos = st
		}
		res.insert = true
		if k == "o" || k == "O" {
			change()
		}
	default:
		p, ok := s.motion(b, k, n, given)
		if !ok {
			s.reset()
			return vimResult{done: true}
		}
		b.pos = min(p, b.lastCol(p))
	}
	s.reset()
	return res
}

// stripCount drops the leading count of a command's keys.
func stripCount(keys []string) []string {
	for len(keys) > 0 && keys[0] >= "0" && keys[0] <= "9" {
		keys = keys[1:]
	}
	return keys
}

// pendingKey completes g, r or a find with the key after it.
func (s *vimState) pendingKey(b *vimBuf, k string) vimResult {
	p := s.pending
	s.pending = ""
	n, given := s.counts()
	if s.op != "" {
		// The motion of an operator: dgg, dfx, ctx …
		return s.operate(b, p+k, n, given)
	}
	if p == "r" {
		res := vimResult{done: true}
		e := b.lineEnd(b.pos)
		if r := []rune(k); len(r) == 1 && b.pos+n <= e {
			for i := b.pos; i < b.pos+n; i++ {
				b.r[i] = r[0]
			}
			b.pos += n - 1
			res.changed = true
			s.last = append(s.last[:0], s.keys...)
		}
		s.reset()
		return res
	}
	if q, ok := s.motion(b, p+k, n, given); ok {
		b.pos = min(q, b.lastCol(q))
	}
	s.reset()
	return vimResult{done: true}
}

// motion is where a motion of count n takes the cursor; ok false for a
// key that is no motion.
func (s *vimState) motion(b *vimBuf, k string, n int, given bool) (int, bool) {
	p := b.pos
	switch {
	case k == "h" || k == "left":
		return max(p-n, b.lineStart(p)), true
	case k == "l" || k == "right":
		return min(p+n, b.lineEnd(p)), true
	case k == "j" || k == "down":
		return b.vertical(p, n), true
	case k == "k" || k == "up":
		return b.vertical(p, -n), true
	case k == "w" || k == "W":
		for range n {
			p = b.wordForward(p, k == "W")
		}
		return p, true
	case k == "b" || k == "B":
		for range n {
			p = b.wordBackward(p, k == "B")
		}
		return p, true
	case k == "e" || k == "E":
		for range n {
			p = b.wordEnd(p, k == "E")
		}
		return p, true
	case k == "0":
		return b.lineStart(p), true
	case k == "^":
		return b.firstNonBlank(p), true
	case k == "$":
		if n > 1 {
			p = b.vertical(p, n-1)
		}
		return b.lineEnd(p), true
	case k == "gg" || k == "G":
		row := 0
		switch {
		case given:
			row = n - 1
		case k == "G":
			row = b.lines() - 1
		}
		return b.firstNonBlank(b.lineAt(row)), true
	case k == ";" || k == ",":
		if s.lastFind == "" {
			return p, false
		}
		f := s.lastFind
		kind := f[:1]
		if k == "," {
			kind = map[string]string{"f": "F", "F": "f", "t": "T", "T": "t"}[kind]
		}
		q, ok := b.find(p, []rune(f[1:])[0], n, kind == "F" || kind == "T", kind == "t" || kind == "T")
		if ok && q == p && (kind == "t" || kind == "T") {
			// A till already next to its character moves past it.
			q, ok = b.find(p+map[bool]int{true: -1, false: 1}[kind == "T"], []rune(f[1:])[0], n, kind == "T", true)
		}
		return q, ok
	case len(k) > 1 && strings.ContainsAny(k[:1], "fFtT"):
		c := []rune(k[1:])
		if len(c) != 1 {
			return p, false
		}
		s.lastFind = k
		return b.find(p, c[0], n, k[0] == 'F' || k[0] == 'T', k[0] == 't' || k[0] == 'T')
	}
	return p, false
}

// operate applies the pending operator (or op, for D C Y) to the motion
// k.
func (s *vimState) operate(b *vimBuf, k string, n int, given bool, op ...string) vimResult {
	o := s.op
	if len(op) > 0 {
		o = op[0]
	}
	if k == "g" || len(k) == 1 && strings.ContainsAny(k, "fFtT") {
		s.pending = k
		return vimResult{}
	}
	res := vimResult{done: true}
	defer s.reset()
	var from, to int
	linewise := false
	switch {
	case k == o:
		// dd cc yy: n whole lines.
		linewise = true
		from = b.lineStart(b.pos)
		to = b.lineEnd(b.vertical(b.pos, n-1))
	case k == "j" || k == "k" || k == "gg" || k == "G":
		linewise = true
		q, _ := s.motion(b, k, n, given)
		from, to = b.lineStart(min(b.pos, q)), b.lineEnd(max(b.pos, q))
	default:
		mk := k
		if o == "c" && (k == "w" || k == "W") && b.pos < len(b.r) && class(b.r[b.pos], k == "W") != 0 {
			// cw changes to the end of the word, as vim's.
			mk = map[string]string{"w": "e", "W": "E"}[k]
		}
		q, ok := s.motion(b, mk, n, given)
		if !ok {
			return res
		}
		if (mk == "w" || mk == "W") && q > b.lineEnd(b.pos) {
			// dw stops at the end of the line.
			q = b.lineEnd(b.pos)
		}
		from, to = min(b.pos, q), max(b.pos, q)
		if mk == "e" || mk == "E" || mk == "$" || len(mk) > 1 && strings.ContainsAny(mk[:1], "fFtT;,") && q >= b.pos {
			to = min(to+1, len(b.r)) // inclusive motions
		}
		if mk == "$" {
			to = max(q, b.pos)
		}
	}
	if from == to && !linewise {
		return res
	}
	if linewise && o != "c" {
		// The line's "\n" goes with it: the one after, or for the last
		// line the one before.
		switch {
		case to < len(b.r):
			to++
		case from > 0:
			from--
		}
	}
	s.yank(b, from, to, linewise)
	if linewise && from < len(b.r) && b.r[from] == '\n' && to == len(b.r) {
		// Yanked without the leading "\n" taken for the last line.
		s.register = s.register[1:]
	}
	switch o {
	case "y":
		if !linewise {
			b.pos = min(from, b.pos)
		}
		return res
	case "d":
		b.cut(from, to)
		b.pos = min(from, len(b.r))
		if linewise {
			b.pos = b.firstNonBlank(min(from, len(b.r)))
		}
		b.pos = min(b.pos, b.lastCol(b.pos))
	case "c":
		b.cut(from, to)
		b.pos = from
		res.insert = true
	}
	res.changed = true
	s.last = append(s.last[:0], s.keys...)
	return res
}

// yank keeps from..to in the register.
func (s *vimState) yank(b *vimBuf, from, to int, linewise bool) {
	s.register = append(s.register[:0:0], b.r[from:to]...)
	s.linewise = linewise
	if linewise && len(s.register) > 0 && s.register[len(s.register)-1] != '\n' {
		s.register = append(s.register, '\n')
	}
}

func (b *vimBuf) cut(from, to int) { b.r = append(b.r[:from], b.r[to:]...) }

func (b *vimBuf) insert(at int, rs []rune) {
	b.r = append(b.r[:at], append(append([]rune(nil), rs...), b.r[at:]...)...)
}

// paste puts reg n times after the cursor (before with before), lines
// below or above the cursor's line when it holds whole lines.
func (b *vimBuf) paste(reg []rune, linewise, before bool, n int) {
	var text []rune
	for range n {
		text = append(text, reg...)
	}
	if !linewise {
		at := b.pos
		if !before && at < b.lineEnd(at) {
			at++
		}
		b.insert(at, text)
		b.pos = at + len(text) - 1
		return
	}
	at := b.lineStart(b.pos)
	if !before {
		at = b.lineEnd(b.pos)
		if at == len(b.r) {
			// After the last line: a "\n" first, the last one dropped.
			text = append([]rune{'\n'}, text[:len(text)-1]...)
		} else {
			at++
		}
	}
	b.insert(at, text)
	if text[0] == '\n' {
		at++
	}
	b.pos = b.firstNonBlank(at)
}
