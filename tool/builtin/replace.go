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

// Description states the exact-match rules the model must follow.
func (t *ReplaceTool) Description() string {
	return editDescriptionLead + "\n\n" + editRules
}

// Schema is the spec's replace schema.
func (t *ReplaceTool) Schema() map[string]any {
	return editSchema(oldStringDoc, nil)
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
