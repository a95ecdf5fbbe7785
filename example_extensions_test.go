package castor_test

import (
	"context"
	"fmt"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// ExampleWithExtensions gives an agent an extension in code: its
// instructions join the model's context and its command expands when a
// prompt starts with "/review".
func ExampleWithExtensions() {
	dir, cleanup := scratch()
	defer cleanup()
	review := castor.Extension{
		Name:         "reviewer",
		Instructions: "Review code like a careful senior engineer.",
		Commands: []castor.Command{{
			Name:        "review",
			Description: "Reviews a change",
			Prompt:      "Review {{args}} and list the risks.",
		}},
	}
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("No risks found."))),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithExtensions(review),
	)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "/review the login handler")
	if err != nil {
		panic(err)
	}
	first := a.Session().History()[0]
	fmt.Println("sent:", first.Parts[len(first.Parts)-1].Text)
	fmt.Println("answer:", res.Text)
	// Output:
	// sent: Review the login handler and list the risks.
	// answer: No risks found.
}
