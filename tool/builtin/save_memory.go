package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// memorySectionHeader heads the part of GEMINI.md that save_memory owns.
const memorySectionHeader = "## Gemini Added Memories"

// saveMemoryMu serialises read-modify-write cycles on memory files, so two
// facts saved by parallel calls both survive.
var saveMemoryMu sync.Mutex

// SaveMemoryTool is save_memory: it appends a fact to the global GEMINI.md
// (Env.MemoryFile), which is loaded into every later session.
type SaveMemoryTool struct{ env *Env }

var _ tool.Tool = (*SaveMemoryTool)(nil)

// NewSaveMemory returns the save_memory tool.
func NewSaveMemory(env *Env) tool.Tool { return &SaveMemoryTool{env: env} }

// Name is "save_memory".
func (t *SaveMemoryTool) Name() string { return "save_memory" }

// DisplayName is "SaveMemory".
func (t *SaveMemoryTool) DisplayName() string { return "SaveMemory" }

// Kind is other. Gemini CLI says think but asks before every save through
// a rule naming the tool; here approval follows the kind, and a think tool
// would run unasked, even in plan mode, letting a prompt injection persist
// itself into every future session. Other asks in default mode and is
// refused in plan mode and headless runs, which is Gemini CLI's outcome.
func (t *SaveMemoryTool) Kind() tool.Kind { return tool.KindOther }

// Description is Gemini CLI's description of the global-only save_memory
// (Castor has one memory file, so the later project scope is not offered).
func (t *SaveMemoryTool) Description() string {
	return `
Saves concise global user context (preferences, facts) for use across ALL workspaces.

### CRITICAL: GLOBAL CONTEXT ONLY
NEVER save workspace-specific context, local paths, or commands (e.g. "The entry point is src/index.js", "The test command is npm test"). These are local to the current workspace and must NOT be saved globally. EXCLUSIVELY for context relevant across ALL workspaces.

- Use for "Remember X" or clear personal facts.
- Do NOT use for session context.`
}

// Schema is Gemini CLI's.
func (t *SaveMemoryTool) Schema() map[string]any {
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties": map[string]any{
			"fact": map[string]any{
				"type":        "string",
				"description": "The specific fact or piece of information to remember. Should be a clear, self-contained statement.",
			},
		},
		"required": []any{"fact"},
	}
}

// Build rejects a blank fact.
func (t *SaveMemoryTool) Build(args map[string]any) (tool.Call, error) {
	fact, _ := args["fact"].(string)
	if strings.TrimSpace(fact) == "" {
		return nil, &tool.Error{Type: tool.ErrInvalidParams, Message: `Parameter "fact" must be a non-empty string.`}
	}
	return &saveMemoryCall{env: t.env, fact: fact}, nil
}

type saveMemoryCall struct {
	env  *Env
	fact string

	mu          sync.Mutex
	userContent *string
}

var (
	_ tool.Call       = (*saveMemoryCall)(nil)
	_ tool.Modifiable = (*saveMemoryCall)(nil)
)

func (c *saveMemoryCall) path() string {
	if c.env == nil {
		return ""
	}
	return c.env.MemoryFile
}

// Describe names the memory file.
func (c *saveMemoryCall) Describe() string {
	return "in " + memoryTildePath(c.path())
}

// ApplyUserContent makes Execute write the user's version of the whole
// file instead of the proposal.
func (c *saveMemoryCall) ApplyUserContent(newContent string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.userContent = &newContent
}

// Confirmation shows the change to the memory file as an edit.
func (c *saveMemoryCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	p := c.path()
	if p == "" {
		return nil, nil
	}
	current, err := memoryRead(p)
	if err != nil {
		return nil, nil
	}
	proposed := memoryAppendFact(current, c.fact)
	return &tool.ConfirmationDetails{
		Type:  tool.ConfirmEdit,
		Title: "Confirm Memory Save: " + memoryTildePath(p),
		// Gemini CLI names the memory file by its full path here, unlike
		// edits, since the file lives outside the workspace.
		FileName:        p,
		FilePath:        p,
		FileDiff:        tool.UnifiedDiff(filepath.Base(p), current, proposed),
		OriginalContent: &current,
		NewContent:      proposed,
	}, nil
}

