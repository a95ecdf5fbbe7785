package castor_test

import (
	"context"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// ExampleWithSkills gives an agent a skill kept in memory. The model
// sees the skill's name and description, activates it, and receives its
// instructions.
func ExampleWithSkills() {
	dir, cleanup := scratch()
	defer cleanup()
	skills := fstest.MapFS{
		"haiku/SKILL.md": {Data: []byte("---\nname: haiku\ndescription: Answers in haiku.\n---\nAnswer in three lines of 5, 7 and 5 syllables.\n")},
	}
	model := fake.Script(
		fake.Call("activate_skill", map[string]any{"name": "haiku"}),
		fake.Text("Gophers run so fast\nchannels hum beneath the code\nthe build is now green"),
	)
	a, err := castor.New(context.Background(),
		castor.WithClient(model), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithSkills(castor.SkillFS(skills)),
	)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "How is the build?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// The skill's instructions went back to the model with the call.
	for _, c := range a.Session().History() {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				out, _ := fr.Response["output"].(string)
				fmt.Println(strings.Contains(out, "Answer in three lines"))
			}
		}
	}
	// Output:
	// Gophers run so fast
	// channels hum beneath the code
	// the build is now green
	// true
}
