package ide

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type note struct {
	Method string
	Params string
}

func runFilter(t *testing.T, in string) (string, []note) {
	t.Helper()
	var out bytes.Buffer
	var notes []note
	err := filterSSE(strings.NewReader(in), &out, func(m string, p json.RawMessage) {
		notes = append(notes, note{m, string(p)})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), notes
}

func TestFilterSSE(t *testing.T) {
	ctx := `{"jsonrpc":"2.0","method":"ide/contextUpdate","params":{"workspaceState":{}}}`
	resp := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name      string
		in        string
		wantOut   string
		wantNotes []note
	}{
		{
			name:      "ide notification taken out, response kept",
			in:        "event: message\ndata: " + ctx + "\n\nevent: message\nid: 7\ndata: " + resp + "\n\n",
			wantOut:   "event: message\nid: 7\ndata: " + resp + "\n\n",
			wantNotes: []note{{"ide/contextUpdate", `{"workspaceState":{}}`}},
		},
		{
			name:      "CRLF and no event name",
			in:        "data: " + ctx + "\r\n\r\n: keep-alive comment\r\n\r\n",
			wantOut:   ": keep-alive comment\r\n\r\n",
			wantNotes: []note{{"ide/contextUpdate", `{"workspaceState":{}}`}},
		},
		{
			name:      "data split over lines",
			in:        "data: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"ide/diffRejected\",\"params\":{\"filePath\":\"/a\"}}\n\n",
			wantOut:   "",
			wantNotes: []note{{"ide/diffRejected", `{"filePath":"/a"}`}},
		},
		{
			name:    "standard notifications and pings pass",
			in:      "data: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
			wantOut: "data: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
		},
		{
			name:    "an ide/ request (with an id) is not a notification",
			in:      "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ide/x\"}\n\n",
			wantOut: "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ide/x\"}\n\n",
		},
		{
			name:    "other event names pass",
			in:      "event: custom\ndata: " + ctx + "\n\n",
			wantOut: "event: custom\ndata: " + ctx + "\n\n",
		},
		{
			name:    "unterminated event at the end passes",
			in:      "data: " + ctx,
			wantOut: "data: " + ctx,
		},
		{
			name:    "priming event without data",
			in:      "id: 0\ndata:\n\n",
			wantOut: "id: 0\ndata:\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, notes := runFilter(t, tt.in)
			if out != tt.wantOut {
				t.Errorf("out = %q\nwant  %q", out, tt.wantOut)
			}
			if diff := cmp.Diff(tt.wantNotes, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilterSSELongEvent(t *testing.T) {
	// Longer than the reader's buffer, still filtered whole.
	big := strings.Repeat("x", 100<<10)
	in := `data: {"jsonrpc":"2.0","method":"ide/contextUpdate","params":{"s":"` + big + `"}}` + "\n\n"
	out, notes := runFilter(t, in)
	if out != "" || len(notes) != 1 || !strings.Contains(notes[0].Params, big) {
		t.Errorf("out %d bytes, %d notes", len(out), len(notes))
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestFilterSSEWriteError(t *testing.T) {
	err := filterSSE(strings.NewReader("data: {}\n\n"), failWriter{}, func(string, json.RawMessage) {})
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("err = %v", err)
	}
}

// FuzzFilterSSE: the filter never panics, and what it keeps plus what it
// takes out accounts for the whole input: every kept byte is the input's,
// in order.
func FuzzFilterSSE(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ide/diffAccepted\",\"params\":{\"filePath\":\"/a\",\"content\":\"x\"}}\n\n"))
	f.Add([]byte("data: {\"id\":1}\r\n\r\ndata: x\n\n\n"))
	f.Add([]byte(":\n\nretry: 10\nid: 1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		removed := 0
		err := filterSSE(bytes.NewReader(in), &out, func(m string, p json.RawMessage) {
			if !strings.HasPrefix(m, "ide/") {
				t.Fatalf("took out %q", m)
			}
			removed++
		})
		if err != nil {
			t.Fatal(err)
		}
		if removed == 0 && !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("changed a stream without ide/ notifications:\n%q\n%q", in, out.Bytes())
		}
		if !isSubsequence(out.Bytes(), in) {
			t.Fatalf("output is not made of the input's events")
		}
	})
}

func isSubsequence(sub, s []byte) bool {
	i := 0
	for _, b := range s {
		if i < len(sub) && sub[i] == b {
			i++
		}
	}
	return i == len(sub)
}
