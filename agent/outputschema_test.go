package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// TestOutputSchemaRetry checks the final answer of a turn against
// Config.OutputSchema: a match ends the turn, a miss is sent back once,
// a second miss ends the turn with *OutputSchemaError. A tool call on
// the way is not an answer.
func TestOutputSchemaRetry(t *testing.T) {
	isOK := func(answer string) error {
		if answer != "ok" {
			return errors.New("want ok")
		}
		return nil
	}
	tests := []struct {
		name     string
		script   []fake.Entry
		wantText string
		wantErr  bool
		calls    int
	}{
		{"first answer matches", []fake.Entry{fake.Text("ok")}, "ok", false, 1},
		{"tool call, then a match", []fake.Entry{fake.Call("read", map[string]any{"text": "x"}), fake.Text("ok")}, "ok", false, 2},
		{"second try matches", []fake.Entry{fake.Text("nope"), fake.Text("ok")}, "ok", false, 2},
		{"two misses", []fake.Entry{fake.Text("nope"), fake.Text("still not")}, "", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := fake.Script(tt.script...)
			m := &watched{Model: script}
			s := New(Config{
				Model: m, ModelName: "gemini-3-pro-preview", SessionID: "s1",
				Tools:        tool.NewRegistry(echoTool{name: "read", kind: tool.KindRead}),
				Policy:       policy.New(policy.Options{Mode: policy.ModeYolo}),
				OutputSchema: &OutputSchema{Schema: map[string]any{"type": "string"}, Validate: isOK},
			})
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
			var se *OutputSchemaError
			if tt.wantErr != errors.As(err, &se) {
				t.Fatalf("err = %v", err)
			}
			if tt.wantErr && (se.Answer != "still not" || !strings.Contains(err.Error(), "want ok")) {
				t.Errorf("error %v, answer %q", err, se.Answer)
			}
			if !tt.wantErr {
				last := evs[len(evs)-1]
				if last.Type != EventTurnEnd || last.Text != tt.wantText {
					t.Errorf("last event %s %q", last.Type, last.Text)
				}
			}
			if got := script.Remaining(); got != 0 {
				t.Errorf("%d scripted answers left", got)
			}
			if len(m.reqs) != tt.calls {
				t.Errorf("%d model calls, want %d", len(m.reqs), tt.calls)
			}
			req := m.last()
			if req.Config.ResponseMIMEType != "application/json" || req.Config.ResponseJsonSchema == nil {
				t.Errorf("the schema was not sent: %+v", req.Config)
			}
		})
	}
}
