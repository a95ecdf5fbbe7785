package tool

import (
	"strings"
	"testing"
)

// benchTool stands for a built-in tool in the validation benchmarks: its
// schema is a copy of the real one and Build does nothing, so Prepare
// measures lookup and argument validation.
type benchTool struct {
	name   string
	schema map[string]any
}

func (b benchTool) Name() string                            { return b.name }
func (b benchTool) DisplayName() string                     { return b.name }
func (b benchTool) Description() string                     { return "" }
func (b benchTool) Kind() Kind                              { return KindEdit }
func (b benchTool) Schema() map[string]any                  { return b.schema }
func (b benchTool) Build(args map[string]any) (Call, error) { return nil, nil }

var writeFileSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"file_path": map[string]any{"type": "string", "description": "The absolute path to the file to write to."},
		"content":   map[string]any{"type": "string", "description": "The content to write to the file."},
	},
	"required": []any{"file_path", "content"},
}

var shellSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"command":     map[string]any{"type": "string", "description": "Exact bash command to execute as `bash -c <command>`"},
		"description": map[string]any{"type": "string", "description": "Brief description of the command for the user."},
		"directory":   map[string]any{"type": "string", "description": "(OPTIONAL) Directory to run the command in."},
	},
	"required": []any{"command"},
}

// BenchmarkPrepare measures validating a typical call through the
// registry, the path every model tool call takes.
func BenchmarkPrepare(b *testing.B) {
	reg := NewRegistry(benchTool{"write_file", writeFileSchema}, benchTool{"run_shell_command", shellSchema})
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"write_file", "write_file", map[string]any{"file_path": "/w/src/main.go", "content": strings.Repeat("package main\n", 200)}},
		{"run_shell_command", "run_shell_command", map[string]any{"command": "go test ./...", "description": "Run the tests", "directory": "src"}},
		{"invalid", "write_file", map[string]any{"file_path": 3.0}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				reg.Prepare(c.tool, c.args, nil)
			}
		})
	}
}

// BenchmarkValidateArgs measures ValidateArgs, which resolves the schema
// on every call (what the registry's cache saves).
func BenchmarkValidateArgs(b *testing.B) {
	args := map[string]any{"command": "go test ./...", "description": "Run the tests", "directory": "src"}
	b.ReportAllocs()
	for b.Loop() {
		ValidateArgs(shellSchema, args)
	}
}
