package builtin

// The call shared by replace and smart_edit: reading the file, deciding
// what the edit does, confirming it, writing it and wording the outcome.
// The two tools differ only in how hard they look for old_string and in the
// text they give when it is not found (see editCall.noMatchError).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/castor-dev/castor/tool"
)

// editParams are the arguments of replace and smart_edit, in both the
// spec's spelling (expected_replacements) and today's Gemini CLI spelling
// (instruction, allow_multiple).
type editParams struct {
	FilePath             string   `json:"file_path"`
	OldString            string   `json:"old_string"`
	NewString            string   `json:"new_string"`
	Instruction          string   `json:"instruction,omitempty"`
	ExpectedReplacements *float64 `json:"expected_replacements,omitempty"`
	AllowMultiple        *bool    `json:"allow_multiple,omitempty"`
}

// editError is a failed edit: raw is what the model sees, display what a
// UI shows.
type editError struct {
	typ     tool.ErrorType
	raw     string
	display string
}

// editPlan is what an edit would do to the file as it is now.
type editPlan struct {
	// original is the current content with LF line endings; nil when the
	// call creates the file.
	original *string
	// proposed is the content after the edit, LF line endings.
	proposed    string
	occurrences int
	isNew       bool
	// eol is the file's line ending, restored on write.
	eol      string
	strategy string
	// err is set when the edit cannot be applied; fail when the file could
	// not even be read.
	err  *editError
	fail *tool.Error
}

// editCall is one validated replace or smart_edit call.
type editCall struct {
	env   *Env
	smart bool
	p     editParams
	abs   string
	// args are the arguments as the model sent them, for Env.BeforeEdit.
	args map[string]any

	mu sync.Mutex
	// userContent is the whole file as the user edited it during
	// confirmation (tool.Modifiable).
	userContent *string
	// refused is set when Confirmation found the edit would fail and so
	// asked nobody: if the file changes so that the edit now succeeds, the
	// write must still not happen unapproved.
	refused *editError
	// fixes caches the model's corrections by input, so that confirming and
	// then executing a call asks the model once.
	fixes map[string]*editFix
}

var (
	_ tool.Call       = (*editCall)(nil)
	_ tool.Modifiable = (*editCall)(nil)
)

// argsDecode copies tool arguments into the struct v through JSON, which
// gives schema-validated maps their typed form in one step.
func argsDecode(args map[string]any, v any) error {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// editDescriptionLead opens both replace's and smart_edit's descriptions,
// as it opens Gemini CLI's edit.ts and smart-edit.ts ones.
const editDescriptionLead = "Replaces text in a file: one occurrence of `old_string`, or `expected_replacements` occurrences. Read the file with read_file first. An empty `old_string` with a missing file creates it."

// editRules are the exact-match rules both edit tools state.
const editRules = "`old_string` and `new_string` are exact literal text, whitespace, indentation and newlines included; never escape them. `old_string` must match exactly one place unless `expected_replacements` says how many: include about 3 lines of context before and after the change. Otherwise the call fails. Split large changes into several small edits. The user may modify `new_string`; the response then says so."

// editSchema is the parameter schema of replace and smart_edit, which
// Gemini CLI words alike but for old_string's description. A non-nil
// instruction schema adds smart_edit's required instruction parameter.
func editSchema(oldStringDoc string, instruction map[string]any) map[string]any {
	props := map[string]any{
		"file_path": map[string]any{
			"type":        "string",
			"description": "The path to the file to modify.",
		},
		"old_string": map[string]any{
			"type":        "string",
			"description": oldStringDoc,
		},
		"new_string": map[string]any{
			"type":        "string",
			"description": "The exact literal replacement text, unescaped; the result must be correct, idiomatic code.",
		},
		"expected_replacements": map[string]any{
			"type":        "number",
			"description": "How many occurrences to replace (default 1).",
			"minimum":     1,
		},
	}
	required := []any{"file_path", "old_string", "new_string"}
	if instruction != nil {
		props["instruction"] = instruction
		required = []any{"file_path", "instruction", "old_string", "new_string"}
	}
	return map[string]any{
		"type":       "object",
		"properties": props,
		"required":   required,
	}
}

// editNormalizeArgs accepts the loose spellings models produce for the
// edit flags: booleans and numbers sent as strings.
func editNormalizeArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	if s, ok := out["allow_multiple"].(string); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			out["allow_multiple"] = true
		case "false":
			out["allow_multiple"] = false
		}
	}
	if s, ok := out["expected_replacements"].(string); ok {
		var f float64
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%g", &f); err == nil {
			out["expected_replacements"] = f
		}
	}
	return out
}

