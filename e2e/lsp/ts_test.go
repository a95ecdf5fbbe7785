package lsp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTypeScript: a type error after write_file, then definition,
// references and rename across two modules, with
// typescript-language-server.
func TestTypeScript(t *testing.T) {
	t.Parallel()
	bin := tsls(t)
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.WS, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2022","module":"es2022","moduleResolution":"bundler"}}`,
		"a.ts":          "export function greet(): string {\n  return \"hi\";\n}\n",
		"b.ts":          "import { greet } from \"./a\";\n\nexport const twice = greet() + greet();\n",
	})
	tsdk := filepath.Join(filepath.Dir(filepath.Dir(bin)), "typescript", "lib")
	e2etest.WriteSettings(t, e, settings(map[string]any{"typescript": map[string]any{
		"command": bin, "args": []any{"--stdio"},
		"initializationOptions": map[string]any{"tsserver": map[string]any{"path": tsdk}},
	}}))
	run(t, e,
		fakegemini.Call("write_file", map[string]any{"file_path": filepath.Join(e.WS, "c.ts"), "content": "export const n: number = \"x\";\n"}),
		fakegemini.Call("lsp_definition", map[string]any{"file_path": "b.ts", "line": 3, "symbol": "greet"}),
		fakegemini.Call("lsp_references", map[string]any{"file_path": "a.ts", "line": 1, "symbol": "greet"}),
		fakegemini.Call("lsp_rename", map[string]any{"file_path": "a.ts", "line": 1, "symbol": "greet", "new_name": "hello"}),
	)
	expectOutputs(t, e, []check{
		{"diagnostics", "c.ts:1:14: error: Type 'string' is not assignable to type 'number'. (typescript)"},
		{"definition", "a.ts:1:17: export function greet(): string {"},
		{"references", "b.ts:3:"},
		{"rename", "Renamed greet to hello in 2 file(s): a.ts, b.ts."},
	})
	if refs := output(t, e, 3); strings.Count(refs, "\n")+1 != 4 {
		t.Errorf("references: want 4 (declaration, import, two calls):\n%s", refs)
	}
	expectFiles(t, e, map[string]string{"a.ts": "export function hello()", "b.ts": "hello() + hello()"})
}
