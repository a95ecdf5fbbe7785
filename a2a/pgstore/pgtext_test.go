package pgstore

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/castor-dev/castor/a2a/pgstore/pgtest"
)

func TestParam(t *testing.T) {
	s, n := "a", int32(7)
	for _, tc := range []struct {
		in   any
		want []byte // nil: NULL
	}{
		{nil, nil},
		{"", []byte{}},
		{"héllo", []byte("héllo")},
		{&s, []byte("a")},
		{(*string)(nil), nil},
		{int64(math.MinInt64), []byte("-9223372036854775808")},
		{7, []byte("7")},
		{int32(-3), []byte("-3")},
		{int16(2), []byte("2")},
		{&n, []byte("7")},
		{(*int32)(nil), nil},
		{[]byte(nil), nil},
		{[]byte{}, []byte(`\x`)},
		{[]byte{0, 0xab, '\\', 0xff}, []byte(`\x00ab5cff`)},
		{[]int32{}, []byte(`{}`)},
		{[]int32{0, -1, 2}, []byte(`{0,-1,2}`)},
		{[]string{"a", `b,"c"\`, "NULL", "{}", ""}, []byte(`{"a","b,\"c\"\\","NULL","{}",""}`)},
		{[][]byte{{1}, {}}, []byte(`{"\\x01","\\x"}`)},
	} {
		got := param(tc.in)
		if (got == nil) != (tc.want == nil) || !bytes.Equal(got, tc.want) {
			t.Errorf("param(%#v) = %q (nil %v), want %q (nil %v)", tc.in, got, got == nil, tc.want, tc.want == nil)
		}
	}
}

func TestScan(t *testing.T) {
	var (
		s   string
		i64 int64
		i32 int32
		i16 int16
		f   float64
		b   []byte
		ps  *string
		pi  *int32
	)
	row := [][]byte{[]byte("text"), []byte("-9223372036854775808"), []byte("2147483647"), []byte("-32768"), []byte("1500.250000"),
		[]byte(`\x00ff`), []byte("p"), []byte("12")}
	if err := scan(row, &s, &i64, &i32, &i16, &f, &b, &ps, &pi); err != nil {
		t.Fatal(err)
	}
	if s != "text" || i64 != math.MinInt64 || i32 != math.MaxInt32 || i16 != math.MinInt16 || f != 1500.25 ||
		!bytes.Equal(b, []byte{0, 0xff}) || ps == nil || *ps != "p" || pi == nil || *pi != 12 {
		t.Fatalf("scanned %q %d %d %d %v %x %v %v", s, i64, i32, i16, f, b, ps, pi)
	}
	if err := scan([][]byte{nil, nil, nil}, &b, &ps, &pi); err != nil || b != nil || ps != nil || pi != nil {
		t.Fatalf("NULLs scanned as %x %v %v, %v", b, ps, pi, err)
	}
	for _, tc := range []struct {
		v   []byte
		dst any
	}{
		{nil, &s},
		{nil, &i64},
		{[]byte("x"), &i64},
		{[]byte("2147483648"), &i32},
		{[]byte("40000"), &i16},
		{[]byte("1.5"), &i32},
		{[]byte("abc"), &f},
		{[]byte(`\x0`), &b},
		{[]byte(`\xzz`), &b},
		{[]byte(`\9`), &b},
		{[]byte(`a\`), &b},
		{[]byte(`\400`), &b},
	} {
		if err := scan([][]byte{tc.v}, tc.dst); err == nil {
			t.Errorf("scanning %q into %T: no error", tc.v, tc.dst)
		}
	}
	if err := scan([][]byte{nil}, &s, &s); err == nil {
		t.Error("one column scanned into two values: no error")
	}
}

func TestParseBytea(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`\x`, ""},
		{`\x00FFab`, "\x00\xff\xab"},
		{``, ""},
		{`abc`, "abc"},
		{`a\\b`, `a\b`},
		{`\000\377\134x`, "\x00\xff\\x"},
		{"\xc3\xa9", "\xc3\xa9"},
	} {
		got, err := parseBytea([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("parseBytea(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// escapeBytea writes b as bytea_output = escape does: printable ASCII as
// it is, a backslash doubled, any other byte in octal.
func escapeBytea(b []byte) []byte {
	var out []byte
	for _, c := range b {
		switch {
		case c == '\\':
			out = append(out, '\\', '\\')
		case c < 0x20 || c > 0x7e:
			out = append(out, fmt.Sprintf(`\%03o`, c)...)
		default:
			out = append(out, c)
		}
	}
	return out
}

// FuzzParseBytea: any server output parses without a panic, and both
// output forms of any bytes parse back to them.
func FuzzParseBytea(f *testing.F) {
	for _, s := range []string{``, `\x`, `\x00ff`, `\x0`, `\\`, `\001`, `\`, `\400`, "\x00", `abc\\\001`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = parseBytea(in)
		for _, form := range [][]byte{appendBytea(nil, in), escapeBytea(in)} {
			got, err := parseBytea(form)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%q in %q parses as %q, %v", in, form, got, err)
			}
		}
	})
}

// FuzzScanInt: an integer's text reads back as the integer, and any text
// scans without a panic.
func FuzzScanInt(f *testing.F) {
	f.Add([]byte("0"), int64(-1))
	f.Add([]byte("+12"), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, in []byte, n int64) {
		var i64 int64
		var i32 int32
		var i16 int16
		var fl float64
		for _, d := range []any{&i64, &i32, &i16, &fl} {
			_ = scan([][]byte{in}, d)
		}
		if err := scan([][]byte{param(n)}, &i64); err != nil || i64 != n {
			t.Fatalf("%d reads back as %d, %v", n, i64, err)
		}
	})
}

// TestTextRoundTrip sends each kind of parameter through the server and
// reads it back, bytea in both output forms.
func TestTextRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := testConn(t, pgtest.Database(t))
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, output := range []string{"hex", "escape"} {
		if _, err := simple(ctx, c, "SET bytea_output = "+output); err != nil {
			t.Fatal(err)
		}
		var b []byte
		if err := queryRow(ctx, c, `SELECT $1::bytea`, []any{all}, &b); err != nil || !bytes.Equal(b, all) {
			t.Fatalf("bytea_output=%s: %x, %v", output, b, err)
		}
		bodies := [][]byte{all, {}, []byte(`{"a":"\"}"}`)}
		got, err := collect(ctx, c, `SELECT b FROM unnest($1::bytea[]) AS u(b)`, []any{bodies}, one[[]byte])
		if err != nil || len(got) != len(bodies) {
			t.Fatalf("bytea_output=%s: %d bodies, %v", output, len(got), err)
		}
		for i := range got {
			if !bytes.Equal(got[i], bodies[i]) {
				t.Errorf("bytea_output=%s: body %d is %q, want %q", output, i, got[i], bodies[i])
			}
		}
	}
	texts := []string{"", "a,b", `"quoted"`, `back\slash`, "{braces}", "NULL", "  spaced  ", "héllo ✓"}
	got, err := collect(ctx, c, `SELECT s FROM unnest($1::text[]) AS u(s)`, []any{texts}, one[string])
	if err != nil || fmt.Sprint(got) != fmt.Sprint(texts) || len(got) != len(texts) {
		t.Fatalf("texts came back as %q, %v", got, err)
	}
	ints := []int32{math.MinInt32, 0, math.MaxInt32}
	gotInts, err := collect(ctx, c, `SELECT i FROM unnest($1::integer[]) AS u(i)`, []any{ints}, one[int32])
	if err != nil || fmt.Sprint(gotInts) != fmt.Sprint(ints) {
		t.Fatalf("integers came back as %v, %v", gotInts, err)
	}
	var (
		i64    int64
		i16    int16
		ms     float64
		ps     *string
		pi     *int32
		b      []byte
		str    string
		void   string
		absent *string
	)
	err = queryRow(ctx, c, `SELECT $1::bigint, $2::smallint, extract(epoch FROM interval '1.5 seconds') * 1000, $3::text, $4::integer, $5::bytea, $6::text, pg_sleep(0), $7::text`,
		[]any{int64(math.MaxInt64), int16(-2), "x", int32(9), []byte(nil), "", (*string)(nil)}, &i64, &i16, &ms, &ps, &pi, &b, &str, &void, &absent)
	if err != nil || i64 != math.MaxInt64 || i16 != -2 || ms != 1500 || ps == nil || *ps != "x" || pi == nil || *pi != 9 || b != nil || str != "" || absent != nil {
		t.Fatalf("scalars came back as %d %d %v %v %v %x %q %v, %v", i64, i16, ms, ps, pi, b, str, absent, err)
	}
	if err := queryRow(ctx, c, `SELECT 1 WHERE false`, nil, &i64); err != errNoRows {
		t.Fatalf("no row: %v, want errNoRows", err)
	}
	if none, err := collect(ctx, c, `SELECT 1 WHERE false`, nil, one[int64]); none == nil || len(none) != 0 || err != nil {
		t.Fatalf("no rows collected as %#v, %v; want an empty slice", none, err)
	}
}
