package builtin

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestSaveMemoryFileContent(t *testing.T) {
	tests := []struct {
		name    string
		initial *string
		facts   []string
		golden  string
	}{
		{"new file", nil, []string{"My favourite colour is blue"}, "save_memory/new_file.golden"},
		{"empty file", auxStrPtr(""), []string{"A"}, "save_memory/empty_file.golden"},
		{"existing content without section", auxStrPtr("# My notes\n\nKeep answers short."), []string{"I use tabs"}, "save_memory/no_section.golden"},
		{"section followed by another section", auxStrPtr("# Notes\n\n## Gemini Added Memories\n- first\n\n## Other\nkeep me\n"), []string{"second", "third"}, "save_memory/section_then_other.golden"},
		{"section at the end", auxStrPtr("intro\n\n## Gemini Added Memories\n- first\n\n\n"), []string{"second"}, "save_memory/section_at_end.golden"},
		{"sanitised fact", nil, []string{"  - - multi\nline <b>fact</b> & more  "}, "save_memory/sanitised.golden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mem := filepath.Join(dir, ".gemini", "GEMINI.md")
			if tc.initial != nil {
				fsWrite(t, dir, ".gemini/GEMINI.md", *tc.initial)
			}
			env := &Env{MemoryFile: mem}
			for _, f := range tc.facts {
				r := fsRun(t, NewSaveMemory(env), map[string]any{"fact": f})
				if r.Error != nil {
					t.Fatalf("error %v", r.Error)
				}
			}
			fsGolden(t, tc.golden, fsRead(t, mem))
			entries, _ := os.ReadDir(filepath.Dir(mem))
			if len(entries) != 1 {
				t.Errorf("memory directory holds %d entries, want only GEMINI.md", len(entries))
			}
		})
	}
}

func TestSaveMemoryResult(t *testing.T) {
	dir := t.TempDir()
	env := &Env{MemoryFile: filepath.Join(dir, "GEMINI.md")}
	r := fsRun(t, NewSaveMemory(env), map[string]any{"fact": `My favorite color is "blue" & <green>`})
	want := `{"success":true,"message":"Okay, I've remembered that: \"My favorite color is \"blue\" &  green \""}`
	if r.Error != nil || r.LLMText != want {
		t.Errorf("LLMText = %s\nwant      %s", r.LLMText, want)
	}
	if r.Display != `Okay, I've remembered that: "My favorite color is "blue" &  green "` {
		t.Errorf("Display = %q", r.Display)
	}

	// A directory where the file should be makes the write fail.
	env = &Env{MemoryFile: dir}
	r = fsRun(t, NewSaveMemory(env), map[string]any{"fact": "x"})
	if r.Error == nil || r.Error.Type != tool.ErrMemoryToolExecutionError {
		t.Fatalf("result = %+v", r)
	}
	if r.LLMText != `{"success":false,"error":"Failed to save memory. Detail: `+r.Error.Message+`"}` {
		t.Errorf("LLMText = %s", r.LLMText)
	}

	if _, err := fsPrepare(NewSaveMemory(env), "", map[string]any{"fact": "  "}); err == nil || err.Message != `Parameter "fact" must be a non-empty string.` {
		t.Errorf("blank fact: %v", err)
	}
}

func TestSaveMemoryConfirmationAndModification(t *testing.T) {
	dir := t.TempDir()
	mem := fsWrite(t, dir, "GEMINI.md", "# Notes\n")
	env := &Env{MemoryFile: mem}
	c, err := fsPrepare(NewSaveMemory(env), "", map[string]any{"fact": "likes Go"})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Confirmation(context.Background())
	if d == nil || d.Type != tool.ConfirmEdit || d.FilePath != mem || d.FileName != mem {
		t.Fatalf("details = %+v", d)
	}
	if *d.OriginalContent != "# Notes\n" || d.NewContent != "# Notes\n\n## Gemini Added Memories\n- likes Go\n" {
		t.Errorf("contents %q -> %q", *d.OriginalContent, d.NewContent)
	}
	c.(tool.Modifiable).ApplyUserContent("# Notes\n\n## Gemini Added Memories\n- likes Go a lot\n")
	r := c.Execute(context.Background(), nil)
	if r.LLMText != `{"success":true,"message":"Okay, I've updated the memory file with your modifications."}` {
		t.Errorf("LLMText = %s", r.LLMText)
	}
	if got := fsRead(t, mem); got != "# Notes\n\n## Gemini Added Memories\n- likes Go a lot\n" {
		t.Errorf("file = %q", got)
	}
	if NewSaveMemory(env).Kind().ReadOnly() {
		t.Error("save_memory must not run without approval")
	}
	if c.Describe() != "in "+mem && c.Describe()[:4] != "in ~" {
		t.Errorf("Describe = %q", c.Describe())
	}
}

func auxStrPtr(s string) *string { return &s }
