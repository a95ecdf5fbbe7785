package agent

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
)

// Loop detection thresholds, as Gemini CLI has them.
const (
	identicalCallThreshold = 5
	chantChunkSize         = 50
	chantThreshold         = 10
	chantHistoryLimit      = 5000
)

// loopDetector notices a model repeating itself: the same tool call with
// the same arguments several times in a row, or the same text chanted over
// and over.
type loopDetector struct {
	lastCall  string
	callCount int

	text     strings.Builder
	inFence  bool
	chunks   map[[32]byte][]int
	scanned  int
	disabled bool
}

func newLoopDetector(disabled bool) *loopDetector {
	return &loopDetector{disabled: disabled, chunks: map[[32]byte][]int{}}
}

// reset forgets everything; called at the start of each user prompt.
func (d *loopDetector) reset() {
	*d = loopDetector{disabled: d.disabled, chunks: map[[32]byte][]int{}}
}

// toolCall records a call and reports a loop when it is the threshold-th
// identical call in a row.
func (d *loopDetector) toolCall(name string, args map[string]any) (string, bool) {
	if d.disabled {
		return "", false
	}
	b, _ := json.Marshal(args) // map keys marshal sorted, so equal args give equal keys
	key := name + ":" + string(b)
	if key == d.lastCall {
		d.callCount++
	} else {
		d.lastCall, d.callCount = key, 1
	}
	// Text between calls is not a loop of its own; start over.
	d.resetText()
	if d.callCount >= identicalCallThreshold {
		return fmt.Sprintf("The model called %s with the same arguments %d times in a row.", name, d.callCount), true
	}
	return "", false
}

func (d *loopDetector) resetText() {
	d.text.Reset()
	d.chunks = map[[32]byte][]int{}
	d.scanned = 0
	d.inFence = false
}

// content records streamed text and reports a loop when a 50-character
// window recurs ten times close together. Code blocks are skipped, since
// repeated lines are normal there.
func (d *loopDetector) content(s string) (string, bool) {
	if d.disabled || s == "" {
		return "", false
	}
	d.lastCall, d.callCount = "", 0
	if strings.Count(s, "```")%2 == 1 {
		d.inFence = !d.inFence
		d.resetText()
		return "", false
	}
	if d.inFence {
		return "", false
	}
	if markdownStructure(s) {
		// Tables, lists, headings, quotes and rules repeat their syntax
		// on every line; as in Gemini CLI, they restart the tracking
		// instead of counting as chanting.
		d.resetText()
		return "", false
	}
	d.text.WriteString(s)
	t := d.text.String()
	if len(t) > chantHistoryLimit {
		// Keep the tail; positions restart.
		d.resetText()
		d.text.WriteString(t[len(t)-chantHistoryLimit/2:])
		t = d.text.String()
	}
	for ; d.scanned+chantChunkSize <= len(t); d.scanned++ {
		sum := sha256.Sum256([]byte(t[d.scanned : d.scanned+chantChunkSize]))
		pos := append(d.chunks[sum], d.scanned)
		d.chunks[sum] = pos
		if len(pos) >= chantThreshold {
			recent := pos[len(pos)-chantThreshold:]
			span := recent[len(recent)-1] - recent[0]
			if span <= chantChunkSize*5*(chantThreshold-1) {
				return "The model repeated the same text many times.", true
			}
		}
	}
	return "", false
}

// markdownStructure reports whether s holds a line of a Markdown table,
// list, heading, block quote or horizontal rule.
func markdownStructure(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
		case strings.HasPrefix(l, "|"), strings.HasPrefix(l, "#"), strings.HasPrefix(l, ">"),
			strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "+ "):
			return true
		case strings.Trim(l, "-*_ ") == "" && len(l) >= 3:
			return true
		default:
			if i := strings.IndexFunc(l, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && strings.HasPrefix(l[i:], ". ") {
				return true
			}
		}
	}
	return false
}
