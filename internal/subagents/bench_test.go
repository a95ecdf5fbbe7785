package subagents

import (
	"testing"

	"github.com/castor-dev/castor/model/fake"
)

// BenchmarkInvoke measures one subagent run (one tool call, then
// complete_task) on a scripted model: the engine overhead of a
// delegation.
func BenchmarkInvoke(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		m := fake.Script(fake.Call("echo", nil), fake.Call(CompleteTaskName, map[string]any{"result": "ok"}))
		_, it := parent(b, m, &Definition{Name: "a", Description: "d", SystemPrompt: "p"})
		call, _ := it.Build(map[string]any{"agent_name": "a", "prompt": "go"})
		b.StartTimer()
		if res := call.Execute(b.Context(), nil); res.Error != nil {
			b.Fatal(res.Error)
		}
	}
}
