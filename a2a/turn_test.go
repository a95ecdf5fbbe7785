package a2a_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestCancelEveryPendingCall: a client that cancels every call waiting
// for approval ends the turn: no second model call, the calls reported
// cancelled, one final input-required event; the refusals go to the model
// with the next prompt.
func TestCancelEveryPendingCall(t *testing.T) {
	for _, tt := range []struct {
		name     string
		ext      bool
		outcomes []string // per call, in order
	}{
		{"gemini", false, []string{"cancel", "cancel"}},
		{"gemini, one refusal cancels the rest", false, []string{"cancel", "proceed_once"}},
		{"extension", true, []string{"cancel", "cancel"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.fake.Enqueue(fakegemini.Parts(
				fakegemini.CallPart("write_file", map[string]any{"file_path": filepath.Join(h.ws, "a.txt"), "content": "a"}),
				fakegemini.CallPart("write_file", map[string]any{"file_path": filepath.Join(h.ws, "b.txt"), "content": "b"}),
			))
			var hdr []string
			settings := geminiSettings(h.ws)
			if tt.ext {
				hdr, settings = extHeader(), extSettings(h.ws)
			}
			evs := h.stream(userMessage("two files", settings, ""), hdr...)
			ids := pendingCallIDs(evs)
			if len(ids) != 2 {
				t.Fatalf("calls awaiting approval: %v\n%s", ids, summary(evs))
			}
			before := len(h.fake.Requests())
			var parts []map[string]any
			for i, id := range ids {
				data := map[string]any{"callId": id, "outcome": tt.outcomes[i]}
				if tt.ext {
					data = map[string]any{"tool_call_id": id, "selected_option_id": tt.outcomes[i]}
				}
				parts = append(parts, map[string]any{"kind": "data", "data": data})
			}
			evs2 := h.stream(userMessage("", nil, taskID(evs), parts...), hdr...)
			assertUniqueFinalIsLast(t, evs2)
			if got := len(h.fake.Requests()); got != before {
				t.Errorf("the model was called after every call was cancelled (%d → %d requests)", before, got)
			}
			// The confirmations the client already got are not repeated.
			want := []string{
				"status-update input-required tool-call-update tool=write_file:cancelled outcome=cancel",
				"status-update input-required tool-call-update tool=write_file:cancelled outcome=" + tt.outcomes[1],
				"status-update input-required state-change FINAL",
			}
			if tt.ext {
				want = []string{
					"status-update working TOOL_CALL_UPDATE toolcall=write_file:CANCELLED",
					"status-update working TOOL_CALL_UPDATE toolcall=write_file:CANCELLED",
					"status-update input-required STATE_CHANGE FINAL",
				}
			}
			if got := strings.TrimSpace(summary(evs2)); got != strings.Join(want, "\n") {
				t.Errorf("wire:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
			h.fake.Enqueue(fakegemini.Text("ok"))
			evs3 := h.stream(userMessage("never mind", nil, taskID(evs)), hdr...)
			if !strings.Contains(summary(evs3), `"ok"`) {
				t.Errorf("next turn:\n%s", summary(evs3))
			}
			if body := string(h.fake.LastRequest().Body); strings.Count(body, "User denied execution") != 2 {
				t.Errorf("the refusals are not in the next request: %s", body)
			}
		})
	}
}

// pendingCallIDs returns the ids of the calls awaiting approval, in
// either wire format.
func pendingCallIDs(events []map[string]any) []string {
	var ids []string
	for _, ev := range events {
		for _, p := range asSlice(dig(ev, "status", "message", "parts")) {
			d, _ := dig(p, "data").(map[string]any)
			if d["status"] == "awaiting_approval" {
				ids = append(ids, dig(d, "request", "callId").(string))
			}
			if d["confirmation_request"] != nil {
				ids = append(ids, d["tool_call_id"].(string))
			}
		}
	}
	return ids
}
