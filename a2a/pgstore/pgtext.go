package pgstore

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// Values cross the wire in PostgreSQL's text format, both ways: a
// parameter is the text the server parses by the type it infers for the
// parameter's place (what a prepared statement would have named), and a
// result is the text the column type's output function writes. This is
// the only conversion code the store has: its client (internal/pgwire)
// moves bytes and knows no types.

// params encodes a statement's arguments as text-format parameters.
func params(args []any) [][]byte {
	if len(args) == 0 {
		return nil
	}
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = param(a)
	}
	return out
}

// param encodes one argument; nil (and a nil pointer or []byte) is NULL.
// A type without a case is a bug in a statement's call, found by any test
// running it.
func param(v any) []byte {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return textParam(v)
	case *string:
		if v == nil {
			return nil
		}
		return textParam(*v)
	case int64:
		return strconv.AppendInt(nil, v, 10)
	case int:
		return strconv.AppendInt(nil, int64(v), 10)
	case int32:
		return strconv.AppendInt(nil, int64(v), 10)
	case int16:
		return strconv.AppendInt(nil, int64(v), 10)
	case *int32:
		if v == nil {
			return nil
		}
		return strconv.AppendInt(nil, int64(*v), 10)
	case []byte:
		if v == nil {
			return nil
		}
		return appendBytea(make([]byte, 0, 2+2*len(v)), v)
	case []int32:
		return appendArray(nil, len(v), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(v[i]), 10) })
	case []string:
		return appendArray(nil, len(v), func(b []byte, i int) []byte { return appendQuoted(b, v[i]) })
	case [][]byte:
		return appendArray(nil, len(v), func(b []byte, i int) []byte { return appendQuoted(b, string(appendBytea(nil, v[i]))) })
	}
	panic(fmt.Sprintf("pgstore: no text form for a parameter of type %T", v))
}

// textParam is s as a parameter: never nil, which would be NULL.
func textParam(s string) []byte { return append(make([]byte, 0, len(s)), s...) }

const hexDigits = "0123456789abcdef"

// appendBytea appends b in bytea's hex input form, \x and two digits a
// byte, which the server reads whatever its bytea_output.
func appendBytea(dst, b []byte) []byte {
	dst = append(dst, '\\', 'x')
	for _, c := range b {
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}

// appendArray appends a one-dimensional array literal, {e1,e2}, of n
// elements that elem appends.
func appendArray(dst []byte, n int, elem func(dst []byte, i int) []byte) []byte {
	dst = append(dst, '{')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = elem(dst, i)
	}
	return append(dst, '}')
}

// appendQuoted appends an array element double-quoted, its quotes and
// backslashes escaped, so that no content (a comma, a brace, NULL) reads
// as syntax.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// scan decodes a row's text-format values into dst, one pointer a
// column: *string, *int64, *int32, *int16, *float64 and *[]byte (bytea)
// take a value (NULL fails but for *[]byte, which takes nil); **string
// and **int32 take NULL as nil.
func scan(row [][]byte, dst ...any) error {
	if len(row) != len(dst) {
		return fmt.Errorf("%d columns, scanned into %d values", len(row), len(dst))
	}
	for i, v := range row {
		if err := scanValue(v, dst[i]); err != nil {
			return fmt.Errorf("column %d: %v", i+1, err)
		}
	}
	return nil
}

var errNull = errors.New("NULL where a value is expected")

func scanValue(v []byte, dst any) error {
	switch d := dst.(type) {
	case *[]byte:
		if v == nil {
			*d = nil
			return nil
		}
		b, err := parseBytea(v)
		*d = b
		return err
	case **string:
		if v == nil {
			*d = nil
			return nil
		}
		s := string(v)
		*d = &s
		return nil
	case **int32:
		if v == nil {
			*d = nil
			return nil
		}
		n, err := strconv.ParseInt(string(v), 10, 32)
		i := int32(n)
		*d = &i
		return err
	}
	if v == nil {
		return errNull
	}
	switch d := dst.(type) {
	case *string:
		*d = string(v)
	case *int64:
		n, err := strconv.ParseInt(string(v), 10, 64)
		*d = n
		return err
	case *int32:
		n, err := strconv.ParseInt(string(v), 10, 32)
		*d = int32(n)
		return err
	case *int16:
		n, err := strconv.ParseInt(string(v), 10, 16)
		*d = int16(n)
		return err
	case *float64:
		f, err := strconv.ParseFloat(string(v), 64)
		*d = f
		return err
	default:
		panic(fmt.Sprintf("pgstore: no text decoding into %T", dst))
	}
	return nil
}

// parseBytea decodes bytea's output, in the hex form (\x then two digits
// a byte, the default) or the escape form (bytea_output = escape: bytes
// as they are but a backslash, written \\, and others written \ and three
// octal digits).
func parseBytea(v []byte) ([]byte, error) {
	if len(v) >= 2 && v[0] == '\\' && v[1] == 'x' {
		h := v[2:]
		if len(h)%2 != 0 {
			return nil, errors.New("bytea: odd number of hex digits")
		}
		out := make([]byte, len(h)/2)
		if _, err := hex.Decode(out, h); err != nil {
			return nil, fmt.Errorf("bytea: %w", err)
		}
		return out, nil
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		switch {
		case i+1 < len(v) && v[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(v) && isOctal(v[i+1], '3') && isOctal(v[i+2], '7') && isOctal(v[i+3], '7'):
			out = append(out, (v[i+1]-'0')<<6|(v[i+2]-'0')<<3|(v[i+3]-'0'))
			i += 3
		default:
			return nil, fmt.Errorf("bytea: bad escape at byte %d", i)
		}
	}
	return out, nil
}

func isOctal(c, top byte) bool { return c >= '0' && c <= top }
