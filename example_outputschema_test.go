package castor_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// ExampleWithOutputSchema asks for the answer as JSON matching a schema.
// The scripted model's first answer misses a required field; Castor sends
// it back with the reason and the second answer matches.
func ExampleWithOutputSchema() {
	dir, cleanup := scratch()
	defer cleanup()
	schema := `{
	  "type": "object",
	  "properties": {"city": {"type": "string"}, "sunny": {"type": "boolean"}},
	  "required": ["city", "sunny"]
	}`
	model := fake.Script(
		fake.Text(`{"city": "Paris"}`),
		fake.Text(`{"city": "Paris", "sunny": true}`),
	)
	a, err := castor.New(context.Background(),
		castor.WithClient(model), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithOutputSchema(schema),
	)
	if err != nil {
		panic(err)
	}
	defer a.Close()

	res, err := a.Send(context.Background(), "Is it sunny in Paris?")
	if err != nil {
		panic(err)
	}
	var answer struct {
		City  string `json:"city"`
		Sunny bool   `json:"sunny"`
	}
	if err := json.Unmarshal([]byte(res.Text), &answer); err != nil {
		panic(err)
	}
	fmt.Println(answer.City, answer.Sunny)
	// Output: Paris true
}
