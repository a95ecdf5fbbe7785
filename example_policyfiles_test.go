package castor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// ExampleWithPolicyFiles refuses rm even in yolo mode with a Gemini CLI
// policy file; the denyMessage tells the model why.
func ExampleWithPolicyFiles() {
	dir, cleanup := scratch()
	defer cleanup()
	rules := filepath.Join(dir, "deny-rm.toml")
	os.WriteFile(rules, []byte(`
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
denyMessage = "Deleting files is not allowed."
`), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("keep"), 0o644)

	model := fake.Script(
		fake.Call("run_shell_command", map[string]any{"command": "rm notes.txt"}),
		fake.Text("I may not delete it."),
	)
	a, err := castor.New(context.Background(),
		castor.WithClient(model), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithApprovalMode(policy.ModeYolo),
		castor.WithPolicyFiles(rules),
	)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Delete notes.txt")
	if err != nil {
		panic(err)
	}
	_, statErr := os.Stat(filepath.Join(dir, "notes.txt"))
	fmt.Println(res.Text)
	fmt.Println("notes.txt kept:", statErr == nil)
	// Output:
	// I may not delete it.
	// notes.txt kept: true
}

// ExampleWithPolicyFiles_ask runs in yolo mode but has a policy file ask
// before any git push; the program answers from code and refuses it.
// Other commands still run unasked.
func ExampleWithPolicyFiles_ask() {
	dir, cleanup := scratch()
	defer cleanup()
	rules := filepath.Join(dir, "ask-push.toml")
	os.WriteFile(rules, []byte(`
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "ask_user"
priority = 100
`), 0o644)
	confirm := func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		fmt.Println("asked:", call.Confirmation.Details.Command)
		return tool.Decision{Outcome: tool.Cancel}, nil
	}
	model := fake.Script(
		fake.Call("run_shell_command", map[string]any{"command": "echo built"}),
		fake.Call("run_shell_command", map[string]any{"command": "git push origin main"}),
		fake.Text("never asked for: refusing the only call ends the turn"),
	)
	a, err := castor.New(context.Background(),
		castor.WithClient(model), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithApprovalMode(policy.ModeYolo),
		castor.WithPolicyFiles(rules),
		castor.WithConfirm(confirm),
	)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	for ev, err := range a.Stream(context.Background(), "Build and push.") {
		if err != nil {
			panic(err)
		}
		if ev.Type == agent.EventToolCall && ev.Call.Result != nil {
			fmt.Println(ev.Call.Args["command"], "→", ev.Call.Status)
		}
	}
	// Output:
	// echo built → success
	// asked: git push origin main
	// git push origin main → cancelled
}
