package a2a_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// The agent card carries caching headers, and a client naming its ETag
// or a time since the start is answered 304 without the card.
func TestAgentCardCaching(t *testing.T) {
	h := newHarness(t)
	resp := h.get("/.well-known/agent-card.json")
	resp.Body.Close()
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.StatusCode != 200 || etag == "" || lastMod == "" || !strings.Contains(resp.Header.Get("Cache-Control"), "max-age=") {
		t.Fatalf("card answered %d with headers %v", resp.StatusCode, resp.Header)
	}
	for _, tt := range []struct {
		header, value string
		want          int
	}{
		{"If-None-Match", etag, http.StatusNotModified},
		{"If-None-Match", `"other"`, http.StatusOK},
		{"If-Modified-Since", lastMod, http.StatusNotModified},
	} {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+"/.well-known/agent-card.json", nil)
		req.Header.Set(tt.header, tt.value)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want || (tt.want == http.StatusNotModified && len(b) != 0) {
			t.Errorf("%s: %s answered %d with %d bytes, want %d", tt.header, tt.value, resp.StatusCode, len(b), tt.want)
		}
	}
}

// An unsupported A2A version on the 1.0 HTTP+JSON binding is refused with
// the AIP-193 error object (TCK HTTP_JSON-STATUS-001).
func TestV1RESTUnsupportedVersion(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequest(http.MethodPost, h.ts.URL+"/a2a/message:send", strings.NewReader(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "9.9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
			Details []struct {
				Type   string `json:"@type"`
				Reason string `json:"reason"`
				Domain string `json:"domain"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	e := body.Error
	if resp.StatusCode != 400 || e.Code != 400 || e.Status != "FAILED_PRECONDITION" || !strings.Contains(e.Message, "9.9") ||
		len(e.Details) != 1 || e.Details[0].Reason != "VERSION_NOT_SUPPORTED" || e.Details[0].Domain != "a2a-protocol.org" {
		t.Errorf("answered %d %+v", resp.StatusCode, e)
	}
}

// A confirmation sent again after its call ran is answered with an error
// event saying so, not silently ignored.
func TestDuplicateConfirmationSaysSo(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(h.ws, "d.txt")
	h.fake.Enqueue(writeCall(path, "d"))
	evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
	id, call := taskID(evs), toolCallID(evs)
	approve := map[string]any{"kind": "data", "data": map[string]any{"callId": call, "outcome": "proceed_once"}}
	h.fake.Enqueue(fakegemini.Text("written"))
	h.stream(userMessage("", nil, id, approve))
	evs = h.stream(userMessage("", nil, id, approve))
	if s := summaryOf(evs); !strings.Contains(s, "Confirmation not applied") || !strings.Contains(s, call) {
		t.Errorf("a second confirmation of %s was answered with %s", call, s)
	}
}
