package textutil

import (
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Collator orders names as JavaScript's String.prototype.localeCompare
// does without a locale under Node's ICU (the CLDR root collation), which
// is the order Gemini CLI lists folders, directory entries and glob
// results in: punctuation before digits before letters, letters without
// regard to accents and case first ("e" < "é" < "f", "a" < "B"), then
// accents, then lower case before upper case. Names the collation cannot
// tell apart fall back to byte order, so that a sort is deterministic.
//
// A Collator is not safe for concurrent use: make one per sort.
type Collator struct {
	c   *collate.Collator
	buf collate.Buffer
}

// NewCollator returns a Collator for the root collation.
func NewCollator() *Collator {
	return &Collator{c: collate.New(language.Und)}
}

// Compare returns -1, 0 or 1 as a sorts before, with or after b.
func (c *Collator) Compare(a, b string) int {
	if r := c.c.CompareString(a, b); r != 0 {
		return r
	}
	return strings.Compare(a, b)
}

// Key returns s's sort key: keys compare byte for byte as Compare orders
// their strings, except that strings the collation cannot tell apart get
// equal keys (break such ties with strings.Compare). Sorting many strings
// by key computes each string's weights once.
func (c *Collator) Key(s string) string {
	k := string(c.c.KeyFromString(&c.buf, s))
	c.buf.Reset()
	return k
}
