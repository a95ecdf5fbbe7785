package castor_test

import (
	"context"
	"fmt"
	"os"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/tool"
)

// scratch is a throwaway directory for an example's workspace and home.
func scratch() (string, func()) {
	dir, err := os.MkdirTemp("", "castor-example")
	if err != nil {
		panic(err)
	}
	return dir, func() { os.RemoveAll(dir) }
}

// Example shows an agent with a custom tool. A real program leaves out
// WithClient: the agent then reads GEMINI_API_KEY (or Vertex AI settings)
// as the castor command does. Here a scripted model from package
// model/fake plays Gemini.
func Example() {
	dir, cleanup := scratch()
	defer cleanup()
	model := fake.Script(
		fake.Call("get_weather", map[string]any{"city": "Paris"}),
		fake.Text("It is sunny in Paris."),
	)
	type weatherIn struct {
		City string `json:"city" jsonschema:"the city to look up"`
	}
	weather := castor.MustTool("get_weather", "Returns the weather in a city.",
		func(ctx context.Context, in weatherIn) (string, error) {
			return "sunny in " + in.City, nil
		})

	a, err := castor.New(context.Background(),
		castor.WithClient(model), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithInstructions("Answer in one sentence."),
		castor.WithTools(weather),
	)
	if err != nil {
		panic(err)
	}
	defer a.Close()

	res, err := a.Send(context.Background(), "What is the weather in Paris?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	fmt.Println("tool calls:", res.Stats.Tools.TotalCalls)
	// Output:
	// It is sunny in Paris.
	// tool calls: 1
}

// ExampleAgent_Send sends one prompt and prints the answer.
func ExampleAgent_Send() {
	dir, cleanup := scratch()
	defer cleanup()
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("Hello", " from Castor."))),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Say hello.")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output: Hello from Castor.
}

// ExampleAgent_Stream prints the engine's events as they happen: text as
// it streams and each tool call's status changes.
func ExampleAgent_Stream() {
	dir, cleanup := scratch()
	defer cleanup()
	if err := os.WriteFile(dir+"/notes.txt", []byte("buy milk\n"), 0o644); err != nil {
		panic(err)
	}
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(
			fake.Call("read_file", map[string]any{"absolute_path": dir + "/notes.txt"}),
			fake.Text("The note says: ", "buy milk."),
		)),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	for ev, err := range a.Stream(context.Background(), "What does notes.txt say?") {
		if err != nil {
			panic(err)
		}
		switch ev.Type {
		case agent.EventToolCall:
			fmt.Println("tool", ev.Call.Name, ev.Call.Status)
		case agent.EventContent:
			fmt.Printf("text %q\n", ev.Text)
		}
	}
	// Output:
	// tool read_file validating
	// tool read_file scheduled
	// tool read_file executing
	// tool read_file success
	// text "The note says: "
	// text "buy milk."
}

// ExampleNewTool makes a tool from a Go function: the model sees the JSON
// Schema of the input struct and the function gets the decoded arguments.
func ExampleNewTool() {
	type addIn struct {
		A float64 `json:"a" jsonschema:"first number"`
		B float64 `json:"b" jsonschema:"second number"`
	}
	add, err := castor.NewTool("add", "Adds two numbers.", func(ctx context.Context, in addIn) (float64, error) {
		return in.A + in.B, nil
	})
	if err != nil {
		panic(err)
	}
	call, err := add.Build(map[string]any{"a": 2, "b": 3.5})
	if err != nil {
		panic(err)
	}
	fmt.Println(add.Name(), call.Execute(context.Background(), nil).LLMText)
	// Output: add 5.5
}

// ExampleWithConfirm answers the approval of each tool call that needs
// one; here the program refuses to let the model write files. Refusing
// every call of a model response ends the turn without asking the model
// again, as in Gemini CLI.
func ExampleWithConfirm() {
	dir, cleanup := scratch()
	defer cleanup()
	confirm := func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		fmt.Println("asked about", call.Name)
		if call.Name == "write_file" {
			return tool.Decision{Outcome: tool.Cancel}, nil
		}
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	model := fake.Script(
		fake.Call("write_file", map[string]any{"file_path": dir + "/out.txt", "content": "hi"}),
		fake.Text("This answer is never asked for."),
	)
	a, err := castor.New(context.Background(),
		castor.WithClient(model),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithConfirm(confirm))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	if _, err := a.Send(context.Background(), "Write hi to out.txt."); err != nil {
		panic(err)
	}
	_, statErr := os.Stat(dir + "/out.txt")
	fmt.Println("file written:", statErr == nil)
	fmt.Println("model answers left unasked:", model.Remaining())
	// Output:
	// asked about write_file
	// file written: false
	// model answers left unasked: 1
}

// ExampleWithResume continues a recorded session in a new agent, as
// `castor --resume` does: the model sees the earlier conversation.
func ExampleWithResume() {
	dir, cleanup := scratch()
	defer cleanup()
	first, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("Noted: your name is Ada."))),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir))
	if err != nil {
		panic(err)
	}
	if _, err := first.Send(context.Background(), "My name is Ada."); err != nil {
		panic(err)
	}
	id := first.SessionID()
	first.Close()

	second, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("Your name is Ada."))),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithResume(id))
	if err != nil {
		panic(err)
	}
	defer second.Close()
	fmt.Println("same session:", second.SessionID() == id)
	fmt.Println("messages before the new prompt:", len(second.Session().History()))
	res, err := second.Send(context.Background(), "What is my name?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output:
	// same session: true
	// messages before the new prompt: 2
	// Your name is Ada.
}
