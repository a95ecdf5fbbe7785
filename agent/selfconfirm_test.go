package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// TestSelfConfirmingHeadless: a self-confirming tool's call that asks for
// approval is refused when nobody can answer, and one that gives no
// details runs; interactive, the asking one waits for an answer.
func TestSelfConfirmingHeadless(t *testing.T) {
	tests := []struct {
		name        string
		interactive bool
		text        string // "quiet": the call gives no confirmation details
		want        string // the call's final status, or "paused"
	}{
		{"asks headless", false, "x", string(StatusError)},
		{"quiet headless", false, "quiet", string(StatusSuccess)},
		{"asks interactive", true, "x", "paused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran []string
			var mu sync.Mutex
			m := &scripted{turns: [][]*genai.Part{{callID("c1", "custom", tt.text)}, {{Text: "done"}}}}
			s := New(Config{
				Model: m, ModelName: "gemini-2.5-pro",
				Tools:  tool.NewRegistry(quietTool{echoTool{name: "custom", kind: tool.KindOther, ran: &ran, mu: &mu}}),
				Policy: policy.New(policy.Options{Interactive: tt.interactive, SelfConfirming: []string{"custom"}}),
			})
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, ev := range evs {
				if ev.Type == EventToolCall {
					got = string(ev.Call.Status)
				}
				if ev.Type == EventInputRequired {
					got = "paused"
				}
			}
			if got != tt.want {
				t.Fatalf("call ended %q, want %q", got, tt.want)
			}
			if tt.want == string(StatusError) {
				if len(ran) != 0 || !strings.Contains(requestText(m.reqs[1].Contents), "Tool execution denied by policy.") {
					t.Errorf("ran %v, request %q", ran, requestText(m.reqs[1].Contents))
				}
			}
		})
	}
}

// quietTool is echoTool whose calls of the text "quiet" give no
// confirmation details.
type quietTool struct{ echoTool }

func (t quietTool) Build(args map[string]any) (tool.Call, error) {
	c, err := t.echoTool.Build(args)
	if err != nil {
		return nil, err
	}
	return quietCall{c.(echoCall)}, nil
}

type quietCall struct{ echoCall }

func (c quietCall) Confirmation(ctx context.Context) (*tool.ConfirmationDetails, error) {
	if c.text == "quiet" {
		return nil, nil
	}
	return c.echoCall.Confirmation(ctx)
}

// TestFinishedCarriesFinishReason: the response's end event says why the
// model stopped.
func TestFinishedCarriesFinishReason(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{{Text: "a"}, {Text: "b"}}}}
	evs, err := collect(t, New(Config{Model: m, ModelName: "gemini-2.5-pro"}).Send(context.Background(), genai.NewPartFromText("hi")))
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, ev := range evs {
		if ev.Type == EventFinished {
			reasons = append(reasons, string(ev.FinishReason))
		}
	}
	if strings.Join(reasons, ",") != string(genai.FinishReasonStop) {
		t.Errorf("finish reasons %v, want [STOP]", reasons)
	}
}
