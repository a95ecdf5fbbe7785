package a2a

import (
	"strings"
	"testing"
)

// TestDecodeBytes: inline file bytes are accepted in the four base64
// forms clients write, and bytes none of them reads are refused with
// standard base64's error, which points at the byte a client that wrote
// standard base64 (the common case) got wrong.
func TestDecodeBytes(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "aGk/Pz4+", want: "hi??>>"},                             // standard
		{in: "aGk_Pz4-", want: "hi??>>"},                             // URL alphabet
		{in: "aGk", want: "hi"},                                      // standard, unpadded
		{in: "aGk=", want: "hi"},                                     // standard, padded
		{in: "aGk+Pz4!", err: "illegal base64 data at input byte 7"}, // '!' is the bad byte, not '+'
	}
	for _, tt := range tests {
		f := &FileContent{Bytes: tt.in}
		b, err := f.decodeBytes()
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want one containing %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || string(b) != tt.want):
			t.Errorf("%q: %q, %v; want %q", tt.in, b, err, tt.want)
		}
	}
}