// editBuild validates args the way Gemini CLI's edit tools do and returns
// the call.
func editBuild(env *Env, args map[string]any, smart bool) (tool.Call, error) {
	var p editParams
	if err := argsDecode(args, &p); err != nil {
		return nil, &tool.Error{Type: tool.ErrInvalidParams, Message: err.Error()}
	}
	if p.FilePath == "" {
		return nil, &tool.Error{Type: tool.ErrInvalidParams, Message: "The 'file_path' parameter must be non-empty."}
	}
	abs, terr := env.resolveWritePath(p.FilePath)
	if terr != nil {
		return nil, terr
	}
	if editIntroducesOmission(p.OldString, p.NewString) {
		return nil, &tool.Error{Type: tool.ErrInvalidParams, Message: editOmissionError}
	}
	return &editCall{env: env, smart: smart, p: p, abs: abs, args: args}, nil
}

// Describe says what the edit changes, as Gemini CLI's getDescription does.
func (c *editCall) Describe() string {
	rel := c.env.relPath(c.abs)
	if c.p.OldString == "" {
		return "Create " + rel
	}
	if c.p.OldString == c.p.NewString {
		return "No file changes to " + rel
	}
	return fmt.Sprintf("%s: %s => %s", rel, editDescribeSnippet(c.p.OldString), editDescribeSnippet(c.p.NewString))
}

// editDescribeSnippet is the first line of s cut to 30 characters, with
// "..." when s is longer than that.
func editDescribeSnippet(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	r := []rune(first)
	if len(r) > 30 {
		first = string(r[:30])
	}
	if len([]rune(s)) > 30 {
		first += "..."
	}
	return first
}

// ApplyUserContent records the file content the user accepted instead of
// the proposal; Execute writes it and tells the model.
func (c *editCall) ApplyUserContent(newContent string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.userContent = &newContent
}

// Confirmation shows the diff of the edit. An edit that would fail needs no
// approval: it changes nothing, and Execute reports why.
func (c *editCall) Confirmation(ctx context.Context) (*tool.ConfirmationDetails, error) {
	plan := c.plan(ctx)
	if plan.fail != nil || plan.err != nil {
		c.mu.Lock()
		if plan.err != nil {
			c.refused = plan.err
		} else {
			c.refused = &editError{typ: plan.fail.Type, raw: plan.fail.Message, display: plan.fail.Message}
		}
		c.mu.Unlock()
		return nil, nil
	}
	c.mu.Lock()
	c.refused = nil
	c.mu.Unlock()
	name := filepath.Base(c.abs)
	old := ""
	if plan.original != nil {
		old = *plan.original
	}
	return &tool.ConfirmationDetails{
		Type:            tool.ConfirmEdit,
		Title:           "Confirm Edit: " + c.env.relPath(c.abs),
		FileName:        name,
		FilePath:        c.abs,
		FileDiff:        tool.UnifiedDiff(name, old, plan.proposed),
		OriginalContent: plan.original,
		NewContent:      plan.proposed,
	}, nil
}

