package a2a

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProtocolOf(t *testing.T) {
	for _, tt := range []struct {
		header, method, want string
		ok                   bool
	}{
		{"", "message/send", "0.3", true},
		{"", "SendMessage", "1.0", true},
		{"1.0", "tasks/get", "1.0", true},
		{"1", "GetTask", "1.0", true},
		{"0.3", "SendMessage", "0.3", true},
		{"0.3.0", "message/stream", "0.3", true},
		{"2.0", "GetTask", "2.0", false},
		{"0.2", "tasks/get", "0.2", false},
	} {
		h := http.Header{}
		if tt.header != "" {
			h.Set("A2A-Version", tt.header)
		}
		if got, ok := protocolOf(h, tt.method); got != tt.want || ok != tt.ok {
			t.Errorf("protocolOf(%q, %q) = %q, %v; want %q, %v", tt.header, tt.method, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzDispatch drives POST / with arbitrary bodies under each version
// header: whatever the bytes, the answer is one JSON-RPC response (or an
// event stream of them) with an A2A or JSON-RPC error code, never a
// panic.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"ListTasks","params":{"pageSize":-1,"pageToken":"z"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","parts":[]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"CancelTask","params":{"id":""}}`,
		`{"jsonrpc":"2.0","id":4,"method":"GetTaskPushNotificationConfig","params":{"taskId":"t","id":"p"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"../x"}}`,
		`[1,2]`, `{`, `null`, `{"jsonrpc":"2.0","method":"","id":null}`,
	} {
		for _, v := range []string{"", "1.0", "0.3", "9"} {
			f.Add([]byte(s), v)
		}
	}
	s, err := NewServer(Config{AllowedRoot: f.TempDir(), NewSession: noSession})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, version string) {
		if strings.ContainsAny(version, "\r\n\x00") {
			return
		}
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if version != "" {
			r.Header.Set("A2A-Version", version)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		out := w.Body.Bytes()
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			for _, line := range strings.Split(string(out), "\n") {
				if data, ok := strings.CutPrefix(line, "data: "); ok && !json.Valid([]byte(data)) {
					t.Fatalf("invalid event %q", data)
				}
			}
			return
		}
		var resp struct {
			Error *struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("answer is not JSON: %q", out)
		}
		if resp.Error != nil && (resp.Error.Code > -32000 || resp.Error.Code < -32700) {
			t.Fatalf("error code %d", resp.Error.Code)
		}
	})
}