// Execute appends the fact (or writes the user's version) atomically and
// answers with Gemini CLI's JSON text.
func (c *saveMemoryCall) Execute(context.Context, func(string)) *tool.Result {
	c.mu.Lock()
	user := c.userContent
	c.mu.Unlock()
	msg, err := c.write(user)
	if err != nil {
		detail := nodeErrorMessage(err)
		return &tool.Result{
			LLMText: memoryJSON(memoryResult{Error: "Failed to save memory. Detail: " + detail}),
			Display: "Error saving memory: " + detail,
			Error:   &tool.Error{Type: tool.ErrMemoryToolExecutionError, Message: detail},
		}
	}
	if c.env != nil && c.env.MemoryChanged != nil {
		c.env.MemoryChanged()
	}
	return &tool.Result{
		LLMText: memoryJSON(memoryResult{Success: true, Message: msg}),
		Display: msg,
	}
}

// write updates the memory file and returns the success message.
func (c *saveMemoryCall) write(user *string) (string, error) {
	p := c.path()
	if p == "" {
		return "", errors.New("no memory file is configured")
	}
	saveMemoryMu.Lock()
	defer saveMemoryMu.Unlock()
	if user != nil {
		if err := writeFileAtomic(p, []byte(*user)); err != nil {
			return "", err
		}
		return "Okay, I've updated the memory file with your modifications.", nil
	}
	// Recomputed from the file as it is now rather than reusing the
	// proposal shown for confirmation, so that a fact saved in between is
	// not lost; the approved change, one appended line, is the same.
	current, err := memoryRead(p)
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(p, []byte(memoryAppendFact(current, c.fact))); err != nil {
		return "", err
	}
	return `Okay, I've remembered that: "` + memorySanitizeFact(c.fact) + `"`, nil
}

// memoryRead returns the memory file's content; a missing file is empty.
func memoryRead(p string) (string, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

// memoryLeadingDashes matches list markers a model may have put in front
// of the fact.
var memoryLeadingDashes = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(-+\s*)+`) }}

// memorySanitizeFact makes the fact one list item that cannot break out of
// the memory section or the context tags GEMINI.md is later wrapped in: one
// line, no leading dashes, no angle brackets.
func memorySanitizeFact(fact string) string {
	s := strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(fact))
	s = strings.TrimSpace(memoryLeadingDashes.Get().ReplaceAllString(s, ""))
	return strings.NewReplacer("<", " ", ">", " ").Replace(s)
}

// memoryAppendFact returns content with "- <fact>" added at the end of the
// "## Gemini Added Memories" section, creating the section at the end of
// the file when it is missing. Everything outside the section is kept.
func memoryAppendFact(content, fact string) string {
	item := "- " + memorySanitizeFact(fact)
	at := strings.Index(content, memorySectionHeader)
	if at < 0 {
		return content + memorySeparator(content) + memorySectionHeader + "\n" + item + "\n"
	}
	start := at + len(memorySectionHeader)
	end := len(content)
	if i := strings.Index(content[start:], "\n## "); i >= 0 {
		end = start + i
	}
	before := strings.TrimRightFunc(content[:start], unicode.IsSpace)
	section := strings.TrimRightFunc(content[start:end], unicode.IsSpace) + "\n" + item
	after := content[end:]
	out := before + "\n" + strings.TrimLeftFunc(section, unicode.IsSpace) + "\n" + after
	return strings.TrimRightFunc(out, unicode.IsSpace) + "\n"
}

// memorySeparator is what must precede a new section so that it starts
// after a blank line.
func memorySeparator(content string) string {
	switch {
	case content == "":
		return ""
	case strings.HasSuffix(content, "\n\n"), strings.HasSuffix(content, "\r\n\r\n"):
		return ""
	case strings.HasSuffix(content, "\n"):
		return "\n"
	}
	return "\n\n"
}

// memoryResult is the JSON object save_memory answers with; the field
// order is Gemini CLI's.
type memoryResult struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// memoryJSON renders r as JavaScript's JSON.stringify does: compact, and
// without Go's HTML escaping of <, > and &.
func memoryJSON(r memoryResult) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r)
	return strings.TrimSuffix(b.String(), "\n")
}

// memoryTildePath shows p with the home directory as "~".
func memoryTildePath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	if p == home {
		return "~"
	}
	if strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}
