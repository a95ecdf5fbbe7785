//go:build ignore

// gen_collate writes collate_tables.go: the collation elements of the
// root collation (golang.org/x/text/collate, CLDR 23, the order Castor
// matched before it had its own) for the characters file names hold in
// practice — ASCII, Latin, IPA, spacing modifiers, combining diacritics,
// Greek, Cyrillic, general punctuation, currency and letterlike symbols,
// composed characters too — re-ranked into
// small dense weights, and the ranks at which collate.go places the
// characters it orders by rule (other scripts, symbols, Han, the rest).
//
// Run it with `go generate` in internal/textutil.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"maps"
	"os"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// The ranges the table covers; they must match tableIndex in collate.go.
var ranges = [][2]rune{{0x0000, 0x0530}, {0x1e00, 0x1f00}, {0x2000, 0x2150}}

type levels struct{ p, s, t []int }

// decode splits an x/text sort key into its levels (see
// collate.Collator.keyFromElems).
func decode(k []byte) levels {
	var l levels
	i := 0
	for !(k[i] == 0 && k[i+1] == 0) {
		if k[i] >= 0x80 {
			l.p = append(l.p, int(k[i]&0x7f)<<16|int(k[i+1])<<8|int(k[i+2]))
			i += 3
		} else {
			l.p = append(l.p, int(k[i])<<8|int(k[i+1]))
			i += 2
		}
	}
	for i += 2; !(k[i] == 0 && k[i+1] == 0); i += 2 {
		l.s = append(l.s, int(k[i])<<8|int(k[i+1]))
	}
	for i += 2; i < len(k); i++ {
		l.t = append(l.t, int(k[i]))
	}
	return l
}

var (
	coll = collate.New(language.Und)
	buf  collate.Buffer
)

func key(s string) levels {
	l := decode(coll.KeyFromString(&buf, s))
	buf.Reset()
	return l
}

// ce is a collation element in x/text's weights.
type ce struct{ p, s, t int }

// elems splits a single character's levels into collation elements:
// every primary weight starts one, with the secondary and tertiary
// weights after it in order; weights beyond those (diacritics) become
// elements of their own. The split does not change a key, which lists
// each level's weights in order whatever their elements.
func elems(l levels) ([]ce, bool) {
	if len(l.s) != len(l.t) || len(l.p) > len(l.s) {
		return nil, false
	}
	var out []ce
	for i := range l.s {
		c := ce{s: l.s[i], t: l.t[i]}
		if i < len(l.p) {
			c.p = l.p[i]
		}
		out = append(out, c)
	}
	return out, true
}

func cat(r rune, names ...string) bool {
	for _, n := range names {
		if unicode.Is(unicode.Categories[n], r) {
			return true
		}
	}
	return false
}

