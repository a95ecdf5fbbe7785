package castor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
)

func TestWithOutputSchemaErrors(t *testing.T) {
	dir := t.TempDir()
	base := []castor.Option{castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir)}

	_, err := castor.New(context.Background(), append(base, castor.WithClient(fake.Script()), castor.WithOutputSchema(`{"type": `))...)
	var ce *castor.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "WithOutputSchema") {
		t.Fatalf("a broken schema: %v", err)
	}

	a, err := castor.New(context.Background(), append(base,
		castor.WithClient(fake.Script(fake.Text("1"), fake.Text("2"))),
		castor.WithOutputSchema(map[string]any{"type": "string"}))...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = a.Send(context.Background(), "a string, please")
	var se *agent.OutputSchemaError
	if !errors.As(err, &se) || se.Answer != "2" {
		t.Fatalf("two misses: %v", err)
	}
}
