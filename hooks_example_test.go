package castor_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
)

// ExampleWithHooks guards the shell with a BeforeTool hook: the call is
// blocked, the model is told why, and the command never runs.
func ExampleWithHooks() {
	dir, cleanup := scratch()
	defer cleanup()
	model := fake.Script(
		fake.Call("run_shell_command", map[string]any{"command": "rm -rf build"}),
		fake.Text("I was not allowed to delete the build folder."),
	)
	guard := castor.Hook{
		Event:   castor.BeforeTool,
		Matcher: "run_shell_command",
		Func: func(ctx context.Context, in *castor.HookInput, sc castor.SessionContext) (*castor.HookOutput, error) {
			if cmd, _ := in.ToolInput["command"].(string); strings.HasPrefix(cmd, "rm ") {
				return castor.Block("deleting files is not allowed"), nil
			}
			return nil, nil
		},
	}
	note := castor.Hook{
		Event: castor.BeforeAgent,
		Func: func(ctx context.Context, in *castor.HookInput, sc castor.SessionContext) (*castor.HookOutput, error) {
			return castor.AddContext("The build folder is precious."), nil
		},
	}
	a, err := castor.New(context.Background(),
		castor.WithClient(model), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithApprovalMode(policy.ModeYolo), castor.WithHooks(guard, note))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Clean up")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output: I was not allowed to delete the build folder.
}

// ExampleHalt stops the whole agent from a hook.
func ExampleHalt() {
	dir, cleanup := scratch()
	defer cleanup()
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script()), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithHooks(castor.Hook{Event: castor.BeforeAgent,
			Func: func(ctx context.Context, in *castor.HookInput, sc castor.SessionContext) (*castor.HookOutput, error) {
				return castor.Halt("maintenance window"), nil
			}}))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	for ev, err := range a.Stream(context.Background(), "hello") {
		if err != nil {
			panic(err)
		}
		if ev.Type == agent.EventTurnEnd {
			fmt.Println(ev.Reason, ev.Text)
		}
	}
	// Output: stopped maintenance window
}

// ExampleHook_RunCommand runs a Go hook the way a settings file's command
// hook runs: input on stdin, JSON on stdout, an exit code. A program
// would call RunAsCommand from main instead.
func ExampleHook_RunCommand() {
	h := castor.Hook{
		Event: castor.BeforeTool,
		Func: func(ctx context.Context, in *castor.HookInput, sc castor.SessionContext) (*castor.HookOutput, error) {
			return castor.Block("no " + in.ToolName + " today"), nil
		},
	}
	stdin := strings.NewReader(`{"hook_event_name": "BeforeTool", "tool_name": "write_file", "cwd": "/tmp"}`)
	code := h.RunCommand(context.Background(), stdin, os.Stdout, os.Stderr)
	fmt.Println("exit", code)
	// Output:
	// {"decision":"deny","reason":"no write_file today"}
	// exit 0
}

// ExampleShell_Exec runs a command from a hook through the session's
// shell, which keeps to the workspace.
func ExampleShell_Exec() {
	dir, cleanup := scratch()
	defer cleanup()
	var out string
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("ok"))), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithHooks(castor.Hook{Event: castor.SessionStart,
			Func: func(ctx context.Context, in *castor.HookInput, sc castor.SessionContext) (*castor.HookOutput, error) {
				if err := sc.FS.WriteFile("VERSION", "1.2.3\n"); err != nil {
					return nil, err
				}
				res, err := sc.Shell.Exec(ctx, "cat VERSION; echo oops >&2; exit 4", &castor.ShellOptions{})
				if err != nil {
					return nil, err
				}
				out = fmt.Sprintf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
				return nil, nil
			}}))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	fmt.Println(out)
	// Output: exit 4 stdout "1.2.3\n" stderr "oops\n"
}

// ExampleResult_StopReason tells a hook's halt from a model's answer
// under Send: both end the turn without an error, and Text holds the
// hook's reason or the answer.
func ExampleResult_StopReason() {
	dir, cleanup := scratch()
	defer cleanup()
	halt := false
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("Hello!"))), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithHooks(castor.Hook{Event: castor.BeforeAgent,
			Func: func(ctx context.Context, in *castor.HookInput, sc castor.SessionContext) (*castor.HookOutput, error) {
				if halt {
					return castor.Halt("maintenance window"), nil
				}
				return nil, nil
			}}))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	for _, h := range []bool{false, true} {
		halt = h
		res, err := a.Send(context.Background(), "hello")
		if err != nil {
			panic(err)
		}
		fmt.Println(res.StopReason, res.Text)
	}
	// Output:
	// completed Hello!
	// halted maintenance window
}
