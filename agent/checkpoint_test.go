package agent

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// checkpointTool records a checkpoint while it runs, as the edit tools'
// BeforeEdit does with checkpointing on.
type checkpointTool struct{ echoTool }

func (t checkpointTool) Build(args map[string]any) (tool.Call, error) {
	return checkpointCall{}, nil
}

type checkpointCall struct{ echoCall }

func (checkpointCall) Execute(ctx context.Context, out func(string)) *tool.Result {
	tool.RecordCheckpoint(ctx, "2026-01-02T03-04-05_000Z-a.txt-cp")
	return tool.Text("written")
}

// TestCheckpointOnCall: the checkpoint a call records while it runs is on
// its terminal event, for the faces that report it; other calls carry
// none.
func TestCheckpointOnCall(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{
		{call("cp", map[string]any{"text": "x"}), call("echo", map[string]any{"text": "y"})},
		{{Text: "done"}},
	}}
	s := newTestSession(m, policy.ModeYolo, false, checkpointTool{echoTool{name: "cp", kind: tool.KindEdit}}, echoTool{name: "echo", kind: tool.KindRead})
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ev := range evs {
		if ev.Type == EventToolCall && ev.Call.Status == StatusSuccess {
			got[ev.Call.Name] = ev.Call.Checkpoint
		}
	}
	if got["cp"] != "2026-01-02T03-04-05_000Z-a.txt-cp" || got["echo"] != "" || len(got) != 2 {
		t.Errorf("checkpoints on the successes: %v", got)
	}
}
