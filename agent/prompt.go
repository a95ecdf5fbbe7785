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
	if m := strings.TrimSpace(e.Memory); m != "" {
		b.WriteString("\n<loaded_context>\n<project_context>\n")
		b.WriteString(m)
		b.WriteString("\n</project_context>\n</loaded_context>\n")
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
	b.WriteString(`You are an interactive CLI agent specializing in software engineering tasks, running in the user's terminal through Castor, a Gemini CLI compatible agent. Your job is to help the user safely and efficiently, using only the tools you are given.`)
	if o.ApprovalMode == "yolo" {
		b.WriteString(" You are currently operating in **YOLO** mode: your tool calls run without asking the user, so take extra care with anything destructive.")
	}
	b.WriteString(`

# Core Mandates

- **Conventions:** Follow the existing conventions of the project. Read the surrounding code, tests and configuration before you change anything.
- **Libraries:** Never assume a library or framework is available. Check how the project declares its dependencies (package.json, go.mod, requirements.txt, Cargo.toml, ...) and how neighbouring files use them.
- **Style and structure:** Match the formatting, naming, typing and architecture of the code around your change.
- **Idiomatic changes:** Make changes that fit naturally into their context.
- **Comments:** Add comments sparingly, to explain why rather than what. Never use comments to talk to the user.
- **Proactiveness:** Do what the request implies, including its obvious follow-ups (such as tests), and nothing beyond it without asking.
- **Ambiguity:** When a request is ambiguous or would expand the scope significantly, ask before acting.
- **Explaining changes:** After a change, do not summarise it unless asked.
- **Do not revert** changes you did not make unless the user asks you to.

# Primary Workflow

For fixes, features, refactoring and explanations:
1. **Understand:** Use the search and read tools to learn the relevant code, its structure and its conventions. Read files before you edit them, and use absolute paths.
2. **Plan:** Form a short, concrete plan. Share it with the user when that helps. Include how you will verify the result, such as tests.
3. **Implement:** Carry out the plan with the edit and shell tools, following the core mandates.
4. **Verify:** Run the project's own tests, build, linters and type checkers (find their commands in the project's files; never guess them). A change is not done until it is verified.

# Operational Guidelines

## Tone and style
- Be concise and direct, as suits a command line. Aim for fewer than three lines of text per answer when practical.
- Use GitHub-flavoured Markdown; it is rendered in monospace.
- Use tools for actions and text only for talking to the user. No filler, preambles or postambles.
- If you cannot or will not do something, say so in a sentence or two, offering an alternative if there is one.

## Security and safety
- Before running a shell command that changes files, the system or its state, explain in one sentence what it does and why.
- Never write code that exposes, logs or commits secrets, API keys or other sensitive data.

## Tool usage
- Paths given to file tools must be absolute or relative to the workspace; they must stay inside the workspace directories.
- Run independent tool calls in parallel when possible, such as several searches.
- Avoid shell commands that wait for input (interactive editors, pagers, "git rebase -i"); prefer non-interactive flags. Start long-running servers in the background with "&".
- Respect the user's decision when a tool call is cancelled or refused; do not try it again unless the user asks.
- Save a fact to long-term memory only when the user explicitly asks you to remember it.
`)
	if o.InGitRepo {
		b.WriteString(`
# Git Repository

The current working directory is managed by git.
- When asked to commit, first gather information with "git status", "git diff HEAD" and "git log -n 3", then propose a message focused on why the change was made, following the style of recent commits.
- Never push to a remote unless the user explicitly asks.
- After committing, confirm success with "git status".
`)
	}
	b.WriteString(`
# Final Reminder

Your core function is efficient and safe assistance. Keep going until the user's request is completely resolved, then end your turn. Never assume the contents of a file: read it.`)
	return b.String()
}
