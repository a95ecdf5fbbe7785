package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
)

// Loop detection thresholds, as Gemini CLI 0.61 has them
// (packages/core/src/services/loopDetectionService.ts).
const (
	identicalCallThreshold = 5
	// callCycleMax is the longest cycle of calls that counts as a loop
	// when it comes identicalCallThreshold times in a row.
	callCycleMax      = 5
	chantChunkSize    = 50
	chantThreshold    = 10
	chantHistoryLimit = 5000
	// chantMaxGap is the largest average distance between the recent
	// recurrences of a window that still counts as chanting.
	chantMaxGap = chantChunkSize * 5
	// chantMaxPeriods: when the texts between recent recurrences of a
	// window (its periods) are more varied than this, the window is a
	// shared prefix of distinct items ("For the X package, run …"), not
	// a loop. A true loop has one period, sometimes two or three.
	chantMaxPeriods = chantThreshold / 2
)

// recurrences are the last positions of one window of prose, oldest
// first: only the last chantThreshold of them are ever looked at.
type recurrences struct {
	pos [chantThreshold]int32
	n   int32
}

// add records a position, forgetting the oldest beyond chantThreshold.
func (r *recurrences) add(p int32) {
	if int(r.n) == len(r.pos) {
		copy(r.pos[:], r.pos[1:])
		r.n--
	}
	r.pos[r.n] = p
	r.n++
}

// loopDetector notices a model repeating itself: the same tool call with
// the same arguments several times in a row, or the same text chanted over
// and over. Its memory is bounded whatever the answer's length: the last
// chantHistoryLimit bytes of prose and the windows seen in them, kept in
// flat slices reused from prompt to prompt, so a long answer allocates
// next to nothing.
type loopDetector struct {
	// calls are the hashes of the latest calls (name and arguments),
	// oldest first, as many as the longest cycle repeated needs.
	calls []uint64

	// hist holds the tracked prose; hist[0] is at absolute offset base.
	// Positions are absolute, so dropping the front of hist moves base
	// instead of rewriting every position.
	hist []byte
	base int
	next int // absolute position of the next window to scan
	// chunks maps a window's hash to its record in recs; free lists the
	// records of windows pruned.
	seed   maphash.Seed
	chunks map[uint64]int32
	recs   []recurrences
	free   []int32

	inFence bool
	kind    int    // of the line being streamed: lineUndecided, …
	pending []byte // the beginning of an undecided line

	disabled bool
	// found counts the loops found in this prompt, by any rule: as in
	// Gemini CLI 0.61 the first gets feedback, the second stops it.
	// detail describes the last, in 0.61's words, for that feedback.
	found  int
	detail string
	// check is the model-assisted check's state (loopcheck.go).
	check loopCheckState
}

func newLoopDetector(disabled bool) *loopDetector {
	d := &loopDetector{disabled: disabled, seed: maphash.MakeSeed()}
	d.check.reset()
	return d
}

// reset forgets everything; called at the start of each user prompt.
func (d *loopDetector) reset() {
	d.calls = d.calls[:0]
	d.inFence = false
	d.kind = lineUndecided
	d.pending = d.pending[:0]
	d.resetText()
	d.check.reset()
	d.found, d.detail = 0, ""
}

// strike counts a loop found and reports whether it is the one that
// stops the prompt: the second, the first having been told to the model.
func (d *loopDetector) strike() bool {
	d.found++
	return d.found > 1
}

// resetText forgets the tracked prose, keeping its buffer for reuse.
func (d *loopDetector) resetText() {
	d.hist = d.hist[:0]
	d.base, d.next = 0, 0
	clear(d.chunks)
	d.recs = d.recs[:0]
	d.free = d.free[:0]
}

