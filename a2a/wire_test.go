package a2a_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// The legacy (coderAgent) wire as clients of Gemini CLI's released A2A
// server (0.25.2) read it: gemini-cli-0.61-observed.md "A2A server" and
// its packages/a2a-server/src/agent/task.ts at v0.25.2.

// normalized is v as JSON with the values that change from run to run
// (ids, times, the workspace path) replaced by their key's name.
func normalized(t *testing.T, v any, ws string) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	volatile := map[string]bool{"id": true, "taskId": true, "contextId": true, "_contextId": true, "messageId": true,
		"timestamp": true, "callId": true, "prompt_id": true, "traceId": true, "artifactId": true}
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if _, isStr := e.(string); isStr && volatile[k] {
					v[k] = "<" + k + ">"
					continue
				}
				v[k] = walk(e)
			}
		case []any:
			for i, e := range v {
				v[i] = walk(e)
			}
		case string:
			if ws != "" {
				return strings.ReplaceAll(v, ws, "<ws>")
			}
		}
		return v
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(walk(x)); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestLegacyRenderGolden pins the legacy events for a call's life: the
// status goes out as the engine names it (validating first), a
// confirmation the client answered is not sent again, and live output
// carries the whole output so far, append true and lastChunk false.
func TestLegacyRenderGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []a2a.WireStep
		// kinds is each event's coderAgent kind and status, or the
		// artifact's text.
		kinds []string
	}{
		{"wire-first-status", []a2a.WireStep{{Status: agent.StatusValidating}, {Status: agent.StatusAwaitingApproval}},
			[]string{"tool-call-update validating", "tool-call-confirmation awaiting_approval"}},
		{"wire-answered", []a2a.WireStep{{Status: agent.StatusAwaitingApproval, Outcome: "proceed_once"}, {Status: agent.StatusScheduled, Outcome: "proceed_once"}},
			[]string{"tool-call-update scheduled"}},
		{"wire-live-output", []a2a.WireStep{{Status: agent.StatusExecuting}, {Status: agent.StatusExecuting, Output: "one\n"}, {Status: agent.StatusExecuting, Output: "one\n"}, {Status: agent.StatusExecuting, Output: "one\ntwo\n"}},
			[]string{"tool-call-update executing", "artifact one\n", "artifact one\ntwo\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs := a2a.RenderWire(false, tt.steps)
			var got []string
			for _, ev := range evs {
				switch ev := ev.(type) {
				case *a2a.StatusUpdateEvent:
					d := ev.Status.Message.Parts[0].Data.(map[string]any)
					got = append(got, ev.Metadata["coderAgent"].(map[string]any)["kind"].(string)+" "+d["status"].(string))
				case *a2a.ArtifactUpdateEvent:
					if !ev.Append || ev.LastChunk {
						t.Errorf("artifact-update append=%v lastChunk=%v, want true, false", ev.Append, ev.LastChunk)
					}
					got = append(got, "artifact "+ev.Artifact.Parts[0].Text)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.kinds, "|") {
				t.Errorf("events %q, want %q", got, tt.kinds)
			}
			checkGolden(t, tt.name, normalized(t, evs, ""))
		})
	}
}

// TestLiveOutputWhole: over the wire, each artifact-update of a running
// shell command holds the output so far, so the last one holds it all.
func TestLiveOutputWhole(t *testing.T) {
	h := newHarness(t, withYOLO())
	h.fake.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "echo live-one; sleep 0.2; echo live-two"}), fakegemini.Text("ran"))
	evs := h.stream(userMessage("run", geminiSettings(h.ws), ""))
	assertUniqueFinalIsLast(t, evs)
	var texts []string
	for _, ev := range evs {
		if ev["kind"] != "artifact-update" {
			continue
		}
		if ev["append"] != true || ev["lastChunk"] != false {
			t.Errorf("append=%v lastChunk=%v, want true, false", ev["append"], ev["lastChunk"])
		}
		texts = append(texts, dig(asSlice(dig(ev, "artifact", "parts"))[0], "text").(string))
	}
	if len(texts) == 0 {
		t.Fatalf("no artifact-update:\n%s", summary(evs))
	}
	for i := 1; i < len(texts); i++ {
		if !strings.HasPrefix(texts[i], texts[i-1]) {
			t.Errorf("update %d is not the whole output so far: %q after %q", i, texts[i], texts[i-1])
		}
	}
	if last := texts[len(texts)-1]; !strings.Contains(last, "live-one") || !strings.Contains(last, "live-two") {
		t.Errorf("last update %q does not hold the whole output", last)
	}
}

// TestTaskArtifactsAlwaysArray: every task object a legacy client gets,
// the first stream event, message/send's result and tasks/get's, has
// "artifacts" as an array, [] when the task made none.
func TestTaskArtifactsAlwaysArray(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("hi"), fakegemini.Text("again"))
	evs := h.stream(userMessage("hello", geminiSettings(h.ws), ""))
	sent := h.rpc("message/send", userMessage("more", nil, taskID(evs)))
	got := h.rpc("tasks/get", map[string]any{"id": taskID(evs)})
	for _, tt := range []struct {
		name string
		task any
	}{
		{"task-event", evs[0]},
		{"message-send", sent["result"]},
		{"tasks-get", got["result"]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := dig(tt.task, "artifacts").([]any)
			if !ok || len(a) != 0 {
				t.Errorf("artifacts = %#v, want []", dig(tt.task, "artifacts"))
			}
		})
	}
	checkGolden(t, "wire-task-event", normalized(t, evs[0], h.ws))
	checkGolden(t, "wire-tasks-get", normalized(t, got["result"], h.ws))
}

// TestSecondStreamNoRepeatedConfirmation: the stream that answers a
// confirmation, or re-attaches to the paused task, does not send again
// the tool-call-confirmation the first stream ended on.
func TestSecondStreamNoRepeatedConfirmation(t *testing.T) {
	for _, tt := range []struct {
		name    string
		outcome string // "" resubscribes
	}{
		{"proceed_once", "proceed_once"},
		{"cancel", "cancel"},
		{"modify_with_editor", "modify_with_editor"},
		{"resubscribe", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.fake.Enqueue(writeCall(filepath.Join(h.ws, "a.txt"), "a\n"), fakegemini.Text("done"))
			evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
			if !strings.Contains(summary(evs), "tool-call-confirmation") {
				t.Fatalf("first stream has no confirmation:\n%s", summary(evs))
			}
			var evs2 []map[string]any
			if tt.outcome == "" {
				evs2 = h.open("tasks/resubscribe", map[string]any{"id": taskID(evs)}).rest()
			} else {
				evs2 = h.stream(userMessage("", nil, taskID(evs), map[string]any{"kind": "data", "data": map[string]any{"callId": toolCallID(evs), "outcome": tt.outcome}}))
			}
			for _, ev := range evs2 {
				if dig(ev, "metadata", "coderAgent", "kind") == "tool-call-confirmation" {
					t.Errorf("confirmation repeated:\n%s", summary(evs2))
				}
			}
		})
	}
}
