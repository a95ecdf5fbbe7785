package lsp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

const goMod = "module example.com/m\n\ngo 1.22\n"

// TestGoTypeErrorReachesTheModelAndTheFixClearsIt: an edit that breaks
// the types gets gopls's error in the next request's functionResponse;
// the edit that fixes it gets none.
func TestGoTypeErrorReachesTheModelAndTheFixClearsIt(t *testing.T) {
	t.Parallel()
	bin := gopls(t)
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.WS, map[string]string{
		"go.mod":  goMod,
		"main.go": "package main\n\nfunc main() {\n\tvar n int = 1\n\t_ = n\n}\n",
	})
	e2etest.WriteSettings(t, e, settings(map[string]any{"gopls": map[string]any{"command": bin}}))
	main := filepath.Join(e.WS, "main.go")
	r := run(t, e,
		// Reading the file starts gopls in the background.
		fakegemini.Call("read_file", map[string]any{"absolute_path": main}),
		fakegemini.Call("replace", map[string]any{"file_path": main, "old_string": "var n int = 1", "new_string": `var n int = "one"`}),
		fakegemini.Call("replace", map[string]any{"file_path": main, "old_string": `var n int = "one"`, "new_string": "var n int = 2"}),
	)
	broke := output(t, e, 2)
	if !strings.Contains(broke, "The language server (gopls) reports new problems in main.go after this edit:") ||
		!strings.Contains(broke, `main.go:4:14: error: cannot use "one" (untyped string constant) as int value in variable declaration`) {
		t.Errorf("the breaking edit's response lacks the type error:\n%s\nstderr: %s", broke, r.Stderr)
	}
	if fixed := output(t, e, 3); strings.Contains(fixed, "language server") || !strings.HasPrefix(fixed, "Successfully modified file") {
		t.Errorf("the fixing edit's response: %s", fixed)
	}
	if !hasLSPTool(e.Srv.Requests()[0]) {
		t.Errorf("no lsp_ tool declared with gopls configured: %v", declared(e.Srv.Requests()[0]))
	}
}

// TestGoDefinitionReferencesRename: the model's tools on a two-file Go
// package, the rename written to both files.
func TestGoDefinitionReferencesRename(t *testing.T) {
	t.Parallel()
	bin := gopls(t)
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.WS, map[string]string{
		"go.mod": goMod,
		"a.go":   "package m\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n",
		"b.go":   "package m\n\nfunc Use() string { return Greet() + Greet() }\n",
	})
	e2etest.WriteSettings(t, e, settings(map[string]any{"gopls": map[string]any{"command": bin}}))
	run(t, e,
		fakegemini.Call("lsp_definition", map[string]any{"file_path": "b.go", "line": 3, "symbol": "Greet"}),
		fakegemini.Call("lsp_references", map[string]any{"file_path": "a.go", "line": 4, "symbol": "Greet"}),
		fakegemini.Call("lsp_hover", map[string]any{"file_path": "b.go", "line": 3, "symbol": "Greet"}),
		fakegemini.Call("lsp_symbols", map[string]any{"file_path": "a.go"}),
		fakegemini.Call("lsp_rename", map[string]any{"file_path": "b.go", "line": 3, "symbol": "Greet", "new_name": "Hello"}),
	)
	expectOutputs(t, e, []check{
		{"definition", "a.go:4:6: func Greet() string { return \"hi\" }"},
		{"references", "a.go:4:6: func Greet()"},
		{"hover", "Greet says hello."},
		{"symbols", "a.go:4: function Greet"},
		{"rename", "Renamed Greet to Hello in 2 file(s): a.go, b.go."},
	})
	if refs := output(t, e, 2); strings.Count(refs, "b.go:3:") != 2 {
		t.Errorf("references: want two in b.go:\n%s", refs)
	}
	expectFiles(t, e, map[string]string{"a.go": "func Hello() string", "b.go": "return Hello() + Hello()"})
}