// toolCall records a call and reports a loop when the latest calls are
// one call, or a cycle of up to callCycleMax calls, repeated
// identicalCallThreshold times in a row, as Gemini CLI 0.61 finds them
// (edit → build → edit → build … with the same arguments each time).
// Text between the calls does not break the row; a call does end the
// tracked prose, since chanting happens within one stream of text.
func (d *loopDetector) toolCall(name string, args map[string]any) (string, bool) {
	if d.disabled {
		return "", false
	}
	b, _ := json.Marshal(args) // map keys marshal sorted, so equal args give equal keys
	if len(d.calls) == identicalCallThreshold*callCycleMax {
		d.calls = d.calls[:copy(d.calls, d.calls[1:])]
	}
	d.calls = append(d.calls, maphash.String(d.seed, name+":"+string(b)))
	d.resetText()
	k := d.callCycle()
	switch {
	case k == 0:
		return "", false
	case k == 1:
		n := 0 // the row may be longer than the threshold
		for i := len(d.calls) - 1; i >= 0 && d.calls[i] == d.calls[len(d.calls)-1]; i-- {
			n++
		}
		d.detail = fmt.Sprintf("Repeated tool call: %s with arguments %s", name, b)
		return fmt.Sprintf("The model called %s with the same arguments %d times in a row.", name, n), true
	}
	d.detail = fmt.Sprintf("Repeated tool call: %s with arguments %s", name, b)
	return fmt.Sprintf("The model repeated the same cycle of %d tool calls %d times in a row.", k, identicalCallThreshold), true
}

// callCycle returns the length of the shortest cycle the latest calls
// repeat identicalCallThreshold times, 0 when none does.
func (d *loopDetector) callCycle() int {
	n := len(d.calls)
	for k := 1; k <= callCycleMax && k*identicalCallThreshold <= n; k++ {
		run := d.calls[n-k*identicalCallThreshold:]
		cycle := run[len(run)-k:]
		repeated := true
		for i, h := range run {
			if h != cycle[i%k] {
				repeated = false
				break
			}
		}
		if repeated {
			return k
		}
	}
	return 0
}

// content records a streamed piece of the answer and reports a loop when
// a 50-byte window recurs ten times close together (on average at most
// 250 bytes apart) with at most five distinct texts between the
// recurrences. Only prose is tracked: code blocks are skipped, since
// repeated lines are normal there, and a line of Markdown structure (a
// table row, list item, heading, quote or rule) restarts the tracking,
// since its syntax repeats on every line. Gemini CLI applies these rules
// to each streamed piece; Castor applies them to each line, so whether an
// answer is cut does not depend on how the model split its stream.
func (d *loopDetector) content(s string) (string, bool) {
	if d.disabled {
		return "", false
	}
	for s != "" {
		line := s
		i := strings.IndexByte(s, '\n')
		nl := i >= 0
		if nl {
			line = s[:i+1]
		}
		s = s[len(line):]
		if d.kind == lineUndecided {
			d.pending = append(d.pending, line...)
			if !nl && len(bytes.TrimLeft(d.pending, " \t")) < linePrefixNeed {
				continue
			}
			d.decide()
			line = string(d.pending)
			d.pending = d.pending[:0]
		}
		if d.kind == lineProse {
			if msg, loop := d.track(line); loop {
				return msg, true
			}
		}
		if nl {
			d.kind = lineUndecided
		}
	}
	return "", false
}

// Kinds of the line being streamed.
const (
	lineUndecided = iota // too little of it seen yet
	lineProse            // tracked
	lineSkipped          // code, or Markdown structure
)

// linePrefixNeed is how much of a line, after its indentation, decides
// its kind: enough for a fence, a rule or a numbered item's "123. ".
const linePrefixNeed = 8

// decide classifies the line whose beginning is pending.
func (d *loopDetector) decide() {
	l := strings.TrimLeft(string(d.pending), " \t")
	switch {
	case strings.HasPrefix(l, "```"), strings.HasPrefix(l, "~~~"):
		d.inFence = !d.inFence
		d.resetText()
		d.kind = lineSkipped
	case d.inFence:
		d.kind = lineSkipped
	case markdownStructure(l):
		d.resetText()
		d.kind = lineSkipped
	default:
		d.kind = lineProse
	}
}

