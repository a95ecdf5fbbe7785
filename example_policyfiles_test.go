package castor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
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
