package telemetry

import (
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

func TestFileOperation(t *testing.T) {
	t.Parallel()
	old := "a\n"
	tests := []struct {
		name  string
		call  agent.ToolCall
		op    string
		lines int
	}{
		{"read", agent.ToolCall{Name: "read_file", Status: agent.StatusSuccess, Args: map[string]any{"absolute_path": "/w/a.go"},
			Result: &tool.Result{LLMText: "package a\n\nfunc A() {}"}}, fileRead, 3},
		{"read, today's file_path", agent.ToolCall{Name: "read_file", Status: agent.StatusSuccess, Args: map[string]any{"file_path": "/w/a.go"},
			Result: &tool.Result{LLMText: "x"}}, fileRead, 1},
		{"create", agent.ToolCall{Name: "write_file", Status: agent.StatusSuccess,
			Result: &tool.Result{Diff: &tool.FileDiff{FilePath: "/w/n.txt", NewContent: "1\n2\n"}}}, fileCreate, 3},
		{"update", agent.ToolCall{Name: "write_file", Status: agent.StatusSuccess,
			Result: &tool.Result{Diff: &tool.FileDiff{FilePath: "/w/n.txt", OriginalContent: &old, NewContent: "b"}}}, fileUpdate, 1},
		{"a failed read", agent.ToolCall{Name: "read_file", Status: agent.StatusError, Args: map[string]any{"absolute_path": "/w/a.go"},
			Result: &tool.Result{LLMText: "x"}}, "", 0},
		{"an image read", agent.ToolCall{Name: "read_file", Status: agent.StatusSuccess, Args: map[string]any{"absolute_path": "/w/a.png"},
			Result: &tool.Result{}}, "", 0},
		{"another tool", agent.ToolCall{Name: "replace", Status: agent.StatusSuccess, Result: &tool.Result{Diff: &tool.FileDiff{}}}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			op, path, lines, ok := fileOperation(&tc.call)
			if ok != (tc.op != "") || op != tc.op || lines != tc.lines || (ok && path == "") {
				t.Errorf("fileOperation = %q %q %d %v, want %q, %d lines", op, path, lines, ok, tc.op, tc.lines)
			}
		})
	}
}
