// Command sdk is a small program built on Castor's Go SDK: it sends one
// prompt about a workspace, prints the answer as it streams, and asks on
// the terminal before each edit or shell command the model wants to run.
//
// It runs offline on the example workspace with the scripted model the
// castor command's quick start uses:
//
//	go run ./examples/sdk -C examples/workspace -fake examples/quickstart.jsonl "Summarize this project into NOTES.md"
//
// Without -fake it uses Gemini, with the credentials of the environment
// (GEMINI_API_KEY, or Vertex AI's) and the user's settings.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

func main() {
	dir := flag.String("C", ".", "workspace `dir`ectory")
	script := flag.String("fake", "", "play the model from a Gemini CLI --fake-responses `file`")
	yolo := flag.Bool("y", false, "run every tool call without asking")
	flag.Parse()
	if err := run(*dir, *script, *yolo, strings.Join(flag.Args(), " ")); err != nil {
		fmt.Fprintln(os.Stderr, "sdk:", err)
		os.Exit(1)
	}
}

func run(dir, script string, yolo bool, prompt string) error {
	if prompt == "" {
		return fmt.Errorf("no prompt: give it as arguments")
	}
	// Ctrl-C cancels the turn; the agent is closed on the way out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := []castor.Option{castor.WithWorkDir(dir), castor.WithConfirm(askOnTerminal)}
	if script != "" {
		m, err := fake.Open(script, true)
		if err != nil {
			return err
		}
		opts = append(opts, castor.WithClient(m))
	}
	if yolo {
		opts = append(opts, castor.WithApprovalMode(policy.ModeYolo))
	}
	a, err := castor.New(ctx, opts...)
	if err != nil {
		return err
	}
	defer a.Close()
	for ev, err := range a.Stream(ctx, prompt) {
		if err != nil {
			return err
		}
		switch ev.Type {
		case agent.EventContent:
			fmt.Print(ev.Text)
		case agent.EventToolCall:
			if ev.Call.Status == agent.StatusExecuting {
				fmt.Printf("[%s]\n", ev.Call.Description)
			}
		case agent.EventTurnEnd:
			fmt.Println()
		}
	}
	return nil
}

// askOnTerminal shows what a call would do and reads y or n.
func askOnTerminal(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
	fmt.Printf("Allow %s: %s? [y/N] ", call.Name, call.Description)
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return tool.Decision{}, fmt.Errorf("no answer on stdin: %w", err)
	}
	if strings.EqualFold(strings.TrimSpace(line), "y") {
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	return tool.Decision{Outcome: tool.Cancel}, nil
}
