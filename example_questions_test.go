package castor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/tool"
)

// ExampleWithAskUser answers the model's questions from code.
func ExampleWithAskUser() {
	dir, cleanup := scratch()
	defer cleanup()
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(
			fake.Call("ask_user", map[string]any{"questions": []any{
				map[string]any{"question": "Which database?", "header": "Database", "type": "choice", "options": []any{
					map[string]any{"label": "Postgres", "description": "a server"},
					map[string]any{"label": "SQLite", "description": "a file"},
				}},
			}}),
			fake.Text("SQLite it is."),
		)),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithAskUser(func(ctx context.Context, qs []tool.Question) (map[string]string, error) {
			fmt.Println("asked:", qs[0].Question)
			return map[string]string{"0": "SQLite"}, nil
		}))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Set up storage.")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output:
	// asked: Which database?
	// SQLite it is.
}

// ExampleWithPlanApproval reviews the plan the model writes in plan mode
// before it may change anything, and approves it with edits applied
// automatically.
func ExampleWithPlanApproval() {
	dir, cleanup := scratch()
	defer cleanup()
	target := filepath.Join(dir, "hello.txt")
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(
			fake.Call("enter_plan_mode", map[string]any{"reason": "design first"}),
			fake.Call("write_file", map[string]any{"file_path": "hello.md", "content": "1. Write hello.txt\n"}),
			fake.Call("exit_plan_mode", map[string]any{"plan_filename": "hello.md"}),
			fake.Call("write_file", map[string]any{"file_path": target, "content": "hello\n"}),
			fake.Text("Done."),
		)),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithPlanApproval(func(ctx context.Context, p castor.PlanReview) (tool.PlanVerdict, error) {
			fmt.Printf("plan %s: %s", filepath.Base(p.Path), p.Text)
			return tool.PlanVerdict{Approved: true, Mode: "auto_edit"}, nil
		}))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "Say hello in a file.")
	if err != nil {
		panic(err)
	}
	b, _ := os.ReadFile(target)
	fmt.Print(res.Text, " ", string(b))
	// Output:
	// plan hello.md: 1. Write hello.txt
	// Done. hello
}

// ExampleAgent_Rewind takes back the last exchange: the model no longer
// sees it, and the next prompt goes on from the first.
func ExampleAgent_Rewind() {
	dir, cleanup := scratch()
	defer cleanup()
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("Paris."), fake.Text("Berlin."), fake.Text("Rome."))),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	ctx := context.Background()
	for _, q := range []string{"Capital of France?", "Capital of Germany?"} {
		if _, err := a.Send(ctx, q); err != nil {
			panic(err)
		}
	}
	prompts := a.Prompts()
	back, err := a.Rewind(ctx, prompts[len(prompts)-1].ID)
	if err != nil {
		panic(err)
	}
	fmt.Println("took back:", back.Text)
	res, err := a.Send(ctx, "Capital of Italy?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text, len(a.Session().History()), "contents")
	// Output:
	// took back: Capital of Germany?
	// Rome. 4 contents
}
