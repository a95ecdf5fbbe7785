package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestAllOrderAndDeclarations(t *testing.T) {
	env, _ := fsTestEnv(t)
	tools := All(env)
	want := []string{
		"update_topic", "list_directory", "read_file", "search_file_content", "glob", "replace", "smart_edit",
		"write_file", "web_fetch", "read_many_files", "run_shell_command", "list_background_processes",
		"read_background_output", "save_memory", "google_web_search", "ask_user", "write_todos",
	}
	var got []string
	for _, tl := range tools {
		got = append(got, tl.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("order\n%v\nwant\n%v", got, want)
	}

	reg := tool.NewRegistry(tools...)
	seen := map[string]string{}
	for _, tl := range tools {
		decl := tool.Declaration(tl)
		if decl.Description == "" || tl.DisplayName() == "" || tl.Kind() == "" {
			t.Errorf("%s: incomplete declaration", tl.Name())
		}
		schema, ok := decl.ParametersJsonSchema.(map[string]any)
		if !ok || schema["type"] != "object" {
			t.Errorf("%s: schema is not an object schema", tl.Name())
		}
		names := []string{tl.Name()}
		if a, ok := tl.(tool.Aliased); ok {
			names = append(names, a.Aliases()...)
		}
		for _, n := range names {
			if other, dup := seen[n]; dup {
				t.Errorf("name %q used by %s and %s", n, other, tl.Name())
			}
			seen[n] = tl.Name()
			if got, ok := reg.Get(n); !ok || got.Name() != tl.Name() {
				t.Errorf("registry does not resolve %q to %s", n, tl.Name())
			}
		}
	}
}

// The wire spec's parameter names, declared exactly.
func TestWireSpecSchemas(t *testing.T) {
	env, _ := fsTestEnv(t)
	tests := []struct {
		tool     tool.Tool
		props    []string
		required []string
	}{
		{NewReadFile(env), []string{"absolute_path", "limit", "offset"}, []string{"absolute_path"}},
		{NewListDirectory(env), []string{"file_filtering_options", "ignore", "path"}, []string{"path"}},
		{NewWriteFile(env), []string{"content", "file_path"}, []string{"file_path", "content"}},
		{NewShell(env), []string{"command", "delay_ms", "description", "directory", "is_background"}, []string{"command"}},
		{NewGlob(env), []string{"case_sensitive", "path", "pattern", "respect_git_ignore"}, []string{"pattern"}},
		{NewGrep(env), []string{"include", "path", "pattern"}, []string{"pattern"}},
	}
	for _, tt := range tests {
		s := tt.tool.Schema()
		props := s["properties"].(map[string]any)
		var names []string
		for k := range props {
			names = append(names, k)
		}
		slices.Sort(names)
		if strings.Join(names, ",") != strings.Join(tt.props, ",") {
			t.Errorf("%s properties %v, want %v", tt.tool.Name(), names, tt.props)
		}
		var req []string
		for _, r := range s["required"].([]any) {
			req = append(req, r.(string))
		}
		if strings.Join(req, ",") != strings.Join(tt.required, ",") {
			t.Errorf("%s required %v, want %v", tt.tool.Name(), req, tt.required)
		}
	}
}
