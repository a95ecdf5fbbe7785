package codeassist

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/castor-dev/castor/model"
)

func readEvents(r io.Reader) ([]string, error) {
	s := newSSEReader(r)
	var out []string
	for {
		ev, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(ev))
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr error
	}{
		{name: "empty", in: ""},
		{name: "one event", in: "data: {}\n\n", want: []string{"{}"}},
		{name: "crlf", in: "data: {\"a\":1}\r\n\r\ndata: 2\r\n\r\n", want: []string{`{"a":1}`, "2"}},
		{name: "multi-line event", in: "data: a\ndata: b\n\n", want: []string{"a\nb"}},
		{name: "no space after colon", in: "data:x\n\n", want: []string{"x"}},
		{name: "payload trimmed", in: "data:   x  \n\n", want: []string{"x"}},
		{name: "extra blank lines", in: "\n\ndata: x\n\n\n\ndata: y\n\n", want: []string{"x", "y"}},
		{name: "final blank line without newline", in: "data: x\n\ndata: y\n", wantErr: errTruncatedEvent, want: []string{"x"}},
		{name: "no terminator at all", in: "data: x", wantErr: errTruncatedEvent},
		{name: "comment", in: ": ping\n\n", wantErr: ErrMalformedStream},
		{name: "event field", in: "event: message\ndata: x\n\n", wantErr: ErrMalformedStream},
		{name: "id field after event", in: "data: x\n\nid: 7\n", wantErr: ErrMalformedStream, want: []string{"x"}},
		{name: "bare data", in: "data\n\n", wantErr: ErrMalformedStream},
		{name: "json without prefix", in: "{\"response\":{}}\n\n", wantErr: ErrMalformedStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time as well, so line assembly across reads
			// is exercised.
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readEvents(r)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if strings.Join(got, "|") != strings.Join(tt.want, "|") {
					t.Errorf("events %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestSSEReaderLongLine(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	got, err := readEvents(strings.NewReader("data: " + big + "\n\n"))
	if err != nil || len(got) != 1 || got[0] != big {
		t.Fatalf("%d events, %v", len(got), err)
	}
}

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	_, err := readEvents(io.MultiReader(strings.NewReader("data: x\n\ndata: "), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

// FuzzSSEReader checks the decoder on arbitrary bytes: it must end
// without panicking, only with the documented errors, and any event it
// returns must come from data lines of the input.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n",
		"data: a\r\ndata: b\r\n\r\n",
		": comment\n",
		"data: x",
		"\n\n\ndata:\n\n",
		"event: e\ndata: d\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := newSSEReader(strings.NewReader(string(in)))
		for i := 0; ; i++ {
			ev, err := s.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !errors.Is(err, ErrMalformedStream) && !errors.Is(err, errTruncatedEvent) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(ev) == 0 && !strings.Contains(string(in), "data:") {
				t.Fatalf("event %q from input without data lines", ev)
			}
			if i > len(in) {
				t.Fatal("more events than input bytes")
			}
		}
	})
}

// FuzzDecodeEvent feeds arbitrary event payloads to the response decoder:
// it returns a response or an error, an error event becomes an APIError,
// and nothing panics.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		`{"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":3}},"traceId":"t"}`,
		`{"response":{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1}},"thoughtSignature":"c2ln"}]}}]}}`,
		`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`,
		`{"error":"x"}`,
		`{"response":null}`,
		`{"response":{"candidates":[null]}}`,
		`[]`,
		`{"traceId":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := decodeEvent(data)
		if err != nil {
			var ae *model.APIError
			if !errors.As(err, &ae) && !errors.Is(err, ErrMalformedStream) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if resp == nil || resp.Candidates == nil {
			t.Fatalf("response %+v", resp)
		}
		_ = model.HasFinish(resp)
	})
}
