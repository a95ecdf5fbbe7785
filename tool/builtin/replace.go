package builtin

import (
	"github.com/castor-dev/castor/tool"
)

// ReplaceTool is the replace tool: a strict search-and-replace edit. It
// declares the spec's parameters (expected_replacements) and also accepts
// today's Gemini CLI parameters (instruction, allow_multiple), which models
// trained on the current CLI send.
type ReplaceTool struct{ env *Env }

var (
	_ tool.Tool          = (*ReplaceTool)(nil)
	_ tool.ArgNormalizer = (*ReplaceTool)(nil)
)

// NewReplace returns the replace tool.
func NewReplace(env *Env) tool.Tool { return &ReplaceTool{env: env} }

// Name is "replace".
func (t *ReplaceTool) Name() string { return "replace" }

// DisplayName is "Edit".
func (t *ReplaceTool) DisplayName() string { return "Edit" }

// Kind is edit.
func (t *ReplaceTool) Kind() tool.Kind { return tool.KindEdit }

// Description is Gemini CLI's edit.ts description for the
// expected_replacements form.
func (t *ReplaceTool) Description() string {
	return editDescriptionLead + `

      The user has the ability to modify the ` + "`new_string`" + ` content. If modified, this will be stated in the response.

Expectation for required parameters:
1. ` + "`file_path`" + ` is the path to the file to modify.
2. ` + "`old_string`" + ` MUST be the exact literal text to replace (including all whitespace, indentation, newlines, and surrounding code etc.).
3. ` + "`new_string`" + ` MUST be the exact literal text to replace ` + "`old_string`" + ` with (also including all whitespace, indentation, newlines, and surrounding code etc.). Ensure the resulting code is correct and idiomatic.
4. NEVER escape ` + "`old_string` or `new_string`" + `, that would break the exact literal text requirement.
**Important:** If ANY of the above are not satisfied, the tool will fail. CRITICAL for ` + "`old_string`" + `: Must uniquely identify the single instance to change. Include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely. If this string matches multiple locations, or does not match exactly, the tool will fail.
**Multiple replacements:** Set ` + "`expected_replacements`" + ` to the number of occurrences you want to replace. The tool will replace ALL occurrences that match ` + "`old_string`" + ` exactly. Ensure the number of replacements matches your expectation.`
}

// Schema is the spec's replace schema.
func (t *ReplaceTool) Schema() map[string]any {
	return editSchema("The exact literal text to replace, preferably unescaped. For single replacements (default), include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely. For multiple replacements, specify expected_replacements parameter. If this string is not the exact literal text (i.e. you escaped it) or does not match exactly, the tool will fail.", nil)
}

// NormalizeArgs accepts allow_multiple and expected_replacements sent as
// strings. instruction and allow_multiple themselves pass through: the
// schema does not forbid extra properties, and Build reads them.
func (t *ReplaceTool) NormalizeArgs(args map[string]any) map[string]any {
	return editNormalizeArgs(args)
}

// Build validates the arguments and resolves the file inside the
// workspace.
func (t *ReplaceTool) Build(args map[string]any) (tool.Call, error) {
	return editBuild(t.env, args, false)
}
