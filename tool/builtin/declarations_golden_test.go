package builtin

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// TestDeclarationsGolden holds every built-in tool's declaration, as sent
// to the model, byte for byte (testdata/declarations.golden, written from
// the map-literal schemas the table replaced), with its display name,
// kind and aliases, and the Go types of its schema's values: an SDK user
// inspecting Schema() sees the same ints, []any and maps as before.
func TestDeclarationsGolden(t *testing.T) {
	env, _ := fsTestEnv(t)
	env.Plan = &Plan{Root: env.Workspace.Dirs()[0]}
	var b strings.Builder
	for _, tl := range All(env) {
		wire, err := json.Marshal(tool.Declaration(tl))
		if err != nil {
			t.Fatal(err)
		}
		var aliases []string
		if a, ok := tl.(tool.Aliased); ok {
			aliases = a.Aliases()
		}
		fmt.Fprintf(&b, "== %s display=%q kind=%s aliases=%q\n%s\n", tl.Name(), tl.DisplayName(), tl.Kind(), aliases, wire)
		typedDump(&b, "", tl.Schema())
	}
	fsGolden(t, "declarations.golden", b.String())
}

// typedDump writes v one leaf a line with its Go type, keys sorted.
func typedDump(b *strings.Builder, path string, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(b, "%s map[%d]\n", path, len(v))
		for _, k := range keys {
			typedDump(b, path+"/"+k, v[k])
		}
	case []any:
		fmt.Fprintf(b, "%s []any[%d]\n", path, len(v))
		for i, e := range v {
			typedDump(b, fmt.Sprintf("%s/%d", path, i), e)
		}
	case string:
		fmt.Fprintf(b, "%s string(%d)\n", path, len(v))
	default:
		fmt.Fprintf(b, "%s %T %v\n", path, v, v)
	}
}
