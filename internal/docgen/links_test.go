package main

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// mdLink finds inline Markdown links and images: [text](target), with an
// optional title after the target.
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// codeSpan finds inline code, whose brackets are not links.
var codeSpan = regexp.MustCompile("`+[^`]*`+")

// link is one link of a Markdown file, with its line.
type link struct {
	line   int
	target string
}

// linksOf lists the links of a Markdown text outside fenced code blocks
// and code spans.
func linksOf(text string) []link {
	var out []link
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{line: i + 1, target: m[1]})
		}
	}
	return out
}

// anchorsOf lists the anchors GitHub gives a Markdown text's headings
// (a repeated heading gets -1, -2, …).
func anchorsOf(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		slug := slugOf(strings.TrimSpace(strings.TrimLeft(line, "#")))
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// slugOf is GitHub's anchor for a heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func slugOf(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// brokenLinks checks the relative links of the Markdown file rel in
// fsys: each must name a file or folder of fsys, and a fragment must be
// the anchor of a heading of the Markdown file it points into.
func brokenLinks(fsys fs.FS, rel string) ([]string, error) {
	data, err := fs.ReadFile(fsys, rel)
	if err != nil {
		return nil, err
	}
	var broken []string
	for _, l := range linksOf(string(data)) {
		t := l.target
		if strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
			continue
		}
		file, frag, _ := strings.Cut(t, "#")
		target := rel
		if file != "" {
			target = path.Join(path.Dir(rel), file)
		}
		where := fmt.Sprintf("%s:%d: %s", rel, l.line, t)
		if !fs.ValidPath(target) {
			broken = append(broken, where+": outside the repository")
			continue
		}
		info, err := fs.Stat(fsys, target)
		if err != nil {
			broken = append(broken, where+": no such file")
			continue
		}
		if frag == "" || info.IsDir() || !strings.HasSuffix(target, ".md") {
			continue
		}
		body, err := fs.ReadFile(fsys, target)
		if err != nil {
			return nil, err
		}
		if !anchorsOf(string(body))[frag] {
			broken = append(broken, fmt.Sprintf("%s: %s has no heading with that anchor", where, target))
		}
	}
	return broken, nil
}