// track appends prose and scans the windows it completes.
func (d *loopDetector) track(s string) (string, bool) {
	d.hist = append(d.hist, s...)
	if over := len(d.hist) - chantHistoryLimit; over > 0 {
		d.hist = d.hist[:copy(d.hist, d.hist[over:])]
		d.base += over
		d.next = max(d.next, d.base)
		d.prune()
	}
	if d.chunks == nil {
		d.chunks = map[uint64]int32{}
	}
	end := d.base + len(d.hist)
	for ; d.next+chantChunkSize <= end; d.next++ {
		w := d.hist[d.next-d.base:][:chantChunkSize]
		h := maphash.Bytes(d.seed, w)
		i, ok := d.chunks[h]
		if !ok {
			i = d.record()
			d.chunks[h] = i
		}
		r := &d.recs[i]
		if r.n > 0 {
			last := int(r.pos[r.n-1])
			switch {
			case last < d.base:
				// Recurrences that fell out of the tracked prose no
				// longer count, as Gemini CLI drops them when it trims
				// its history.
				r.n = 0
			case !bytes.Equal(d.hist[last-d.base:][:chantChunkSize], w):
				continue // another window with the same hash
			}
		}
		r.add(int32(d.next))
		if d.chanting(r.pos[:r.n]) {
			from, to := max(d.next-20, d.base)-d.base, d.next+chantChunkSize-d.base
			d.detail = fmt.Sprintf(`Repeating content detected: "%s..."`, strings.TrimSpace(string(d.hist[from:to])))
			return "The model repeated the same text many times.", true
		}
	}
	return "", false
}

// record returns the index of an empty record, a freed one if any.
func (d *loopDetector) record() int32 {
	if n := len(d.free); n > 0 {
		i := d.free[n-1]
		d.free = d.free[:n-1]
		d.recs[i].n = 0
		return i
	}
	d.recs = append(d.recs, recurrences{})
	return int32(len(d.recs) - 1)
}

// chanting applies Gemini CLI's two rules to a window's positions: the
// last ten recurrences close together, and few distinct periods between
// them.
func (d *loopDetector) chanting(recent []int32) bool {
	if len(recent) < chantThreshold || int(recent[0]) < d.base {
		return false
	}
	if recent[len(recent)-1]-recent[0] > chantMaxGap*(chantThreshold-1) {
		return false
	}
	var periods [chantThreshold][]byte // len(recent)-1 at most
	distinct := 0
	for i := range len(recent) - 1 {
		p := d.hist[int(recent[i])-d.base : int(recent[i+1])-d.base]
		if !slices.ContainsFunc(periods[:distinct], func(q []byte) bool { return bytes.Equal(p, q) }) {
			periods[distinct] = p
			distinct++
		}
	}
	return distinct <= chantMaxPeriods
}

// prune drops the windows seen only in prose no longer tracked, so a long
// answer keeps a bounded map. It runs when the map holds many more windows
// than the tracked prose can, which keeps its cost amortised.
func (d *loopDetector) prune() {
	if len(d.chunks) <= 2*chantHistoryLimit {
		return
	}
	for h, i := range d.chunks {
		if r := &d.recs[i]; int(r.pos[r.n-1]) < d.base {
			d.free = append(d.free, i)
			delete(d.chunks, h)
		}
	}
}

// markdownStructure reports whether a line beginning with l (indentation
// removed) is Markdown structure: a table row, list item, heading, block
// quote or horizontal rule.
func markdownStructure(l string) bool {
	l = strings.TrimRight(l, "\r\n")
	switch {
	case l == "":
		return false
	case strings.HasPrefix(l, "|"), strings.HasPrefix(l, "#"), strings.HasPrefix(l, ">"),
		strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "+ "):
		return true
	case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "***"), strings.HasPrefix(l, "___"),
		strings.HasPrefix(l, "==="):
		return true
	case strings.ContainsFunc(l[:min(len(l), 3)], func(r rune) bool { return r >= '\u2500' && r <= '\u257F' }):
		return true // box drawing: a rule or a drawn table
	}
	i := strings.IndexFunc(l, func(r rune) bool { return r < '0' || r > '9' })
	return i > 0 && (strings.HasPrefix(l[i:], ". ") || strings.HasPrefix(l[i:], ") "))
}
