package builtin

import (
	"strings"
	"testing"
)

func TestWebHTMLToText(t *testing.T) {
	tests := []struct {
		name, page, want string
	}{
		{"test page", webTestPage, "# Castor facts\n\nCastor is a **Go** port. See the docs.\n\n- fast\n- small"},
		{"head, scripts and comments left out",
			`<HTML><Head><TITLE>t</TITLE></Head><body><SCRIPT type="x">a<b</SCRIPT><style>p{}</style><!-- c <p>x</p> -->Text<noscript>n</noscript></body>`,
			"Text"},
		{"white space collapsed", "<p>  a \n\t b  </p>\n\n<p>c</p>", "a b\n\nc"},
		{"headings", "<h1>One</h1><h3>Three <em>it</em></h3>text", "# One\n\n### Three *it*\n\ntext"},
		{"emphasis and code keep their spaces", "a <b>bold</b> and <i> it </i>, <code>x := 1</code>.", "a **bold** and *it* , `x := 1`."},
		{"line breaks", "one<br>two<br/>three", "one\ntwo\nthree"},
		{"ordered and nested lists",
			"<ol><li>one</li><li>two<ul><li>nested</li><li>more</li></ul></li><li>three</li></ol><p>after</p>",
			"1. one\n2. two\n   - nested\n   - more\n3. three\n\nafter"},
		{"preformatted text kept", "<p>x</p><pre>\nfunc f() {\n\treturn\n\n}\n</pre>y",
			"x\n\n```\nfunc f() {\n\treturn\n\n}\n```\n\ny"},
		{"quote", "<blockquote><p>q1</p><p>q2</p></blockquote>out", "> q1\n>\n> q2\n\nout"},
		{"table", "<table><tr><th>Name</th><th>V</th></tr><tr><td>a <b>b</b></td><td>1|2</td></tr><tr><td>only</td></tr></table>",
			"| Name | V |\n| --- | --- |\n| a **b** | 1\\|2 |\n| only |  |"},
		{"rule", "a<hr>b", "a\n\n* * *\n\nb"},
		{"links keep text, images go", `<a href="https://example.com/x">the docs</a> <img src="i.png" alt="logo">!`, "the docs !"},
		{"references", "5 &lt; 6 &amp;&amp; AT&T &copy;&nbsp;2024 &#x263A;&#9731; &unknown; &amp &#0;", "5 < 6 && AT&T © 2024 ☺☃ &unknown; & \ufffd"},
		{"attributes with > in quotes", `<p title="a>b" data-x='c>d'>text</p>`, "text"},
		{"quotes outside values", `<p title=it's>one</p><p class = "x'y" it's data-q="z">two</p><p>three</p>`, "one\n\ntwo\n\nthree"},
		{"stray markup", "a < b <> c </> d <", "a < b <> c d <"},
		{"unclosed tags", "<ul><li>one<li>two", "- one\n- two"},
		{"unclosed script drops the rest", "before<script>var x = 1;", "before"},
		{"indent bounded", strings.Repeat("<blockquote>", 20) + "deep", strings.Repeat("> ", mdMaxDepth) + "deep"},
		{"declarations", "<!DOCTYPE html><?xml version=\"1.0\"?>x", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := webHTMLToText(tt.page); got != tt.want {
				t.Errorf("webHTMLToText(%q)\n got %q\nwant %q", tt.page, got, tt.want)
			}
		})
	}
}

// A page of many unclosed lists converts in time and space linear in its
// size.
func TestWebHTMLToTextDeepNesting(t *testing.T) {
	page := strings.Repeat("<ul><li>x", 20000)
	out := webHTMLToText(page)
	if len(out) > 20*len(page) {
		t.Errorf("%d bytes of text from a %d-byte page", len(out), len(page))
	}
}

// FuzzWebHTMLToText: any page converts (the text comes from outside),
// plain ASCII text comes out with its white space collapsed, and a
// script after the page's own closed markup never reaches the model.
func FuzzWebHTMLToText(f *testing.F) {
	f.Add(webTestPage)
	f.Add("<table><tr><td>a<td>b<tr><th>c</table><pre>x\n</pre><blockquote><ol><li>q")
	f.Add("&#x110000;&#99999999999;&#;&#x;&am")
	f.Add("plain  text\n\twith space")
	f.Fuzz(func(t *testing.T, page string) {
		out := webHTMLToText(page)
		if !strings.ContainsAny(page, "<&") && isASCII(page) {
			if want := strings.TrimSpace(strings.Join(strings.FieldsFunc(page, htmlSpace), " ")); out != want {
				t.Fatalf("webHTMLToText(%q) = %q, want %q", page, out, want)
			}
		}
		if !strings.Contains(page, "<") {
			const secret = "SECRET-IN-SCRIPT"
			if out := webHTMLToText(page + "<script>" + secret + "</script>"); strings.Contains(out, secret) {
				t.Fatalf("script text in %q", out)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
