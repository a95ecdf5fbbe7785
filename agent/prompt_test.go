package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/golden"
)

func TestEnvContextGolden(t *testing.T) {
	got := EnvContext(EnvInfo{
		Date:    time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		OS:      "linux",
		TempDir: "/home/u/.gemini/tmp/ws",
		Dirs:    []string{"/work/ws", "/work/lib"},
		Tree:    "Showing up to 200 items (files + folders).\n\n/work/ws/\n├───README.md\n└───src/\n    └───main.go\n",
		Memory:  "--- Context from: /work/ws/GEMINI.md ---\nUse tabs.\n--- End of Context from: /work/ws/GEMINI.md ---",
	})
	golden.Check(t, "env_context.golden", got)
}

// The extensions' context goes before the project's, each in its own
// section, as Gemini CLI 0.61's getSessionMemory writes them.
func TestEnvContextExtensionGolden(t *testing.T) {
	got := EnvContext(EnvInfo{
		Date:            time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		OS:              "linux",
		TempDir:         "/home/u/.gemini/tmp/ws",
		Dirs:            []string{"/work/ws"},
		Memory:          "--- Context from: /work/ws/GEMINI.md ---\nUse tabs.\n--- End of Context from: /work/ws/GEMINI.md ---",
		ExtensionMemory: "--- Context from: /ext/kit/KIT.md ---\nSmall commits.\n--- End of Context from: /ext/kit/KIT.md ---",
	})
	golden.Check(t, "env_context_extension.golden", got)
}

func TestSystemPromptOverrideAndDump(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	base, err := SystemPrompt(PromptOptions{GeminiHome: home, Getenv: getenv, Memory: "Remember X.", ApprovalMode: "yolo"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(base, "**YOLO**") || !strings.HasSuffix(base, "\n\n---\n\nRemember X.") {
		t.Errorf("default prompt lacks the yolo note or memory:\n%s", base[len(base)-200:])
	}

	env["GEMINI_WRITE_SYSTEM_MD"] = "true"
	if _, err := SystemPrompt(PromptOptions{GeminiHome: home, Getenv: getenv}); err != nil {
		t.Fatal(err)
	}
	dumped, err := os.ReadFile(filepath.Join(home, "system.md"))
	if err != nil || !strings.HasPrefix(string(dumped), "You are an interactive CLI agent") {
		t.Fatalf("dump: %v %q", err, dumped)
	}

	custom := filepath.Join(home, "mine.md")
	os.WriteFile(custom, []byte("Custom prompt."), 0o644)
	env = map[string]string{"GEMINI_SYSTEM_MD": custom}
	got, err := SystemPrompt(PromptOptions{GeminiHome: home, Getenv: getenv, Memory: "M"})
	if err != nil || got != "Custom prompt.\n\n---\n\nM" {
		t.Errorf("override = %q, %v", got, err)
	}

	env["GEMINI_SYSTEM_MD"] = filepath.Join(home, "missing.md")
	if _, err := SystemPrompt(PromptOptions{GeminiHome: home, Getenv: getenv}); err == nil || !strings.Contains(err.Error(), "missing system prompt file") {
		t.Errorf("missing override file: %v", err)
	}
	env["GEMINI_SYSTEM_MD"] = "false"
	if got, _ := SystemPrompt(PromptOptions{GeminiHome: home, Getenv: getenv}); !strings.HasPrefix(got, "You are an interactive CLI agent") {
		t.Error("GEMINI_SYSTEM_MD=false must keep the default prompt")
	}
}