func main() {
	// Primaries from Greek on are other scripts (and Han, and code
	// points x/text's Unicode 6.2 did not assign): collate.go orders
	// those by rule, so the table leaves them out.
	scriptsFrom := key("Ա").p[0]

	table := map[rune][]ce{}
	var runes, composed []rune
	for _, rg := range ranges {
		for r := rg[0]; r < rg[1]; r++ {
			s := string(r)
			if !unicode.Is(unicode.Cc, r) && !unicode.IsPrint(r) && !cat(r, "Zs", "Zl", "Zp", "Cf", "Mn", "Me") {
				continue // unassigned
			}
			es, ok := elems(key(s))
			if !ok {
				log.Fatalf("%U: cannot split %v", r, key(s))
			}
			if slices.ContainsFunc(es, func(e ce) bool { return e.p >= scriptsFrom }) {
				continue
			}
			if d := norm.NFD.String(s); d != s {
				// Composed: collate.go uses the entry for names without
				// combining marks, and decomposes the others first.
				if k := key(d); !slices.Equal(k.p, key(s).p) || !slices.Equal(k.s, key(s).s) || !slices.Equal(k.t, key(s).t) {
					log.Fatalf("%U weighs %v, decomposed %v", r, key(s), k)
				}
				composed = append(composed, r)
				continue
			}
			table[r] = es
			runes = append(runes, r)
		}
	}

	// compareASCII in collate.go relies on ASCII characters weighing one
	// element each, or none, all with the common secondary weight.
	for r := rune(0); r < 0x80; r++ {
		if es := table[r]; len(es) > 1 || len(es) == 1 && (es[0].p == 0 || es[0].s != key("a").s[0]) {
			log.Fatalf("%U weighs %v", r, es)
		}
	}

	// Contractions: pairs of table characters that weigh otherwise than
	// the two apart ("l·" weighs as "ŀ", the dot an accent; "й", a letter
	// of its own after "и"). Everything else collate.go looks up
	// character by character. Of x/text's (CLDR 23) contractions, those
	// of keep stay: the root collation of CLDR 24 on, which Node's ICU
	// applies, weighs the other Cyrillic letters with a breve, diaeresis
	// or acute ("ӑ", "ї", "ў", "ѓ", ...) as accented letters.
	type contraction struct {
		a, b rune
		es   []ce
	}
	var contractions []contraction
	for _, a := range runes {
		for _, b := range runes {
			if !norm.NFD.IsNormalString(string(a) + string(b)) {
				continue // canonical reordering, which collate.go does first
			}
			got := key(string(a) + string(b))
			want := levels{}
			for _, e := range append(slices.Clone(table[a]), table[b]...) {
				if e.p != 0 {
					want.p = append(want.p, e.p)
				}
				if e.s != 0 {
					want.s = append(want.s, e.s)
				}
				if e.t != 0 {
					want.t = append(want.t, e.t)
				}
			}
			if !slices.Equal(got.p, want.p) || !slices.Equal(got.s, want.s) || !slices.Equal(got.t, want.t) {
				es, ok := elems(got)
				if !ok || !unicode.Is(unicode.Mn, b) && b != '·' {
					log.Fatalf("%U %U contract: %x, apart %x", a, b, got, want)
				}
				if !keep[string(a)+string(b)] {
					log.Printf("%U %U (%s): x/text's contraction left out", a, b, norm.NFC.String(string(a)+string(b)))
					continue
				}
				contractions = append(contractions, contraction{a, b, es})
			}
		}
	}

	// A composed character weighs what its decomposition does.
	for _, r := range composed {
		var es []ce
		d := []rune(norm.NFD.String(string(r)))
		for i := 0; i < len(d); i++ {
			if _, ok := table[d[i]]; !ok || slices.Contains(composed, d[i]) {
				es = nil
				break
			}
			if i+1 < len(d) {
				if j := slices.IndexFunc(contractions, func(c contraction) bool { return c.a == d[i] && c.b == d[i+1] }); j >= 0 {
					es = append(es, contractions[j].es...)
					i++
					continue
				}
			}
			es = append(es, table[d[i]]...)
		}
		if es != nil {
			table[r] = es
		}
	}

	// Dense ranks, with the places of the characters ordered by rule:
	// after the last punctuation, symbol, currency sign of the table,
	// and letters of other scripts, Han and the rest after Latin.
	maxOf := func(cats ...string) int {
		m := 0
		for _, r := range runes {
			if cat(r, cats...) && len(table[r]) == 1 {
				m = max(m, table[r][0].p)
			}
		}
		return m
	}
	minOf := func(cats ...string) int {
		m := 1 << 30
		for _, r := range runes {
			if cat(r, cats...) && len(table[r]) == 1 && table[r][0].p != 0 {
				m = min(m, table[r][0].p)
			}
		}
		return m
	}
	maxP, maxS, maxSc := maxOf("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"), maxOf("Sm", "Sk", "So"), maxOf("Sc")
	if !(maxP < minOf("Sm", "Sk", "So") && maxS < minOf("Sc") && maxSc < key("0").p[0]) {
		log.Fatalf("groups overlap: punctuation up to %x, symbols from %x to %x, currency from %x to %x, digits from %x",
			maxP, minOf("Sm", "Sk", "So"), maxS, minOf("Sc"), maxSc, key("0").p[0])
	}
	type slot struct {
		after int // the x/text primary the slot follows
		name  string
	}
	slots := []slot{{maxP, "pPunct"}, {maxS, "pSymbol"}, {maxSc, "pCurrency"}}
	var ps, ss, ts []int
	for _, es := range table {
		for _, e := range es {
			ps, ss, ts = append(ps, e.p), append(ss, e.s), append(ts, e.t)
		}
	}
	for _, c := range contractions {
		for _, e := range c.es {
			ps, ss, ts = append(ps, e.p), append(ss, e.s), append(ts, e.t)
		}
	}
	digitVariant := key("٠").s[1] // the secondary weight of digits of other scripts
	ss = append(ss, digitVariant)
	ps, ss, ts = uniq(ps), uniq(ss), uniq(ts)
	prank := map[int]int{0: 0}
	var consts []string
	n := 0
	for _, p := range ps {
		if p == 0 {
			continue
		}
		n++
		prank[p] = n
		for _, sl := range slots {
			if sl.after == p {
				n++
				consts = append(consts, fmt.Sprintf("%s = %d", sl.name, n))
			}
		}
	}
	for _, name := range []string{"pLetter", "pHan", "pHanExt", "pRest"} {
		n++
		consts = append(consts, fmt.Sprintf("%s = %d", name, n))
	}
	ss = slices.DeleteFunc(ss, func(w int) bool { return w == 0 })
	ts = slices.DeleteFunc(ts, func(w int) bool { return w == 0 })
	srank := map[int]int{0: 0}
	for i, s := range ss {
		srank[s] = i + 1
	}
	consts = append(consts, fmt.Sprintf("sMark = %d", len(ss)+1))
	trank := map[int]int{0: 0}
	for i, t := range ts {
		trank[t] = i + 1
	}
	if len(ts) >= tCompat || len(ss) > 0xff || n > 0xffff {
		log.Fatalf("too many weights: %d primaries, %d secondaries, %d tertiaries", n, len(ss), len(ts))
	}
	d0 := prank[key("0").p[0]]
	for d := range 10 {
		if prank[key(fmt.Sprint(d)).p[0]] != d0+d {
			log.Fatalf("digit %d's primary is not %d + %d", d, d0, d)
		}
	}
	consts = append(consts,
		fmt.Sprintf("pSpace = %d", prank[key(" ").p[0]]),
		fmt.Sprintf("pDigit0 = %d", d0),
		fmt.Sprintf("sCommon = %d", srank[key("a").s[0]]),
		fmt.Sprintf("sDigitVariant = %d", srank[digitVariant]),
		fmt.Sprintf("tLower = %d", trank[key("a").t[0]]),
		fmt.Sprintf("tUpper = %d", trank[key("A").t[0]]),
		fmt.Sprintf("tCompat = %d", tCompat),
	)

	// The table: for each character of the ranges, (offset<<3 | count)
	// into tableCEs, or noEntry; each element p<<16 | s<<8 | t in ranks.
	var index []string
	var elemsOut []string
	maxLen := 0
	for _, rg := range ranges {
		for r := rg[0]; r < rg[1]; r++ {
			es, ok := table[r]
			if !ok {
				index = append(index, "noEntry")
				continue
			}
			maxLen = max(maxLen, len(es))
			if len(es) > 7 {
				log.Fatalf("%U has %d elements", r, len(es))
			}
			index = append(index, fmt.Sprintf("%d", len(elemsOut)<<3|len(es)))
			for _, e := range es {
				elemsOut = append(elemsOut, fmt.Sprintf("0x%06x", prank[e.p]<<16|srank[e.s]<<8|trank[e.t]))
			}
		}
	}

	var contr []string
	marks := map[rune]bool{}
	for _, c := range contractions {
		contr = append(contr, fmt.Sprintf("{0x%04x, 0x%04x, %d}", c.a, c.b, len(elemsOut)<<3|len(c.es)))
		marks[c.b] = true
		for _, e := range c.es {
			elemsOut = append(elemsOut, fmt.Sprintf("0x%06x", prank[e.p]<<16|srank[e.s]<<8|trank[e.t]))
		}
	}
	var markList []string
	for _, m := range slices.Sorted(maps.Keys(marks)) {
		markList = append(markList, fmt.Sprintf("0x%04x", m))
	}

	var out bytes.Buffer
	fmt.Fprintf(&out, "// Code generated by gen_collate.go; DO NOT EDIT.\n\npackage textutil\n\n")
	fmt.Fprintf(&out, "// Weights (ranks) the rules of collate.go use.\nconst (\n")
	for _, c := range consts {
		fmt.Fprintf(&out, "\t%s\n", c)
	}
	fmt.Fprintf(&out, ")\n\n")
	fmt.Fprintf(&out, "// tableIndex holds, for each character of the table's ranges, the\n// offset<<3 | count of its elements in tableCEs, or noEntry.\nvar tableIndex = [%d]uint16{", len(index))
	for i, s := range index {
		if i%16 == 0 {
			out.WriteString("\n")
		}
		fmt.Fprintf(&out, "%s, ", s)
	}
	fmt.Fprintf(&out, "\n}\n\n// tableCEs holds collation elements, primary<<16 | secondary<<8 | tertiary.\nvar tableCEs = [%d]uint32{", len(elemsOut))
	for i, s := range elemsOut {
		if i%12 == 0 {
			out.WriteString("\n")
		}
		fmt.Fprintf(&out, "%s, ", s)
	}
	out.WriteString("\n}\n\n")
	fmt.Fprintf(&out, "// contractions are the pairs of characters whose elements are not those of\n// the two apart, sorted, with the offset<<3 | count of their elements in\n// tableCEs.\nvar contractions = [...]struct {\n\ta, b rune\n\tx    uint16\n}{\n")
	for _, c := range contr {
		fmt.Fprintf(&out, "\t%s,\n", c)
	}
	fmt.Fprintf(&out, "}\n\n// isContractionMark reports the second characters of contractions.\nfunc isContractionMark(r rune) bool {\n\tswitch r {\n\tcase %s:\n\t\treturn true\n\t}\n\treturn false\n}\n", strings.Join(markList, ", "))
	src, err := format.Source(out.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("collate_tables.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d characters (%d not composed), %d contractions, %d elements (longest %d), %d primaries, %d secondaries, %d tertiaries", len(table), len(runes), len(contractions), len(elemsOut), maxLen, n, len(ss), len(ts))
}

// keep lists the contractions of x/text's root collation that CLDR's
// root collation still has (as Node's ICU 78 applies it).
var keep = map[string]bool{"l·": true, "L·": true, "и\u0306": true, "И\u0306": true}

// tCompat is added to the tertiary weight of what a compatibility
// decomposition gives; table tertiaries stay below it.
const tCompat = 0x40

func uniq(s []int) []int {
	slices.Sort(s)
	return slices.Compact(s)
}
