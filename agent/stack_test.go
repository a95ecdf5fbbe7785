package agent

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/stack"
	"github.com/castor-dev/castor/internal/stack/stacktest"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// stackTool reports whether its call's stack moved (was copied to grow)
// while it ran calls needing most of stack.Size.
type stackTool struct{ moved chan bool }

func (t stackTool) Name() string                                 { return "deep" }
func (t stackTool) DisplayName() string                          { return "deep" }
func (t stackTool) Description() string                          { return "deep" }
func (t stackTool) Kind() tool.Kind                              { return tool.KindRead }
func (t stackTool) Schema() map[string]any                       { return map[string]any{"type": "object"} }
func (t stackTool) Build(args map[string]any) (tool.Call, error) { return stackCall(t), nil }

type stackCall stackTool

func (c stackCall) Describe() string { return "deep" }
func (c stackCall) Confirmation(ctx context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}
func (c stackCall) Execute(ctx context.Context, out func(string)) *tool.Result {
	c.moved <- stacktest.Moves(func() { stacktest.Use(stack.Size / 1024 * 5 / 8) })
	return tool.Text("ok")
}

// TestToolsRunOnAGrownStack: a tool's call runs on a goroutine whose stack
// was grown before the tool started (internal/stack), so calls needing
// most of stack.Size do not copy it under the tool's frames (issue #24).
func TestToolsRunOnAGrownStack(t *testing.T) {
	deep := stackTool{moved: make(chan bool, 1)}
	m := &scripted{turns: [][]*genai.Part{{call("deep", nil)}, {{Text: "done"}}}}
	s := newTestSession(m, policy.ModeYolo, false, deep)
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
		t.Fatal(err)
	}
	if <-deep.moved {
		t.Error("the tool's stack was copied while it ran: its goroutine did not grow it first")
	}
}
