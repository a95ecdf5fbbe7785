package textutil

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

//go:generate go run gen_collate.go

// Collator orders names as JavaScript's String.prototype.localeCompare
// does without a locale under Node's ICU (the CLDR root collation), which
// is the order Gemini CLI lists folders, directory entries and glob
// results in: punctuation before symbols before digits before letters,
// letters without regard to accents and case first ("e" < "é" < "f",
// "a" < "B"), then accents, then lower case before upper case; digits
// one by one ("file10" < "file2"). Names the collation cannot tell apart
// fall back to byte order, so that a sort is deterministic.
//
// The weights come from a small table (collate_tables.go, some 14 KB,
// written by gen_collate.go from golang.org/x/text/collate, which Castor
// used before) for what file names hold in practice: ASCII, Latin
// letters, IPA, combining diacritics, Greek, Cyrillic, general
// punctuation, currency and letterlike symbols, composed characters and
// the contractions among them ("й" is a letter of its own, "l·" is "ŀ").
// There the order is the root collation's exactly: x/text's (CLDR 23),
// which the golden tests compare it with, but for the Cyrillic letters
// with a diacritic that CLDR 24 on (Node's) weighs as accented letters
// ("ї", "ў"). Other characters are ordered by rule, as the
// root collation roughly does: canonical decompositions first (accented
// letters of other scripts, Hangul syllables), compatibility forms as
// what they decompose to with a tertiary difference, combining marks as
// accents, other punctuation after the table's punctuation, other
// symbols after its symbols (before currency), other currency signs
// after its currency signs (before digits), digits of other scripts as
// the ASCII digit of their value, letters of other scripts after
// Cyrillic by code point (case as tertiary; hiragana and katakana of a
// sound together), then Han ideographs, then the rest (unassigned,
// private use) by code point.
//
// A Collator is not safe for concurrent use: make one per sort.
type Collator struct {
	ka, kb []byte // keys Compare builds
	elems  []elem
	nfd    []byte
	iter   *norm.Iter // made when a name needs decomposing
}

// elem is a collation element: weights of three levels as ranks (0:
// none at that level). cp, when not 0, follows the primary weight (or,
// for a mark with no primary, the secondary one) in a key: the code
// point that orders the characters sharing a rule's weight.
type elem struct {
	p    uint16
	s, t uint8
	cp   rune
}

// noEntry marks characters of the table's ranges that it leaves to the
// rules (unassigned in x/text's Unicode 6.2, or weighed as other
// scripts).
const noEntry = 0xffff

// NewCollator returns a Collator for the root collation.
func NewCollator() *Collator {
	return &Collator{}
}

// Compare returns -1, 0 or 1 as a sorts before, with or after b.
func (c *Collator) Compare(a, b string) int {
	if r, ok := compareASCII(a, b); ok {
		if r != 0 {
			return r
		}
		return strings.Compare(a, b)
	}
	c.ka = c.appendKey(c.ka[:0], a)
	c.kb = c.appendKey(c.kb[:0], b)
	if r := bytes.Compare(c.ka, c.kb); r != 0 {
		return r
	}
	return strings.Compare(a, b)
}

// Key returns s's sort key: keys compare byte for byte as Compare orders
// their strings, except that strings the collation cannot tell apart get
// equal keys (break such ties with strings.Compare). Sorting many strings
// by key computes each string's weights once.
func (c *Collator) Key(s string) string {
	c.ka = c.appendKey(c.ka[:0], s)
	return string(c.ka)
}

// compareASCII compares a and b as long as both are ASCII, where every
// character is one element or none (control characters) and secondary
// weights are all alike: primary weights first, then the first tertiary
// difference. ok is false when the answer needs a non-ASCII character.
func compareASCII(a, b string) (r int, ok bool) {
	tertiary := 0
	i, j := 0, 0
	for {
		for i < len(a) && a[i] < utf8.RuneSelf && tableIndex[a[i]]&7 == 0 {
			i++
		}
		for j < len(b) && b[j] < utf8.RuneSelf && tableIndex[b[j]]&7 == 0 {
			j++
		}
		if i < len(a) && a[i] >= utf8.RuneSelf || j < len(b) && b[j] >= utf8.RuneSelf {
			return 0, false
		}
		if i == len(a) || j == len(b) {
			switch {
			case i < len(a):
				return 1, true
			case j < len(b):
				return -1, true
			}
			return tertiary, true
		}
		ea, eb := tableCEs[tableIndex[a[i]]>>3], tableCEs[tableIndex[b[j]]>>3]
		if pa, pb := ea>>16, eb>>16; pa != pb {
			if pa < pb {
				return -1, true
			}
			return 1, true
		}
		if ta, tb := ea&0xff, eb&0xff; tertiary == 0 && ta != tb {
			tertiary = 1
			if ta < tb {
				tertiary = -1
			}
		}
		i++
		j++
	}
}

