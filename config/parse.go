package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/tailscale/hujson"
)

// FileError reports a settings-like file that could not be used. Line and
// Column are 1-based and zero when the problem has no position (an
// unreadable file, a top-level value that is not an object).
type FileError struct {
	Path   string
	Line   int
	Column int
	Err    error
}

// Error formats the error the way Gemini CLI reports settings problems
// ("Error in <path>: ..."), with the position when there is one.
func (e *FileError) Error() string {
	if e.Path == "" {
		if e.Line > 0 {
			return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
		}
		return e.Err.Error()
	}
	if e.Line > 0 {
		return fmt.Sprintf("Error in %s: line %d, column %d: %v", e.Path, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("Error in %s: %v", e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// errNotObject is what Gemini CLI says of a settings file whose top-level
// value is not a JSON object.
var errNotObject = errors.New("Settings file is not a valid JSON object.")

// hujsonPos picks the position out of hujson's "hujson: line L, column C: msg"
// errors; hujson exposes it only in the text.
var hujsonPos = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`) }}

// ParseJSONC decodes JSON with comments and trailing commas (the format of
// settings.json and trustedFolders.json) into plain Go values: maps,
// slices, strings, float64, bool and nil. A leading UTF-8 byte-order mark is
// skipped because editors on Windows like to add one. The error, a
// *FileError without a path, carries the line and column of the problem.
func ParseJSONC(data []byte) (any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	v, err := hujson.Parse(data)
	if err != nil {
		fe := &FileError{Err: err}
		if m := hujsonPos.Get().FindStringSubmatch(err.Error()); m != nil {
			fe.Line, _ = strconv.Atoi(m[1])
			fe.Column, _ = strconv.Atoi(m[2])
			fe.Err = errors.New(m[3])
		}
		return nil, fe
	}
	// Standardize blanks out comments and commas byte for byte, so offsets
	// reported by encoding/json still point into the original text.
	v.Standardize()
	std := v.Pack()
	var out any
	if err := json.Unmarshal(std, &out); err != nil {
		fe := &FileError{Err: err}
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			// The offset is past the value; point at its start.
			off := int(te.Offset)
			tok := []byte(strings.TrimPrefix(te.Value, "number "))
			if i := bytes.LastIndex(data[:min(off, len(data))], tok); i >= 0 {
				off = i
			}
			fe.Line, fe.Column = lineColumn(data, off)
		case errors.As(err, &se):
			fe.Line, fe.Column = lineColumn(data, int(se.Offset))
		}
		return nil, fe
	}
	return out, nil
}

// lineColumn converts a byte offset into a 1-based line and column.
func lineColumn(b []byte, off int) (int, int) {
	off = max(0, min(off, len(b)))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := 1 + off - (bytes.LastIndexByte(b[:off], '\n') + 1)
	return line, col
}

// parseSettings decodes one settings file's content into its object, in
// the nested (V2) shape: flat V1 keys are moved to their nested homes and
// other deprecated keys renamed, exactly once, in memory (the file is never
// rewritten). String values are not yet expanded.
func parseSettings(data []byte) (map[string]any, error) {
	v, err := ParseJSONC(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &FileError{Err: errNotObject}
	}
	if needsV1Migration(obj) {
		obj = migrateV1(obj)
	}
	migrateDeprecated(obj)
	return obj, nil
}
