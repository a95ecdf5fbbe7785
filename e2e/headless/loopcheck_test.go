package headless_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// longTask runs castor -o format on a model that calls glob with a new
// pattern at each of turns model turns (no rule of the rule-based
// detector fires) and then answers "done", and a loop check that answers
// verdict to every call; settings, when not nil, are the user's, and
// flags go before the others.
func longTask(t *testing.T, turns int, verdict, format string, settings any, flags ...string) (*e2etest.Env, e2etest.Result) {
	t.Helper()
	e := e2etest.New(t)
	if settings != nil {
		e2etest.WriteSettings(t, e, settings)
	}
	for i := range turns {
		e.Srv.Enqueue(fakegemini.Call("glob", map[string]any{"pattern": fmt.Sprintf("*%d.txt", i)}).For(fakegemini.RPCStreamGenerateContent))
	}
	e.Srv.Enqueue(fakegemini.Text("done").For(fakegemini.RPCStreamGenerateContent))
	for range 8 {
		e.Srv.Enqueue(fakegemini.Text(verdict).For(fakegemini.RPCGenerateContent))
	}
	r := e.Run(append(flags, "-o", format, "-p", "list the text files one by one")...)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	return e, r
}

const loopVerdict = `{"unproductive_state_analysis":"It keeps globbing.","unproductive_state_confidence":0.95}`

// TestLoopCheck: after 30 turns of one prompt the built binary asks
// Gemini CLI 0.61's loop-check models (gemini-3-flash-preview, then the
// pro model to confirm) about the recent history; a first loop found
// sends 0.61's feedback with the next request, a second, ten turns later,
// stops the run as 0.61 does: "Loop detected, stopping execution" in the
// json warnings (a stream-json warning event, then a successful result),
// exit 0, after the same 38 main requests and 4 checks 0.61 makes on this
// script. model.disableLoopDetection turns the check off.
func TestLoopCheck(t *testing.T) {
	t.Parallel()
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		e, r := longTask(t, 60, loopVerdict, "json", nil)
		var out struct {
			jsonOut
			Stats struct {
				Models map[string]struct {
					Roles map[string]struct {
						TotalRequests int `json:"totalRequests"`
					} `json:"roles"`
				} `json:"models"`
			} `json:"stats"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
			t.Fatalf("stdout: %v\n%s", err, r.Stdout)
		}
		if !slices.Equal(out.Warnings, []string{"Loop detected, stopping execution"}) || out.Error != nil || out.Response != "" {
			t.Errorf("output %s", r.Stdout)
		}
		if n := out.Stats.Models[fakegemini.DefaultModelVersion].Roles["utility_loop_detector"].TotalRequests; n != 4 {
			t.Errorf("stats count %d loop checks, want 4: %s", n, r.Stdout)
		}

		var streams int
		var checks []string
		var at []int
		for _, q := range e.Srv.Requests() {
			if q.RPC == fakegemini.RPCStreamGenerateContent {
				streams++
				continue
			}
			checks = append(checks, q.Model)
			at = append(at, streams)
			cfg := q.GenerationConfig
			schema, _ := json.Marshal(cfg.ResponseJsonSchema)
			if q.SystemInstruction == nil || !strings.HasPrefix(q.SystemInstruction.Parts[0].Text, "You are a diagnostic agent that determines whether a conversational AI assistant is stuck in an unproductive loop.") ||
				cfg.ResponseMIMEType != "application/json" || !strings.Contains(string(schema), `"unproductive_state_confidence"`) || len(q.Tools) != 0 {
				t.Errorf("check request %s", q.Body)
			}
			first, last := q.Contents[0].Parts[0].Text, q.LastContent().Parts[0].Text
			if first != "<original_user_request>\nlist the text files one by one\n</original_user_request>" || !strings.HasPrefix(last, "Please analyze the conversation history") {
				t.Errorf("check contents from %q to %q", first, last)
			}
		}
		wantChecks := []string{"gemini-3-flash-preview", "gemini-3.1-pro-preview-customtools", "gemini-3-flash-preview", "gemini-3.1-pro-preview-customtools"}
		if streams != 38 || !slices.Equal(checks, wantChecks) || !slices.Equal(at, []int{29, 29, 38, 38}) {
			t.Errorf("%d main requests, checks %v after %v of them", streams, checks, at)
		}
		var feedback string
		for _, q := range e.Srv.Requests() {
			if q.RPC == fakegemini.RPCStreamGenerateContent {
				if txt := e2etest.LastUserText(q); strings.HasPrefix(txt, "System: Potential loop detected.") {
					feedback = txt
					break
				}
			}
		}
		if !strings.HasPrefix(feedback, "System: Potential loop detected. Details: It keeps globbing.. Please take a step back") {
			t.Errorf("no feedback sent after the first loop; last user text %q", feedback)
		}
	})
	t.Run("stream-json", func(t *testing.T) {
		t.Parallel()
		_, r := longTask(t, 60, loopVerdict, "stream-json", nil)
		checkLoopStopped(t, r)
	})
	t.Run("progress is not a loop", func(t *testing.T) {
		t.Parallel()
		e, r := longTask(t, 45, `{"unproductive_state_analysis":"Each call globs a new pattern.","unproductive_state_confidence":0.1}`, "json", nil)
		if out := parseJSONOut(t, r); out.Response != "done" || len(out.Warnings) != 0 {
			t.Errorf("exit %d, output %s", r.Code, r.Stdout)
		}
		var checks []string
		for _, q := range e.Srv.Requests() {
			if q.RPC == fakegemini.RPCGenerateContent {
				checks = append(checks, q.Model)
			}
		}
		// Confidence 0.1 puts the next check 14 turns later, at 44.
		if !slices.Equal(checks, []string{"gemini-3-flash-preview", "gemini-3-flash-preview"}) {
			t.Errorf("checks %v", checks)
		}
	})
	t.Run("an answer that is no verdict", func(t *testing.T) {
		t.Parallel()
		e, r := longTask(t, 35, "I think it loops.", "json", nil, "--debug")
		if out := parseJSONOut(t, r); out.Response != "done" || len(out.Warnings) != 0 {
			t.Errorf("output %s", r.Stdout)
		}
		var checks int
		for _, q := range e.Srv.Requests() {
			if q.RPC == fakegemini.RPCGenerateContent {
				checks++
			}
		}
		// Asked again once, as 0.61 asks for JSON, then ignored.
		if checks != 2 || !strings.Contains(r.Stderr, `loop check: gemini-3-flash-preview gave no verdict, ignored: the answer is not JSON: "I think it loops."`) {
			t.Errorf("%d check calls, stderr %s", checks, r.Stderr)
		}
	})
	t.Run("disableLoopDetection", func(t *testing.T) {
		t.Parallel()
		e, r := longTask(t, 45, loopVerdict, "json", map[string]any{"model": map[string]any{"disableLoopDetection": true}})
		if out := parseJSONOut(t, r); out.Response != "done" || len(out.Warnings) != 0 {
			t.Errorf("exit %d, output %s", r.Code, r.Stdout)
		}
		for _, q := range e.Srv.Requests() {
			if q.RPC == fakegemini.RPCGenerateContent {
				t.Errorf("a loop check was made: %s", q.Body)
			}
		}
	})
}
