package castor_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// An extension given in code brings hooks, skills and subagents as an
// installed extension's hooks/, skills/ and agents/ folders do.
func TestExtensionBundlesHooksSkillsSubagents(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("done"))
	ext := castor.Extension{
		Name:         "bundle",
		Instructions: "Bundle instructions.",
		Hooks:        []castor.Hook{{Event: castor.BeforeAgent, Func: hookFunc(castor.AddContext("from the extension's hook"))}},
		Skills: []castor.SkillSource{castor.SkillFS(fstest.MapFS{
			"tidy/SKILL.md": {Data: []byte("---\nname: tidy\ndescription: Tidies imports.\n---\nRun goimports.")},
		})},
		Subagents: []castor.Subagent{{Name: "reviewer", Description: "Reviews changes.", Instructions: "You review."}},
	}
	a := newAgent(t, srv, castor.WithExtensions(ext))
	if _, err := a.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	text := requestText(req)
	for _, want := range []string{"Bundle instructions.", "<hook_context>from the extension's hook</hook_context>", "tidy", "Tidies imports.", "reviewer", "Reviews changes."} {
		if !strings.Contains(text, want) && !strings.Contains(string(req.Body), want) {
			t.Errorf("request lacks %q", want)
		}
	}
}