// appendKey appends s's sort key to dst: the primary weights (two bytes
// each, then the code point in three for a rule's weight), 0 0, the
// secondary weights (one byte, a mark's code point after it), 0, the
// tertiary weights (one byte). Weights are never 0, so a key whose level
// ends first sorts first, as the level's weights compare.
func (c *Collator) appendKey(dst []byte, s string) []byte {
	es := c.elements(s)
	for _, e := range es {
		if e.p != 0 {
			dst = append(dst, byte(e.p>>8), byte(e.p))
			if e.cp != 0 {
				dst = append(dst, byte(e.cp>>16), byte(e.cp>>8), byte(e.cp))
			}
		}
	}
	dst = append(dst, 0, 0)
	for _, e := range es {
		if e.s != 0 {
			dst = append(dst, e.s)
			if e.p == 0 && e.cp != 0 {
				dst = append(dst, byte(e.cp>>16), byte(e.cp>>8), byte(e.cp))
			}
		}
	}
	dst = append(dst, 0)
	for _, e := range es {
		if e.t != 0 {
			dst = append(dst, e.t)
		}
	}
	return dst
}

// elements returns s's collation elements, in c.elems.
func (c *Collator) elements(s string) []elem {
	es := c.elems[:0]
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(s); i++ {
			es = appendTable(es, tableIndex[s[i]])
		}
		c.elems = es
		return es
	}
	// Names without combining marks whose characters the table holds
	// (composed ones too) are looked up as they are.
	if es, ok := appendDirect(es, s); ok {
		c.elems = es
		return es
	}
	// The others are decomposed first (canonical equivalents collate
	// alike; marks come in canonical order).
	if c.iter == nil {
		c.iter = new(norm.Iter)
	}
	c.nfd = c.nfd[:0]
	for c.iter.InitString(norm.NFD, s); !c.iter.Done(); {
		c.nfd = append(c.nfd, c.iter.Next()...)
	}
	es = appendRunes(es[:0], c.nfd)
	c.elems = es
	return es
}

// appendDirect appends s's elements from the table, contractions
// included, or reports that s needs decomposing: a character the table
// lacks, or one that may be a combining mark (an element with no
// primary weight).
func appendDirect(es []elem, s string) ([]elem, bool) {
	prev, prevAt := rune(-1), 0
	for _, r := range s {
		x := tableEntry(r)
		if x == noEntry || x&7 != 0 && tableCEs[x>>3]>>16 == 0 {
			return es, false
		}
		if r == '·' {
			if x, ok := contraction(prev, r); ok {
				es = appendTable(es[:prevAt], x)
				prev = -1
				continue
			}
		}
		prev, prevAt = r, len(es)
		es = appendTable(es, x)
	}
	return es, true
}

// appendRunes appends the elements of s, decomposed. A contraction's
// mark may follow its base after other marks (of lower combining class,
// which canonical order puts first): the pair weighs as one, the marks
// between after it.
func appendRunes(es []elem, s []byte) []elem {
	base, baseAt, baseEnd := rune(-1), 0, 0 // the last starter and its elements
	gap, between := false, uint8(0)         // marks since, their highest class
	var moved [8]elem
	for _, r := range string(s) { // no copy: the compiler ranges over s
		ccc := uint8(0)
		if r >= 0x300 {
			ccc = norm.NFD.PropertiesString(string(r)).CCC()
		}
		if base >= 0 && isContractionMark(r) && (!gap || ccc > 0 && between < ccc) {
			if x, ok := contraction(base, r); ok {
				tail := append(moved[:0], es[baseEnd:]...)
				es = append(appendTable(es[:baseAt], x), tail...)
				base = -1
				continue
			}
		}
		if ccc == 0 {
			base, baseAt, gap, between = r, len(es), false, 0
			es = appendRune(es, r, 0)
			baseEnd = len(es)
			continue
		}
		gap, between = true, max(between, ccc)
		es = appendRune(es, r, 0)
	}
	return es
}

// contraction returns the table entry of the pair a, b, if the pair
// weighs otherwise than a and b apart.
func contraction(a, b rune) (uint16, bool) {
	for _, c := range contractions {
		if c.a == a && c.b == b {
			return c.x, true
		}
	}
	return 0, false
}

// tableEntry returns r's entry in tableIndex, or noEntry.
func tableEntry(r rune) uint16 {
	switch {
	case r < 0x530:
		return tableIndex[r]
	case 0x1e00 <= r && r < 0x1f00:
		return tableIndex[0x530+r-0x1e00]
	case 0x2000 <= r && r < 0x2150:
		return tableIndex[0x630+r-0x2000]
	}
	return noEntry
}

func appendTable(es []elem, x uint16) []elem {
	for _, w := range tableCEs[x>>3 : x>>3+x&7] {
		es = append(es, elem{p: uint16(w >> 16), s: uint8(w >> 8), t: uint8(w)})
	}
	return es
}

