package builtin

// The order of names in listings (list_directory, glob).

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// localeCompare orders strings approximately as JavaScript's
// String.prototype.localeCompare does under ICU's root collation, which
// Gemini CLI uses to sort listings: punctuation before digits before
// letters, letters compared without regard to case first, and lower case
// before upper case only to break ties. It returns -1, 0 or 1.
func localeCompare(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Primary level: character classes and case-folded letters.
	for i := 0; i < len(ra) && i < len(rb); i++ {
		ka, kb := collationKey(ra[i]), collationKey(rb[i])
		if ka != kb {
			if ka < kb {
				return -1
			}
			return 1
		}
	}
	if len(ra) != len(rb) {
		if len(ra) < len(rb) {
			return -1
		}
		return 1
	}
	// Tertiary level: lower case sorts before upper case.
	for i := range ra {
		if ra[i] != rb[i] {
			la, lb := unicode.IsLower(ra[i]), unicode.IsLower(rb[i])
			switch {
			case la && !lb:
				return -1
			case lb && !la:
				return 1
			case ra[i] < rb[i]:
				return -1
			default:
				return 1
			}
		}
	}
	return 0
}

// collationKeys returns the primary weights of s (see collationKey) as a
// string that compares, byte for byte, as the weights do (three bytes per
// weight, big-endian), so that sorting many strings computes the weights
// once and compares them with a plain string comparison.
func collationKeys(s string) string {
	b := make([]byte, 0, 3*len(s))
	for _, r := range s {
		w := collationKey(r)
		b = append(b, byte(w>>16), byte(w>>8), byte(w))
	}
	return string(b)
}

// localeCompareKeyed is localeCompare for strings whose primary weights
// were computed by collationKeys; only exact ties in those fall back to
// the full comparison.
func localeCompareKeyed(a, b, ka, kb string) int {
	if c := strings.Compare(ka, kb); c != 0 {
		return c
	}
	return localeCompare(a, b)
}

// icuPunctuationOrder lists ASCII punctuation and symbols in the order the
// root collation sorts them; all of them sort before digits and letters.
const icuPunctuationOrder = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// asciiCollation holds collationKey's weights of the ASCII runes, which
// make up nearly every path compared.
var asciiCollation = func() (t [utf8.RuneSelf]int) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = collationWeight(r)
	}
	return t
}()

// collationKey maps a rune to a primary sort weight (see localeCompare).
func collationKey(r rune) int {
	if 0 <= r && r < utf8.RuneSelf {
		return asciiCollation[r]
	}
	return collationWeight(r)
}

// collationWeight computes collationKey.
func collationWeight(r rune) int {
	if i := strings.IndexRune(icuPunctuationOrder, r); i >= 0 {
		return i
	}
	const base = 64
	switch {
	case r >= '0' && r <= '9':
		return base + int(r-'0')
	case r < 0x80 && unicode.IsLetter(r):
		return base + 10 + int(unicode.ToLower(r)-'a')
	case r < 0x80:
		return int(r) // remaining control characters: before everything
	}
	// Non-ASCII: after ASCII letters, case-folded, in code point order.
	return base + 64 + int(unicode.ToLower(r))
}
