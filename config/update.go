package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/castor-dev/castor/internal/fsutil"
)

// UpdateFile sets the value at a dotted key ("mcpServers.github",
// "model.name") in a settings file and writes it back, keeping everything
// else (comments, key order, formatting) as it was. Missing objects on the
// way are created; a missing file is created with owner-only permissions.
// The value is anything encoding/json can marshal (a json.RawMessage passes
// through). Use UpdateFilePath when a key itself contains a dot.
func UpdateFile(path, dottedKey string, value any) error {
	if dottedKey == "" {
		return errors.New("config: empty settings key")
	}
	return UpdateFilePath(path, strings.Split(dottedKey, "."), value)
}

// UpdateFilePath is UpdateFile with the key given as its path elements.
//
// The file stays valid for Gemini CLI, which does not accept trailing
// commas: inserted members never end with one. A value that is not an object
// in the way of the path (say "tools": "x" when setting tools.core) is an
// error rather than being overwritten.
func UpdateFilePath(path string, keys []string, value any) error {
	if len(keys) == 0 {
		return errors.New("config: empty settings key")
	}
	for _, k := range keys {
		if k == "" {
			return fmt.Errorf("config: empty element in settings key %q", strings.Join(keys, "."))
		}
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return &FileError{Path: path, Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	out, err := setInDocument(data, keys, value)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.Path = path
			return fe
		}
		return &FileError{Path: path, Err: err}
	}
	return fsutil.WriteFileAtomic(path, out, 0o600)
}

// setInDocument returns doc with keys set to value.
func setInDocument(doc []byte, keys []string, value any) ([]byte, error) {
	bom := bytes.HasPrefix(doc, []byte("\xef\xbb\xbf"))
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	root, err := hujson.Parse(doc)
	if err != nil {
		// Reuse ParseJSONC for a positioned error.
		if _, perr := ParseJSONC(doc); perr != nil {
			return nil, perr
		}
		return nil, err
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, errNotObject
	}
	unit := indentUnit(obj)
	nl := "\n"
	if bytes.Contains(doc, []byte("\r\n")) {
		nl = "\r\n" // keep a Windows file's line endings consistent
	}
	indent := ""  // indentation of the lines holding obj's braces
	roomy := true // lay out an empty obj over several lines
	for i, key := range keys {
		idx := -1
		for j := range obj.Members {
			if obj.Members[j].Name.Value.(hujson.Literal).String() == key {
				idx = j // the last duplicate wins, as in JSON.parse
			}
		}
		last := i == len(keys)-1
		if idx < 0 {
			var v any = value
			for j := len(keys) - 1; j > i; j-- {
				v = map[string]any{keys[j]: v}
			}
			return packWith(root, bom, appendMember(obj, indent, unit, nl, key, v, roomy))
		}
		m := &obj.Members[idx]
		memberIndent := lineIndent(m.Name.BeforeExtra, indent+unit)
		if last {
			nv, err := renderValue(value, memberIndent, unit, nl, isMultiline(obj))
			if err != nil {
				return nil, err
			}
			m.Value.Value = nv.Value
			return packWith(root, bom, nil)
		}
		next, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", strings.Join(keys[:i+1], "."))
		}
		roomy = isMultiline(obj)
		obj, indent = next, memberIndent
	}
	return nil, errors.New("unreachable")
}

// packWith packs root after an optional error from the last edit.
func packWith(root hujson.Value, bom bool, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	out := root.Pack()
	if bom {
		out = append([]byte("\xef\xbb\xbf"), out...)
	}
	return out, nil
}

// appendMember adds key: v at the end of obj, laid out like its siblings:
// on its own line when the object spans lines, inline otherwise; an empty
// object follows roomy (its parent's layout). Comments that followed the
// previous last member stay with it.
func appendMember(obj *hujson.Object, indent, unit, nl, key string, v any, roomy bool) error {
	multiline := isMultiline(obj) || (len(obj.Members) == 0 && roomy)
	memberIndent := indent + unit
	if n := len(obj.Members); n > 0 {
		memberIndent = lineIndent(obj.Members[n-1].Name.BeforeExtra, memberIndent)
	}
	val, err := renderValue(v, memberIndent, unit, nl, multiline)
	if err != nil {
		return err
	}
	val.BeforeExtra = hujson.Extra(" ")
	name := hujson.Value{Value: hujson.String(key)}
	if multiline {
		after := []byte(obj.AfterExtra)
		head, tail := []byte(nl), []byte(nil)
		if nl := bytes.LastIndexByte(after, '\n'); nl >= 0 {
			head, tail = after[:nl+1], after[nl+1:]
		} else {
			tail = after
		}
		if len(obj.Members) == 0 && bytes.IndexByte(after, '\n') < 0 {
			tail = []byte(indent)
		}
		name.BeforeExtra = append(append(hujson.Extra{}, head...), memberIndent...)
		obj.AfterExtra = append(hujson.Extra(nl), tail...)
	} else if len(obj.Members) > 0 {
		name.BeforeExtra = hujson.Extra(" ")
	}
	// A nil AfterExtra on the last value means "no trailing comma".
	val.AfterExtra = nil
	obj.Members = append(obj.Members, hujson.ObjectMember{Name: name, Value: val})
	return nil
}

// renderValue marshals v as a hujson value: pretty-printed with the given
// indentation for multi-line parents, compact otherwise.
func renderValue(v any, indent, unit, nl string, multiline bool) (hujson.Value, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Shell commands and URLs in MCP configs read better unescaped.
	enc.SetEscapeHTML(false)
	if multiline {
		enc.SetIndent(indent, unit)
	}
	if err := enc.Encode(v); err != nil {
		return hujson.Value{}, fmt.Errorf("cannot encode value: %w", err)
	}
	text := bytes.TrimRight(buf.Bytes(), "\n")
	if nl != "\n" {
		// Newlines only occur between tokens: strings escape theirs.
		text = bytes.ReplaceAll(text, []byte("\n"), []byte(nl))
	}
	return hujson.Parse(text)
}

// isMultiline reports whether obj is laid out one member per line.
func isMultiline(obj *hujson.Object) bool {
	if bytes.IndexByte(obj.AfterExtra, '\n') >= 0 {
		return true
	}
	for _, m := range obj.Members {
		if bytes.IndexByte(m.Name.BeforeExtra, '\n') >= 0 {
			return true
		}
	}
	return false
}

// lineIndent returns the whitespace after the last newline of extra, or def
// when extra has no newline.
func lineIndent(extra hujson.Extra, def string) string {
	nl := bytes.LastIndexByte(extra, '\n')
	if nl < 0 {
		return def
	}
	rest := extra[nl+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	return string(rest[:n])
}

// indentUnit guesses the file's indentation step from the root object's
// first member; two spaces when it cannot tell.
func indentUnit(root *hujson.Object) string {
	for _, m := range root.Members {
		if u := lineIndent(m.Name.BeforeExtra, ""); u != "" {
			return u
		}
	}
	return "  "
}
