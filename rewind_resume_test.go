package castor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// TestRewindAfterResume: a resumed agent lists the prompts sent before the
// resume, and rewinding to one rebuilds the conversation from the
// session's file.
func TestRewindAfterResume(t *testing.T) {
	dir := t.TempDir()
	opts := func(answers ...string) []castor.Option {
		var script []fake.Entry
		for _, a := range answers {
			script = append(script, fake.Text(a))
		}
		return []castor.Option{castor.WithClient(fake.Script(script...)), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir)}
	}
	ctx := context.Background()
	first, err := castor.New(ctx, opts("Paris.", "Berlin.")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Capital of France?", "Capital of Germany?"} {
		if _, err := first.Send(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	id := first.Session().ID()
	first.Close()

	a, err := castor.New(ctx, append(opts("Rome."), castor.WithResume(id))...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	prompts := a.Prompts()
	if len(prompts) != 2 || prompts[0].Text != "Capital of France?" || prompts[1].Text != "Capital of Germany?" {
		t.Fatalf("prompts after the resume = %+v", prompts)
	}
	back, err := a.Rewind(ctx, prompts[1].ID)
	if err != nil || back.Text != "Capital of Germany?" {
		t.Fatalf("Rewind = %+v, %v", back, err)
	}
	h, _ := json.Marshal(a.Session().History())
	if !strings.Contains(string(h), "Capital of France?") || !strings.Contains(string(h), "Paris.") || strings.Contains(string(h), "Germany") {
		t.Errorf("history after the rewind: %s", h)
	}
	if got := a.Prompts(); len(got) != 1 {
		t.Errorf("prompts after the rewind = %+v", got)
	}
}
