package otlp

import (
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

func TestPartialSuccess(t *testing.T) {
	tests := []struct {
		name     string
		b        []byte
		rejected int64
		msg      string
		bad      bool
	}{
		{name: "empty"},
		{name: "both", b: []byte{0x0a, 0x06, 0x08, 0x02, 0x12, 0x02, 'h', 'i'}, rejected: 2, msg: "hi"},
		{name: "unknown fields are skipped", b: []byte{0x10, 0x01, 0x0a, 0x04, 0x18, 0x07, 0x08, 0x03, 0x1d, 1, 2, 3, 4}, rejected: 3},
		{name: "repeated messages merge", b: []byte{0x0a, 0x02, 0x08, 0x05, 0x0a, 0x03, 0x12, 0x01, 'x'}, rejected: 5, msg: "x"},
		{name: "negative count", b: []byte{0x0a, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, rejected: -1},
		{name: "truncated", b: []byte{0x0a, 0x06, 0x08}, bad: true},
		{name: "truncated inside", b: []byte{0x0a, 0x01, 0x08}, bad: true},
		{name: "bad tag", b: []byte{0x00}, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rejected, msg, err := partialSuccess(tt.b)
			if (err != nil) != tt.bad || rejected != tt.rejected || msg != tt.msg {
				t.Errorf("partialSuccess = %d, %q, %v; want %d, %q, error %v", rejected, msg, err, tt.rejected, tt.msg, tt.bad)
			}
		})
	}
}

// FuzzPartialSuccess reads what a collector sends back as the generated
// type does: whatever it reads, partialSuccess reads alike, and what
// partialSuccess refuses, it refuses too.
func FuzzPartialSuccess(f *testing.F) {
	for _, m := range []*coltracepb.ExportTraceServiceResponse{
		{}, {PartialSuccess: &coltracepb.ExportTracePartialSuccess{}},
		{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 7, ErrorMessage: "quota exceeded"}},
		{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: -3}},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x10, 0x01, 0x0a, 0x04, 0x18, 0x07, 0x08, 0x03})
	f.Fuzz(func(t *testing.T, b []byte) {
		rejected, msg, err := partialSuccess(b)
		var want coltracepb.ExportTraceServiceResponse
		wantErr := proto.Unmarshal(b, &want)
		if wantErr == nil {
			if err != nil {
				t.Fatalf("partialSuccess(%x): %v; proto.Unmarshal reads %v", b, err, &want)
			}
			if rejected != want.GetPartialSuccess().GetRejectedSpans() || msg != want.GetPartialSuccess().GetErrorMessage() {
				t.Fatalf("partialSuccess(%x) = %d, %q; proto.Unmarshal reads %v", b, rejected, msg, &want)
			}
		}
		if err != nil && wantErr == nil {
			t.Fatalf("partialSuccess(%x) refuses what proto.Unmarshal reads", b)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"-1":                            0,
		"soon":                          0,
		"99999999999999999":             time.Duration(1<<63 - 1),
		"Mon, 07 Dec 2026 10:00:30 GMT": 30 * time.Second,
		"Mon, 07 Dec 2026 09:00:00 GMT": 0,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("retryAfter(%q) = %s, want %s", v, got, want)
		}
	}
}