// appendRune appends r's elements, from the table or by rule; depth
// counts compatibility decompositions followed, whose elements get a
// tertiary weight of their own (tCompat above the plain one).
func appendRune(es []elem, r rune, depth int) []elem {
	if x := tableEntry(r); x != noEntry {
		if depth == 0 {
			return appendTable(es, x)
		}
		n := len(es)
		es = appendTable(es, x)
		for i := n; i < len(es); i++ {
			if es[i].t != 0 && es[i].t < tCompat {
				es[i].t += tCompat
			}
		}
		return es
	}
	t := uint8(tLower)
	if depth > 0 {
		t += tCompat
	}
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me) || unicode.Is(unicode.Mc, r) && norm.NFD.PropertiesString(string(r)).CCC() != 0:
		if 0xfe00 <= r && r <= 0xfe0f || 0xe0100 <= r && r <= 0xe01ef {
			return es // variation selectors are ignorable
		}
		return append(es, elem{s: sMark, t: t, cp: r})
	case unicode.In(r, unicode.Cc, unicode.Cf):
		return es
	}
	if depth < 2 {
		if d := norm.NFKD.PropertiesString(string(r)).Decomposition(); d != nil {
			for _, q := range string(d) {
				es = appendRune(es, q, depth+1)
			}
			return es
		}
	}
	switch {
	case unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp):
		return append(es, elem{p: pSpace, s: sCommon, t: tLower + tCompat})
	case unicode.IsDigit(r):
		return append(es, elem{p: pDigit0 + uint16(digitValue(r)), s: sCommon, t: t}, elem{s: sDigitVariant, t: tLower})
	case isHan(r):
		return append(es, elem{p: pHan, s: sCommon, t: t, cp: r})
	case isHanExt(r):
		return append(es, elem{p: pHanExt, s: sCommon, t: t, cp: r})
	case 0x3041 <= r && r <= 0x3096 || 0x30a1 <= r && r <= 0x30f6:
		// A kana's hiragana and katakana, small and large forms, weigh
		// alike but for the tertiary weight, in this order: small
		// hiragana, hiragana, small katakana, katakana.
		if r >= 0x30a1 {
			r -= 0x60
			t += 2
		}
		if large := largeKana(r); large != r {
			r = large
		} else {
			t++
		}
		return append(es, elem{p: pLetter, s: sCommon, t: t, cp: r})
	case unicode.In(r, unicode.L, unicode.Mc, unicode.Nl):
		if l := unicode.ToLower(r); l != r {
			return append(es, elem{p: pLetter, s: sCommon, t: t + tUpper - tLower, cp: l})
		}
		return append(es, elem{p: pLetter, s: sCommon, t: t, cp: r})
	case unicode.Is(unicode.Sc, r):
		return append(es, elem{p: pCurrency, s: sCommon, t: t, cp: r})
	case unicode.IsSymbol(r) || unicode.Is(unicode.No, r):
		return append(es, elem{p: pSymbol, s: sCommon, t: t, cp: r})
	case unicode.IsPunct(r):
		return append(es, elem{p: pPunct, s: sCommon, t: t, cp: r})
	}
	// Unassigned, private use, surrogates (invalid UTF-8 is U+FFFD, a
	// symbol).
	return append(es, elem{p: pRest, s: sCommon, t: t, cp: r})
}

// largeKana returns the large form of a small hiragana, r itself for
// the others.
func largeKana(r rune) rune {
	switch r {
	case 'ぁ', 'ぃ', 'ぅ', 'ぇ', 'ぉ', 'っ', 'ゃ', 'ゅ', 'ょ', 'ゎ':
		return r + 1
	case 'ゕ':
		return 'か'
	case 'ゖ':
		return 'け'
	}
	return r
}

// digitValue is a decimal digit's value: Unicode encodes each script's
// digits as a run of ten, 0 to 9 (some runs follow each other).
func digitValue(r rune) int {
	n := 0
	for unicode.IsDigit(r - rune(n) - 1) {
		n++
	}
	return n % 10
}

// isHan reports the Unified Ideographs the root collation orders first
// among Han: the main block and those of the compatibility block.
func isHan(r rune) bool {
	if 0x4e00 <= r && r <= 0x9fff {
		return true
	}
	switch r {
	case 0xfa0e, 0xfa0f, 0xfa11, 0xfa13, 0xfa14, 0xfa1f, 0xfa21, 0xfa23, 0xfa24, 0xfa27, 0xfa28, 0xfa29:
		return true
	}
	return false
}

// isHanExt reports the Unified Ideographs of the extension blocks.
func isHanExt(r rune) bool {
	return 0x3400 <= r && r <= 0x4dbf || 0x20000 <= r && r <= 0x2ffff || 0x30000 <= r && r <= 0x3ffff
}
