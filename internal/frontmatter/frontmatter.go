// Package frontmatter splits Markdown files that start with YAML front
// matter (skills' SKILL.md, subagents' definitions) and decodes the YAML
// with errors that name the file and the line, counted in the file.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
	"go.yaml.in/yaml/v3"
)

// pattern is Gemini CLI's FRONTMATTER_REGEX: "---", a newline, the YAML
// (as little as possible), a newline and "---", then optionally a newline
// and the body.
var pattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?s)\A---\r?\n(.*?)\r?\n---(?:\r?\n(.*))?`) }}

// Split returns the YAML between the leading "---" lines and the body
// after them; ok is false when the text does not start with front matter.
// A byte order mark before the first "---" (Windows editors write one) is
// skipped: the file visibly starts with front matter, and "no front
// matter" would send its author looking for the wrong problem.
func Split(text string) (front, body string, ok bool) {
	text = strings.TrimPrefix(text, "\uFEFF")
	m := pattern.Get().FindStringSubmatch(text)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// Error is a problem in a file's front matter. Line counts from 1 at the
// top of the file (the opening "---" is line 1); 0 means unknown.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var yamlLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`line (\d+): `) }}

// Decode parses front (as returned by Split) into v. With strict, keys v
// does not declare are errors. Errors are *Error values whose line is
// counted in the file, so that users can go straight to it.
func Decode(file, front string, v any, strict bool) error {
	dec := yaml.NewDecoder(bytes.NewReader([]byte(front)))
	dec.KnownFields(strict)
	err := dec.Decode(v)
	// An empty document decodes to nothing (io.EOF): v keeps its zero
	// value and the caller reports the missing keys.
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	return Wrap(file, err)
}

// Wrap turns a YAML error into an *Error with the first line it mentions
// moved from front-matter lines to file lines (the "---" line comes
// first).
func Wrap(file string, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = strings.ReplaceAll(msg, "\n  ", "; ")
	line := 0
	if m := yamlLine.Get().FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		line = n + 1
		// The line is said once, in the position.
		msg = msg[:m[0]] + msg[m[1]:]
	}
	return &Error{File: file, Line: line, Msg: "invalid YAML front matter: " + msg}
}