// Execute recomputes the edit against the file as it is now, writes it
// atomically in the file's own line endings and reports the result.
func (c *editCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	plan := c.plan(ctx)
	if plan.fail != nil && plan.fail.Type == tool.ErrPathNotInWorkspace {
		return &tool.Result{LLMText: plan.fail.Message, Display: "Error: Path not in workspace.", Error: plan.fail}
	}
	if plan.fail != nil {
		return &tool.Result{LLMText: "Error preparing edit: " + plan.fail.Message, Display: "Error preparing edit: " + plan.fail.Message, Error: plan.fail}
	}
	if plan.err != nil {
		return editFailure(plan.err)
	}
	c.mu.Lock()
	refused, user := c.refused, c.userContent
	c.mu.Unlock()
	if refused != nil {
		return editFailure(refused)
	}
	if err := ctx.Err(); err != nil {
		return tool.Fail(tool.ErrCancelled, "The edit was cancelled before it was written.")
	}

	final, occurrences := plan.proposed, plan.occurrences
	if user != nil {
		final = normalizeLineEndings(*user)
		// The user's version replaces the whole file, which Gemini CLI
		// counts as one replacement of the old content.
		occurrences = 1
		if plan.original != nil && final == *plan.original {
			return editFailure(c.identicalError())
		}
	}
	onDisk := final
	if !plan.isNew {
		onDisk = applyLineEnding(final, plan.eol)
	}
	name := "replace"
	if c.smart {
		name = "smart_edit"
	}
	c.env.beforeEdit(ctx, name, c.args, c.abs)
	var before *string
	if plan.original != nil {
		b := applyLineEnding(*plan.original, plan.eol)
		before = &b
	}
	c.env.diagnoseBefore(ctx, c.abs, before)
	if err := c.env.writeFileSafe(c.abs, []byte(onDisk)); err != nil {
		return c.env.writeFailure(c.abs, err)
	}

	old := ""
	if plan.original != nil {
		old = *plan.original
	}
	var parts []string
	if plan.isNew {
		parts = append(parts, fmt.Sprintf("Created new file: %s with provided content.", c.abs))
	} else {
		parts = append(parts, fmt.Sprintf("Successfully modified file: %s (%d replacements).", c.abs, occurrences))
	}
	// Both texts are LF so that a CRLF file does not show up as changed on
	// every line, as it would if the written bytes were compared.
	parts = append(parts, "Here is the updated code:\n"+editSnippet(old, final, 5))
	if user != nil {
		parts = append(parts, fmt.Sprintf("User modified the `new_string` content to be: %s.", *user))
	}
	diff := tool.NewFileDiff(c.abs, plan.original, plan.proposed, final)
	display := "Created " + c.env.relPath(c.abs)
	if !plan.isNew {
		display = fmt.Sprintf("%d added, %d removed", diff.DiffStat.ModelAddedLines, diff.DiffStat.ModelRemovedLines)
	}
	return c.env.diagnoseAfter(ctx, c.abs, onDisk, &tool.Result{LLMText: strings.Join(parts, " "), Display: display, Diff: diff})
}

// editFailure turns an editError into the failed result.
func editFailure(e *editError) *tool.Result {
	return &tool.Result{
		LLMText: e.raw,
		Display: "Error: " + e.display,
		Error:   &tool.Error{Type: e.typ, Message: e.raw},
	}
}

// plan reads the file and works out the edit, following Gemini CLI's order
// of checks: create, missing file, create-over-existing, then matching and
// the occurrence checks.
func (c *editCall) plan(ctx context.Context) *editPlan {
	raw, err := c.env.readFileSafe(c.abs)
	exists := err == nil
	if errors.Is(err, errOutsideWorkspace) {
		return &editPlan{fail: c.env.pathNotInWorkspaceError(c.abs)}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &editPlan{fail: &tool.Error{Type: tool.ErrEditPreparationFailure, Message: nodeErrorMessage(err)}}
	}
	if !exists {
		if c.p.OldString == "" {
			return &editPlan{proposed: c.p.NewString, occurrences: 1, isNew: true, eol: "\n"}
		}
		return &editPlan{err: &editError{
			typ:     tool.ErrFileNotFound,
			raw:     "File not found: " + c.abs,
			display: "File not found. Cannot apply edit. Use an empty old_string to create a new file.",
		}}
	}
	text := string(raw)
	eol := detectLineEnding(text)
	content := normalizeLineEndings(text)
	plan := &editPlan{original: &content, proposed: content, eol: eol}
	if c.p.OldString == "" {
		plan.err = &editError{
			typ:     tool.ErrAttemptToCreateExistingFile,
			raw:     "File already exists, cannot create: " + c.abs,
			display: "Failed to edit. Attempted to create a file that already exists.",
		}
		return plan
	}

	oldStr := normalizeLineEndings(c.p.OldString)
	newStr := normalizeLineEndings(c.p.NewString)
	m := c.match(content, oldStr, newStr)
	if e := c.occurrenceError(m.Occurrences, oldStr, newStr); e != nil {
		// Only a miss goes to the model (Gemini CLI sends every failure):
		// a wrong count or identical strings state what the model meant,
		// and a "corrected" search could only second-guess it.
		if m.Occurrences == 0 && c.smart {
			return c.correct(ctx, plan, e)
		}
		plan.err = e
		return plan
	}
	return c.accept(plan, m)
}

