package config

import (
	"strings"
	"unicode"
)

// compareNames orders names the way JavaScript's default localeCompare does
// under Node's ICU (CLDR root collation), which is how Gemini CLI sorts a
// directory listing before drawing the folder tree. It is exact for ASCII
// and close for accented Latin letters; other characters sort after all
// letters by code point.
//
// The comparison is multi-level: letters and symbols first ("a" < "B" <
// "c", punctuation before digits before letters), then accents ("e" <
// "é"), then case (lower before upper), with byte order as the last
// resort.
func compareNames(a, b string) int {
	ka, kb := collationKey(a), collationKey(b)
	for level := 0; level < 3; level++ {
		if c := compareWeights(ka[level], kb[level]); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

func compareWeights(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// symbolOrder lists ASCII punctuation and symbols in root collation order;
// they all sort before digits and letters.
const symbolOrder = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// Primary weights: symbols 1.., digits 100.., letters 200.., the rest above.
const (
	digitBase  = 100
	letterBase = 200
	otherBase  = 1000
)

// collationKey returns the primary, secondary and tertiary weights of s.
func collationKey(s string) [3][]int {
	var k [3][]int
	for _, r := range s {
		base, accent := foldAccent(r)
		lower := unicode.ToLower(base)
		var p int
		switch {
		case lower < 0x80 && strings.ContainsRune(symbolOrder, lower):
			p = 1 + strings.IndexRune(symbolOrder, lower)
		case lower >= '0' && lower <= '9':
			p = digitBase + int(lower-'0')
		case lower >= 'a' && lower <= 'z':
			p = letterBase + int(lower-'a')
		case lower < 0x20 || lower == 0x7f:
			continue // control characters are ignorable
		default:
			p = otherBase + int(lower)
		}
		k[0] = append(k[0], p)
		k[1] = append(k[1], accent)
		t := 0
		if unicode.IsUpper(r) {
			t = 1
		}
		k[2] = append(k[2], t)
	}
	return k
}

// latinAccents maps accented Latin-1 letters to their base letter; the
// accent's secondary weight is its position in the group, which is good
// enough to sort "e" < "é" < "f".
var latinAccents = map[rune]rune{
	'à': 'a', 'á': 'a', 'â': 'a', 'ã': 'a', 'ä': 'a', 'å': 'a',
	'ç': 'c',
	'è': 'e', 'é': 'e', 'ê': 'e', 'ë': 'e',
	'ì': 'i', 'í': 'i', 'î': 'i', 'ï': 'i',
	'ñ': 'n',
	'ò': 'o', 'ó': 'o', 'ô': 'o', 'õ': 'o', 'ö': 'o', 'ø': 'o',
	'ù': 'u', 'ú': 'u', 'û': 'u', 'ü': 'u',
	'ý': 'y', 'ÿ': 'y',
}

// foldAccent returns r's base letter and a non-zero accent weight for the
// accented Latin-1 letters, r and 0 otherwise.
func foldAccent(r rune) (rune, int) {
	lower := unicode.ToLower(r)
	base, ok := latinAccents[lower]
	if !ok {
		return r, 0
	}
	weight := int(lower-base) + 1
	if unicode.IsUpper(r) {
		return unicode.ToUpper(base), weight
	}
	return base, weight
}
