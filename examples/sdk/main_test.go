package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickStart runs the program as its doc comment says, on a copy of
// the example workspace with the quick start's scripted model.
func TestQuickStart(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	// No language server: gopls, which reading src/main.go would start,
	// leaves a process of its own that writes its cache under HOME after
	// the session has closed, while the test removes HOME.
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"lsp": {"enabled": false}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GEMINI_MODEL"} {
		t.Setenv(k, "")
	}
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS("../workspace")); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := run(ws, script, true, "Summarize this project into NOTES.md"); err != nil {
		t.Fatal(err)
	}
	notes, err := os.ReadFile(filepath.Join(ws, "NOTES.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(notes), "Greeter") {
		t.Errorf("NOTES.md:\n%s", notes)
	}
}
