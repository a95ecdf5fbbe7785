package castor_test

import (
	"context"
	"fmt"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/tool"
)

// ExampleAskFirst makes a tool whose calls need approval, and answers
// from code: deploying to staging is approved; a call to deploy to
// production would be refused, which the model sees as the call's
// result.
func ExampleAskFirst() {
	dir, cleanup := scratch()
	defer cleanup()
	type deployIn struct {
		Env string `json:"env" jsonschema:"staging or prod"`
	}
	deploy := castor.MustTool("deploy", "Deploys the service.",
		func(ctx context.Context, in deployIn) (string, error) {
			return "deployed to " + in.Env, nil
		}, castor.AskFirst())
	confirm := func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		env := call.Confirmation.Details.ToolArgs["env"]
		fmt.Println("asked about", call.Name, "to", env)
		if env == "prod" {
			return tool.Decision{Outcome: tool.Cancel}, nil
		}
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(
			fake.Call("deploy", map[string]any{"env": "staging"}),
			fake.Text("Deployed to staging."),
		)),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithTools(deploy), castor.WithConfirm(confirm))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Deploy to staging.")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output:
	// asked about deploy to staging
	// Deployed to staging.
}

// ExampleWithPausedConfirmations lets a turn stop at the calls that need
// approval, so that a program can ask someone (a chat message, a web
// page) and carry on later: Send returns with Result.Pending, each call
// is answered with Session().Answer, and Resume finishes the turn.
func ExampleWithPausedConfirmations() {
	dir, cleanup := scratch()
	defer cleanup()
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(
			fake.Call("write_file", map[string]any{"file_path": dir + "/hello.txt", "content": "hello\n"}),
			fake.Text("I wrote hello.txt."),
		)),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithPausedConfirmations())
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Write hello.txt.")
	if err != nil {
		panic(err)
	}
	for _, call := range res.Pending {
		fmt.Println("waiting for approval:", call.Name, call.Confirmation.Details.Type)
		if err := a.Session().Answer(call.ID, tool.Decision{Outcome: tool.ProceedOnce}); err != nil {
			panic(err)
		}
	}
	res, err = a.Resume(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output:
	// waiting for approval: write_file edit
	// I wrote hello.txt.
}

// ExampleAgent_Stream_cancel stops a turn by cancelling its context while
// a tool runs (here the tool cancels it itself, as a user pressing a stop
// button would). The turn ends with the context's error, and the agent
// takes the next prompt.
func ExampleAgent_Stream_cancel() {
	dir, cleanup := scratch()
	defer cleanup()
	ctx, stop := context.WithCancel(context.Background())
	slow := castor.MustTool("build", "Builds the project.", func(ctx context.Context, in struct{}) (string, error) {
		stop() // the user gives up
		<-ctx.Done()
		return "", ctx.Err()
	})
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Call("build", map[string]any{}), fake.Text("Ready."))),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithTools(slow))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	for _, err := range a.Stream(ctx, "Build it.") {
		if err != nil {
			fmt.Println("turn ended:", err)
		}
	}
	res, err := a.Send(context.Background(), "Anything else?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output:
	// turn ended: context canceled
	// Ready.
}
