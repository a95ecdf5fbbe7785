package builtin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// SmartEditTool is the smart_edit tool: replace with an instruction, a
// whitespace-flexible match when the exact text is not found, and one
// model-assisted correction of old_string before giving up.
type SmartEditTool struct{ env *Env }

var (
	_ tool.Tool          = (*SmartEditTool)(nil)
	_ tool.ArgNormalizer = (*SmartEditTool)(nil)
)

// NewSmartEdit returns the smart_edit tool.
func NewSmartEdit(env *Env) tool.Tool { return &SmartEditTool{env: env} }

// Name is "smart_edit".
func (t *SmartEditTool) Name() string { return "smart_edit" }

// DisplayName is "Edit", as Gemini CLI named its smart-edit tool.
func (t *SmartEditTool) DisplayName() string { return "Edit" }

// Kind is edit.
func (t *SmartEditTool) Kind() tool.Kind { return tool.KindEdit }

// Description states the exact-match rules and what the instruction is
// for.
func (t *SmartEditTool) Description() string {
	return editDescriptionLead + "\n\n" + editRules + " `instruction` says what the change does and why, so that a failed match can be repaired."
}

// smartEditInstructionDoc describes the instruction parameter.
const smartEditInstructionDoc = `A self-contained description of the change: why it is needed, where, what changes and the intended outcome (e.g. "In calculateTotal, raise taxRate from 0.05 to 0.075 for the new regional tax"). Not "fix the bug".`

// oldStringDoc describes old_string for both edit tools.
const oldStringDoc = "The exact literal text to replace, unescaped, with about 3 lines of context before and after so that it matches one place exactly."

// Schema is Gemini CLI's smart-edit schema: replace's with a required
// instruction.
func (t *SmartEditTool) Schema() map[string]any {
	return editSchema(oldStringDoc, map[string]any{"type": "string", "description": smartEditInstructionDoc})
}

// NormalizeArgs accepts allow_multiple and expected_replacements sent as
// strings.
func (t *SmartEditTool) NormalizeArgs(args map[string]any) map[string]any {
	return editNormalizeArgs(args)
}

// Build validates the arguments and resolves the file inside the
// workspace.
func (t *SmartEditTool) Build(args map[string]any) (tool.Call, error) {
	return editBuild(t.env, args, true)
}

// editFix is the model's corrected edit.
type editFix struct {
	Search            string `json:"search"`
	Replace           string `json:"replace"`
	Explanation       string `json:"explanation"`
	NoChangesRequired bool   `json:"noChangesRequired"`
}

// editFixTimeout bounds the correction call, as Gemini CLI bounds its
// own (40 s): a slow model must not hold up a failed edit for long.
const editFixTimeout = 40 * time.Second

// editFixSystemPrompt frames the correction request.
const editFixSystemPrompt = `You repair search-and-replace edits that failed because their search text does not occur in a file.

Given the goal of the edit, the failed search and replace texts, the error and the full current file, return a corrected search text that occurs in the file exactly as written there. Change the failed search text as little as possible: the usual causes are wrong indentation or whitespace, different line endings, or slightly different surrounding lines. Do not invent a different edit from the instruction.

Keep the replace text as it was given unless it is itself the cause of the failure; never escape characters in either text.

Say in the explanation why the original search failed and what the correction changes.

If the file already contains the requested change, set noChangesRequired to true and explain why. Only do so when the content of the replace text is already present and fulfils the instruction.

Do not comment on whether the instruction is a good idea; only repair the edit.`

// editFixUserPrompt builds the correction request for one failed edit.
func editFixUserPrompt(instruction, oldStr, newStr, errText, content string) string {
	var b strings.Builder
	b.WriteString("# Goal of the edit\n<instruction>\n")
	b.WriteString(instruction)
	b.WriteString("\n</instruction>\n\n# Failed edit\nSearch text that was not found:\n<search>\n")
	b.WriteString(oldStr)
	b.WriteString("\n</search>\nReplacement text:\n<replace>\n")
	b.WriteString(newStr)
	b.WriteString("\n</replace>\nError:\n<error>\n")
	b.WriteString(errText)
	b.WriteString("\n</error>\n\n# Current file content\n<file_content>\n")
	b.WriteString(content)
	b.WriteString("\n</file_content>\n\n# Task\nReturn JSON with the corrected `search`, the `replace` text, an `explanation` of the failure, and `noChangesRequired`.\n")
	return b.String()
}

