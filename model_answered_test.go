package castor_test

import (
	"context"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// TestModelIsTheOneThatAnswered: an agent asked for an alias reports the
// model that answered once one has, in Model and in its stats.
func TestModelIsTheOneThatAnswered(t *testing.T) {
	answer := fake.Text("Hi.")
	for _, c := range answer.Stream {
		c.ModelVersion = "gemini-2.5-flash"
	}
	dir := t.TempDir()
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(answer)), castor.WithModel("flash"),
		castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := a.Model(); got != "flash" {
		t.Errorf("Model() before any answer = %q, want the model asked for", got)
	}
	if _, err := a.Send(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if got := a.Model(); got != "gemini-2.5-flash" {
		t.Errorf("Model() = %q, want the model that answered", got)
	}
	for name := range a.Session().Stats().Models {
		if name != "gemini-2.5-flash" {
			t.Errorf("stats name model %q", name)
		}
	}
}
