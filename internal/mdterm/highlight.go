package mdterm

import (
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// lexicon is how one family of languages writes comments, strings and
// keywords.
type lexicon struct {
	line     []string // line comment starts
	block    [2]string
	quotes   string
	keywords map[string]bool
	// keysAreStrings colours JSON's keys as strings.
	keysAreStrings bool
}

// words makes a keyword set.
func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// lexicons maps a fence's language to its lexicon. Built on first use,
// so that programs that never highlight never build it.
var lexicons = lazy.Value[map[string]*lexicon]{New: func() map[string]*lexicon {
	cLike := func(kw string) *lexicon {
		return &lexicon{line: []string{"//"}, block: [2]string{"/*", "*/"}, quotes: "\"'`", keywords: words(kw)}
	}
	hash := func(kw string) *lexicon {
		return &lexicon{line: []string{"#"}, quotes: "\"'", keywords: words(kw)}
	}
	goL := cLike("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota any error string int int64 int32 uint uint64 byte rune bool float64 float32 make new len cap append")
	js := cLike("async await break case catch class const continue debugger default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield interface type enum implements readonly as keyof")
	py := hash("and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self print")
	sh := hash("if then else elif fi case esac for while until do done in function return local export readonly echo exit set unset shift source cd")
	rust := cLike("as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err")
	java := cLike("abstract boolean break byte case catch char class const continue default do double else enum extends final finally float for if implements import instanceof int interface long new null package private protected public return short static super switch this throw throws true false try void volatile while var val fun when object")
	c := cLike("auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class namespace template typename public private protected virtual new delete nullptr true false using include define")
	ruby := hash("begin break case class def do else elsif end ensure false for if in module next nil not or redo rescue retry return self super then true undef unless until when while yield require")
	sql := &lexicon{line: []string{"--"}, block: [2]string{"/*", "*/"}, quotes: "'\"", keywords: words("select from where and or not insert into values update set delete create table drop alter index join left right inner outer on group by order having limit as null is in like distinct union primary key SELECT FROM WHERE AND OR NOT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER INDEX JOIN LEFT RIGHT INNER OUTER ON GROUP BY ORDER HAVING LIMIT AS NULL IS IN LIKE DISTINCT UNION PRIMARY KEY")}
	yaml := hash("true false null yes no on off")
	json := &lexicon{quotes: "\"", keywords: words("true false null"), keysAreStrings: true}
	m := map[string]*lexicon{}
	for lex, names := range map[*lexicon]string{
		goL: "go golang", js: "js javascript jsx ts typescript tsx mjs cjs", py: "py python python3",
		sh: "sh bash zsh shell console fish", rust: "rs rust", java: "java kotlin kt scala swift dart cs csharp",
		c: "c h cpp c++ cc hpp cxx objc", ruby: "rb ruby", sql: "sql", yaml: "yaml yml toml ini dockerfile makefile make",
		json: "json jsonc json5",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = lex
		}
	}
	return m
}}

// highlighter colours code lines of one block, keeping a block comment's
// state from line to line.
type highlighter struct {
	lex     *lexicon
	inBlock bool
}

func newHighlighter(lang string) *highlighter {
	return &highlighter{lex: lexicons.Get()[strings.ToLower(lang)]}
}

// line splits one line into coloured tokens.
func (h *highlighter) line(l string) []span {
	lx := h.lex
	if lx == nil {
		return []span{{l, 0}}
	}
	var out []span
	add := func(text string, st style) {
		if n := len(out); n > 0 && out[n-1].st == st {
			out[n-1].text += text
			return
		}
		out = append(out, span{text, st})
	}
	i := 0
	if h.inBlock {
		end := strings.Index(l, lx.block[1])
		if end < 0 {
			return []span{{l, stComment}}
		}
		add(l[:end+len(lx.block[1])], stComment)
		i = end + len(lx.block[1])
		h.inBlock = false
	}
	for i < len(l) {
		rest := l[i:]
		if lx.block[0] != "" && strings.HasPrefix(rest, lx.block[0]) {
			end := strings.Index(rest[len(lx.block[0]):], lx.block[1])
			if end < 0 {
				add(rest, stComment)
				h.inBlock = true
				return out
			}
			n := len(lx.block[0]) + end + len(lx.block[1])
			add(rest[:n], stComment)
			i += n
			continue
		}
		comment := false
		for _, lc := range lx.line {
			// '#' starts a comment only at a word's start (not in $#).
			if strings.HasPrefix(rest, lc) && (lc != "#" || i == 0 || l[i-1] == ' ' || l[i-1] == '\t') {
				comment = true
			}
		}
		if comment {
			add(rest, stComment)
			return out
		}
		c := l[i]
		switch {
		case strings.IndexByte(lx.quotes, c) >= 0:
			j := i + 1
			for j < len(l) && l[j] != c {
				if l[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(l))
			st := stString
			if lx.keysAreStrings && strings.HasPrefix(strings.TrimSpace(l[j:]), ":") {
				st = stKeyword
			}
			add(l[i:j], st)
			i = j
		case c >= '0' && c <= '9' && (i == 0 || !isWordByte(l[i-1])):
			j := i
			for j < len(l) && (isWordByte(l[j]) || l[j] == '.') {
				j++
			}
			add(l[i:j], stNumber)
			i = j
		case isWordByte(c):
			j := i
			for j < len(l) && isWordByte(l[j]) {
				j++
			}
			st := style(0)
			if lx.keywords[l[i:j]] {
				st = stKeyword
			}
			add(l[i:j], st)
			i = j
		default:
			add(l[i:i+1], 0)
			i++
		}
	}
	return out
}
