package tool

import (
	"strings"
	"testing"
)

// requiring is a tool whose schema requires the property named by
// required, which a test may change after the tool is registered.
type requiring struct {
	benchTool
	required string
}

func (r *requiring) Schema() map[string]any {
	return map[string]any{"type": "object", "required": []any{r.required}}
}

// TestPrepareValidatesTheRegisteredDeclaration: arguments are checked
// against the schema the model was declared (the one registered), not one
// the tool has changed to since, until the tool is registered again.
func TestPrepareValidatesTheRegisteredDeclaration(t *testing.T) {
	tl := &requiring{benchTool: benchTool{name: "t"}, required: "a"}
	r := NewRegistry(tl)
	check := func(when string, args map[string]any, wantMissing string) {
		t.Helper()
		_, _, err := r.Prepare("t", args, nil)
		switch {
		case wantMissing == "" && err != nil:
			t.Errorf("%s: %v refused: %s", when, args, err.Message)
		case wantMissing != "" && (err == nil || !strings.Contains(err.Message, "'"+wantMissing+"'")):
			t.Errorf("%s: %v: %v, want a missing %q", when, args, err, wantMissing)
		}
	}
	check("registered", map[string]any{"a": 1}, "")
	check("registered", map[string]any{"b": 1}, "a")
	tl.required = "b"
	check("schema changed", map[string]any{"a": 1}, "")
	check("schema changed", map[string]any{"b": 1}, "a")
	r.Register(tl)
	check("registered again", map[string]any{"b": 1}, "")
	check("registered again", map[string]any{"a": 1}, "b")
}