// editFixSchema constrains the model's answer to an editFix.
var editFixSchema = lazy.Value[map[string]any]{New: func() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"explanation":       map[string]any{"type": "string"},
			"search":            map[string]any{"type": "string"},
			"replace":           map[string]any{"type": "string"},
			"noChangesRequired": map[string]any{"type": "boolean"},
		},
		"required": []any{"search", "replace", "explanation"},
	}
}}

// correct runs the model-assisted correction after nothing matched and
// re-applies the corrected edit. Any failure of the correction itself
// reports the original error, which is about what the model asked for.
// JSON and notebook files are skipped, as Gemini CLI skips them: a
// "corrected" search in structured data too easily edits the wrong key.
func (c *editCall) correct(ctx context.Context, plan *editPlan, initial *editError) *editPlan {
	plan.err = initial
	if c.env == nil || c.env.Model == nil {
		return plan
	}
	switch strings.ToLower(filepath.Ext(c.abs)) {
	case ".json", ".ipynb", ".jsonc", ".json5":
		return plan
	}
	content := *plan.original
	fix := c.fix(ctx, content, initial.raw)
	if fix == nil {
		return plan
	}
	if fix.NoChangesRequired {
		plan.err = &editError{
			typ:     tool.ErrEditNoChangeLLMJudgement,
			raw:     "A secondary check by an LLM determined that no changes were necessary to fulfill the instruction. Explanation: " + fix.Explanation + ". Original error with the parameters given: " + initial.raw,
			display: "No changes required. The file already meets the specified conditions.",
		}
		return plan
	}
	search := normalizeLineEndings(fix.Search)
	repl := normalizeLineEndings(fix.Replace)
	m := c.match(content, search, repl)
	if c.occurrenceError(m.Occurrences, search, repl) != nil {
		return plan
	}
	plan.err = nil
	return c.accept(plan, m)
}

// fix asks the model for a corrected edit, once per distinct input.
func (c *editCall) fix(ctx context.Context, content, errText string) *editFix {
	instruction := c.p.Instruction
	if strings.TrimSpace(instruction) == "" {
		instruction = "Apply the requested edit."
	}
	key := editFixKey(content, c.p.OldString, c.p.NewString, instruction, errText)
	c.mu.Lock()
	if f, ok := c.fixes[key]; ok {
		c.mu.Unlock()
		return f
	}
	c.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, editFixTimeout)
	defer cancel()
	resp, err := c.env.Model.GenerateContent(ctx, &model.Request{
		Model: auxModelName(c.env),
		Contents: []*genai.Content{{
			Role:  genai.RoleUser,
			Parts: []*genai.Part{{Text: editFixUserPrompt(instruction, c.p.OldString, c.p.NewString, errText, content)}},
		}},
		Config: &genai.GenerateContentConfig{
			SystemInstruction:  &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: editFixSystemPrompt}}},
			ResponseMIMEType:   "application/json",
			ResponseJsonSchema: editFixSchema.Get(),
		},
	})
	if err != nil {
		return nil
	}
	f := editParseFix(auxResponseText(resp))
	if f == nil {
		return nil
	}
	c.mu.Lock()
	if c.fixes == nil {
		c.fixes = map[string]*editFix{}
	}
	c.fixes[key] = f
	c.mu.Unlock()
	return f
}

// editParseFix decodes the model's JSON answer, tolerating the ```json
// fence some models wrap it in; nil when it is not a usable object.
func editParseFix(text string) *editFix {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "```json") && strings.HasSuffix(text, "```") && len(text) >= len("```json```") {
		text = strings.TrimSpace(text[len("```json") : len(text)-len("```")])
	}
	if text == "" {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil
	}
	var f editFix
	if err := json.Unmarshal([]byte(text), &f); err != nil {
		return nil
	}
	if _, ok := raw["search"]; !ok && !f.NoChangesRequired {
		return nil
	}
	return &f
}

// editFixKey identifies a correction request by everything it depends on.
func editFixKey(parts ...string) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
