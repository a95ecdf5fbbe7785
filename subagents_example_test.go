package castor_test

import (
	"context"
	"fmt"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// ExampleWithSubagents gives an agent a reviewer subagent. The main
// model delegates with invoke_agent; the subagent runs its own turn (on
// the same scripted model here) and submits its finding with
// complete_task, which the main model receives as the call's answer.
func ExampleWithSubagents() {
	dir, cleanup := scratch()
	defer cleanup()
	model := fake.Script(
		// The main model delegates.
		fake.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Is the plan safe?"}),
		// The subagent's own model call.
		fake.Call("complete_task", map[string]any{"result": "Safe: it only reads files."}),
		// The main model answers.
		fake.Text("The reviewer says the plan is safe."),
	)
	reviewer := castor.Subagent{
		Name:         "reviewer",
		Description:  "Reviews plans for safety.",
		Instructions: "You review plans. Task: ${query}",
		Tools:        []string{"read_file"},
	}
	a, err := castor.New(context.Background(),
		castor.WithClient(model), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithSubagents(reviewer),
	)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Check my plan.")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output: The reviewer says the plan is safe.
}
