package a2a_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMessageTextExpanded: a message's text goes through the task agent's
// ExpandPrompt (a2a.TaskSession.ExpandPrompt, which a2asession.Factory
// sets): a custom command of the workspace expands, and @path
// includes the file.
func TestMessageTextExpanded(t *testing.T) {
	h := newHarness(t)
	cmds := filepath.Join(h.ws, ".gemini", "commands")
	if err := os.MkdirAll(cmds, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cmds, "greet.toml"), []byte(`prompt = "Say hello to {{args}}."`), 0o644)
	os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte("the notes"), 0o644)

	h.fake.Enqueue(fakegemini.Text("hi"))
	evs := h.stream(userMessage("/greet the team", geminiSettings(h.ws), ""))
	last := h.fake.LastRequest().LastContent()
	if last == nil || !strings.Contains(last.Parts[len(last.Parts)-1].Text, "Say hello to the team.") {
		t.Fatalf("model got %+v", last)
	}

	h.fake.Enqueue(fakegemini.Text("read"))
	h.stream(userMessage("summarize @notes.txt", nil, taskID(evs)))
	var all strings.Builder
	for _, p := range h.fake.LastRequest().LastContent().Parts {
		all.WriteString(p.Text)
	}
	if !strings.Contains(all.String(), "Content from @notes.txt:\nthe notes") {
		t.Errorf("model got %q", all.String())
	}
}