// accept fills plan from a successful match.
func (c *editCall) accept(plan *editPlan, m editMatch) *editPlan {
	if m.Content == *plan.original {
		plan.err = &editError{
			typ:     tool.ErrEditNoChange,
			raw:     "No changes to apply. The new content is identical to the current content in file: " + c.abs,
			display: "No changes to apply. The new content is identical to the current content.",
		}
		return plan
	}
	plan.proposed = m.Content
	plan.occurrences = m.Occurrences
	plan.strategy = m.Strategy
	return plan
}

// match finds oldStr: replace counts exact occurrences only; smart_edit
// falls back to the whitespace-flexible line match.
func (c *editCall) match(content, oldStr, newStr string) editMatch {
	m := editExactMatch(content, oldStr, newStr)
	if m.Occurrences == 0 && c.smart {
		m = editFlexibleMatch(content, oldStr, newStr)
	}
	return m
}

// allowMultiple reports whether any positive number of occurrences is
// wanted (today's allow_multiple: true).
func (c *editCall) allowMultiple() bool {
	return c.p.AllowMultiple != nil && *c.p.AllowMultiple
}

// occurrenceError checks a match count against what the call asked for.
// Calls in today's form (allow_multiple given, or an instruction on
// replace) get today's texts, which point at allow_multiple; calls in the
// spec's form get the expected_replacements texts, so the model is told
// about the parameter it can see.
func (c *editCall) occurrenceError(n int, finalOld, finalNew string) *editError {
	switch {
	case n == 0:
		return c.noMatchError()
	case c.allowMultiple():
	case c.p.ExpectedReplacements != nil || !c.todayForm():
		want := 1.0
		if c.p.ExpectedReplacements != nil {
			want = *c.p.ExpectedReplacements
		}
		if float64(n) != want {
			term := "occurrences"
			if want == 1 {
				term = "occurrence"
			}
			w := fmt.Sprint(want)
			return &editError{
				typ:     tool.ErrEditExpectedOccurrenceMismatch,
				raw:     fmt.Sprintf("Failed to edit, Expected %s %s but found %d for old_string in file: %s", w, term, n, c.p.FilePath),
				display: fmt.Sprintf("Failed to edit, expected %s %s but found %d.", w, term, n),
			}
		}
	case n != 1:
		return &editError{
			typ:     tool.ErrEditExpectedOccurrenceMismatch,
			raw:     fmt.Sprintf("Failed to edit, Expected 1 occurrence but found %d for old_string in file: %s. If you intended to replace multiple occurrences, set 'allow_multiple' to true.", n, c.p.FilePath),
			display: fmt.Sprintf("Failed to edit, expected 1 occurrence but found %d.", n),
		}
	}
	if finalOld == finalNew {
		return c.identicalError()
	}
	return nil
}

// todayForm reports whether the call uses today's Gemini CLI parameters.
func (c *editCall) todayForm() bool {
	return c.p.AllowMultiple != nil || (!c.smart && c.p.Instruction != "")
}

// identicalError is EDIT_NO_CHANGE for old_string == new_string.
func (c *editCall) identicalError() *editError {
	return &editError{
		typ:     tool.ErrEditNoChange,
		raw:     "No changes to apply. The old_string and new_string are identical in file: " + c.p.FilePath,
		display: "No changes to apply. The old_string and new_string are identical.",
	}
}

// noMatchError is EDIT_NO_OCCURRENCE_FOUND. Gemini CLI has worded it three
// ways: edit.ts (and the spec) "Failed to edit, 0 occurrences found…",
// which replace gives, as the spec and §2.3 of our reference fix it; and
// the released 0.61 "Could not find an exact match for 'old_string'…",
// observed from today's replace, which is the smart-edit tool renamed —
// so smart_edit, the tool that still carries that lineage, gives it.
func (c *editCall) noMatchError() *editError {
	if c.smart {
		return &editError{
			typ:     tool.ErrEditNoOccurrenceFound,
			raw:     fmt.Sprintf("Could not find an exact match for 'old_string' in '%s'. If previous edits modified the file or you are modifying lines outside your recent read window, please use ReadFile to inspect the target lines before retrying with an exact 'old_string'.", c.env.relPath(c.abs)),
			display: "Failed to edit, could not find the string to replace.",
		}
	}
	return &editError{
		typ:     tool.ErrEditNoOccurrenceFound,
		raw:     fmt.Sprintf("Failed to edit, 0 occurrences found for old_string in %s. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.", c.p.FilePath),
		display: "Failed to edit, could not find the string to replace.",
	}
}
