package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// EnvInfo is what the first user message tells the model about where it is.
type EnvInfo struct {
	Date    time.Time
	OS      string
	TempDir string
	Dirs    []string
	// Tree is the folder structure ("" when context.includeDirectoryTree
	// is off).
	Tree string
	// Memory is the project memory (GEMINI.md files below the global one).
	Memory string
	// ExtensionMemory is the active extensions' context files, sent
	// before the project memory in <extension_context>, as Gemini CLI
	// 0.61 sends them.
	ExtensionMemory string
}

// EnvContext formats the environment context the way Gemini CLI sends it,
// inside <session_context>.
func EnvContext(e EnvInfo) string {
	var b strings.Builder
	b.WriteString("<session_context>\n")
	b.WriteString("This is the Gemini CLI. We are setting up the context for our chat.\n")
	fmt.Fprintf(&b, "Today's date is %s (formatted according to the user's locale).\n", e.Date.Format("Monday, January 2, 2006"))
	fmt.Fprintf(&b, "My operating system is: %s\n", e.OS)
	fmt.Fprintf(&b, "The project's temporary directory is: %s\n", e.TempDir)
	b.WriteString("- **Workspace Directories:**\n")
	for _, d := range e.Dirs {
		fmt.Fprintf(&b, "  - %s\n", d)
	}
	if e.Tree != "" {
		b.WriteString("- **Directory Structure:**\n\n")
		b.WriteString(strings.TrimRight(e.Tree, "\n"))
		b.WriteString("\n\n")
	}
	var sections []string
	if m := strings.TrimSpace(e.ExtensionMemory); m != "" {
		sections = append(sections, "<extension_context>\n"+m+"\n</extension_context>")
	}
	if m := strings.TrimSpace(e.Memory); m != "" {
		sections = append(sections, "<project_context>\n"+m+"\n</project_context>")
	}
	if len(sections) > 0 {
		b.WriteString("\n<loaded_context>\n")
		b.WriteString(strings.Join(sections, "\n"))
		b.WriteString("\n</loaded_context>\n")
	}
	b.WriteString("\n</session_context>")
	return b.String()
}

// PromptOptions configure the system prompt.
type PromptOptions struct {
	// GeminiHome is ~/.gemini (or $GEMINI_CLI_HOME/.gemini).
	GeminiHome string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Memory is the global memory (~/.gemini/GEMINI.md), or instructions
	// given by an SDK user; appended after the prompt.
	Memory string
	// ApprovalMode names the approval mode ("yolo" adds a note).
	ApprovalMode string
	// InGitRepo adds the git section.
	InGitRepo bool
}

// SystemPrompt returns the system instruction: ours, or the file named by
// GEMINI_SYSTEM_MD, with memory appended. With GEMINI_WRITE_SYSTEM_MD set
// the base prompt is also written out, so users can start their own from it.
func SystemPrompt(o PromptOptions) (string, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	base := defaultSystemPrompt(o)
	if path, ok := envPath(getenv("GEMINI_SYSTEM_MD"), o.GeminiHome); ok {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("missing system prompt file '%s'", path)
		}
		base = string(data)
	}
	if path, ok := envPath(getenv("GEMINI_WRITE_SYSTEM_MD"), o.GeminiHome); ok {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
				return "", fmt.Errorf("writing system prompt to %s: %w", path, err)
			}
		}
	}
	if m := strings.TrimSpace(o.Memory); m != "" {
		return base + "\n\n---\n\n" + m, nil
	}
	return base, nil
}

// envPath interprets GEMINI_SYSTEM_MD-style values: unset/false/0 mean
// off, true/1 mean <home>/system.md, anything else is a path.
func envPath(v, geminiHome string) (string, bool) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "", "0", "false":
		return "", false
	case "1", "true":
		return filepath.Join(geminiHome, "system.md"), true
	}
	if strings.HasPrefix(v, "~/") || v == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			v = filepath.Join(home, strings.TrimPrefix(v, "~"))
		}
	}
	abs, err := filepath.Abs(v)
	if err != nil {
		return v, true
	}
	return abs, true
}

func defaultSystemPrompt(o PromptOptions) string {
	var b strings.Builder
	b.WriteString(promptIntro)
	if o.ApprovalMode == "yolo" {
		b.WriteString(promptYolo)
	}
	b.WriteString(promptBody)
	if o.InGitRepo {
		b.WriteString(promptGit)
	}
	b.WriteString(promptFinal)
	return b.String()
}
