package acp_test

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/model/fake"
)

// Example serves an SDK agent with a custom tool over ACP and drives it
// with the Go client, in one process: the Go form of Gemini CLI SDK's
// GeminiCliAcpServer. A program serving an editor calls
// acp.NewServer(opts...).ServeStdio(ctx) instead, and a program driving
// another ACP agent uses acp.Start(exec.Command("castor", "--acp"), h).
func Example() {
	dir, err := os.MkdirTemp("", "castor-acp-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	type cityIn struct {
		City string `json:"city"`
	}
	weather := castor.MustTool("get_weather", "Returns the weather in a city.",
		func(_ context.Context, in cityIn) (string, error) { return "sunny in " + in.City, nil })
	server := acp.NewServer(
		castor.WithClient(fake.Script(
			fake.Call("get_weather", map[string]any{"city": "Paris"}),
			fake.Text("It is sunny in Paris."),
		)),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithoutRecording(),
		castor.WithTools(weather),
	)

	ctx := context.Background()
	client := server.Connect(ctx, acp.Handler{
		Update: func(_ context.Context, n sdk.SessionNotification) {
			switch u := n.Update; {
			case u.ToolCall != nil:
				fmt.Println("tool call:", u.ToolCall.Title)
			case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
				fmt.Println("tool call:", *u.ToolCallUpdate.Status)
			case u.AgentMessageChunk != nil:
				fmt.Println("agent:", u.AgentMessageChunk.Content.Text.Text)
			}
		},
	})
	defer client.Close()
	if _, err := client.Init(ctx); err != nil {
		panic(err)
	}
	s, err := client.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		panic(err)
	}
	r, err := client.PromptText(ctx, s.SessionId, "What is the weather in Paris?")
	if err != nil {
		panic(err)
	}
	fmt.Println("stop:", r.StopReason)
	// Output:
	// tool call: get_weather
	// tool call: in_progress
	// tool call: completed
	// agent: It is sunny in Paris.
	// stop: end_turn
}
