package lsp

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestPosition(t *testing.T) {
	text := "package m\n\tx := héllo(héllo)\n"
	tests := []struct {
		name string
		args map[string]any
		want Position
		err  string
	}{
		{"first occurrence", map[string]any{"line": 2.0, "symbol": "héllo"}, Position{1, 6}, ""},
		{"column picks the second", map[string]any{"line": 2.0, "symbol": "héllo", "column": 13.0}, Position{1, 12}, ""},
		{"whole words only", map[string]any{"line": 2.0, "symbol": "ll"}, Position{}, "does not occur"},
		{"column alone", map[string]any{"line": 1.0, "column": 9.0}, Position{0, 8}, ""},
		{"line past the end", map[string]any{"line": 9.0, "symbol": "x"}, Position{}, "outside the file"},
		{"nothing to point at", map[string]any{"line": 1.0}, Position{}, "Name the symbol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := position(text, tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Message, tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestApplyEdits(t *testing.T) {
	r := func(l1, c1, l2, c2 int) Range { return Range{Position{l1, c1}, Position{l2, c2}} }
	tests := []struct {
		name, text string
		edits      []TextEdit
		want, err  string
	}{
		{"two on a line, out of order", "a := f(f)\n", []TextEdit{{r(0, 7, 0, 8), "g"}, {r(0, 5, 0, 6), "g"}}, "a := g(g)\n", ""},
		{"utf-16 offsets", "é😀x\n", []TextEdit{{r(0, 3, 0, 4), "y"}}, "é😀y\n", ""},
		{"insert at the end", "a\n", []TextEdit{{r(1, 0, 1, 0), "b\n"}}, "a\nb\n", ""},
		{"overlap", "abc", []TextEdit{{r(0, 0, 0, 2), "x"}, {r(0, 1, 0, 3), "y"}}, "", "overlap"},
		{"past the end", "a", []TextEdit{{r(5, 0, 5, 1), "x"}}, "", "past the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyEdits(tt.text, tt.edits)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseServers(t *testing.T) {
	tests := []struct {
		name string
		raw  map[string]any
		err  string
		ok   func([]ServerConfig) bool
	}{
		{"defaults", nil, "", func(s []ServerConfig) bool { return len(s) == 5 && s[0].Name == "gopls" && !s[0].Configured }},
		{"a default changed", map[string]any{"gopls": map[string]any{"command": "/opt/gopls", "env": map[string]any{"GOFLAGS": "-tags=x"}}}, "", func(s []ServerConfig) bool {
			return s[0].Command == "/opt/gopls" && s[0].Configured && s[0].Env["GOFLAGS"] == "-tags=x" && s[0].Extensions[0] == ".go"
		}},
		{"a default disabled", map[string]any{"clangd": map[string]any{"disabled": true}}, "", func(s []ServerConfig) bool { return len(s) == 4 }},
		{"a new one", map[string]any{"zls": map[string]any{"command": "zls", "extensions": []any{"zig"}}}, "", func(s []ServerConfig) bool { return s[5].Extensions[0] == ".zig" }},
		{"no command", map[string]any{"zls": map[string]any{"extensions": []any{".zig"}}}, `key "lsp.servers.zls.command"`, nil},
		{"no extensions", map[string]any{"zls": map[string]any{"command": "zls"}}, `key "lsp.servers.zls.extensions"`, nil},
		{"wrong type", map[string]any{"gopls": map[string]any{"args": "serve"}}, `key "lsp.servers.gopls.args": must be a list of strings`, nil},
		{"unknown key", map[string]any{"gopls": map[string]any{"cmd": "x"}}, `key "lsp.servers.gopls.cmd"`, nil},
		{"not an object", map[string]any{"gopls": true}, `key "lsp.servers.gopls" must be an object`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseServers(tt.raw)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !tt.ok(got) {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

// TestTools drives the model's tools through tool.Tool against the test
// server: a definition, references, a file's symbols, hover, and a
// rename written to two files.
func TestTools(t *testing.T) {
	ws := t.TempDir()
	m, _ := fakeManager(t, ws)
	files := map[string]string{"a.txt": "func greet\n", "b.txt": "call greet\ncall greet\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tools := map[string]tool.Tool{}
	written := 0
	for _, tl := range Tools(m, tool.NewWorkspace(ws), func(context.Context, string, map[string]any) { written++ }) {
		tools[tl.Name()] = tl
	}
	do := func(name string, args map[string]any) *tool.Result {
		t.Helper()
		c, err := tools[name].Build(args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return c.Execute(context.Background(), nil)
	}
	// The server knows the files it was given: a.txt first.
	do("lsp_diagnostics", map[string]any{"file_path": "a.txt"})
	checks := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"lsp_definition", map[string]any{"file_path": "b.txt", "line": 2.0, "symbol": "greet"}, "a.txt:1:6: func greet"},
		{"lsp_references", map[string]any{"file_path": "b.txt", "line": 1.0, "symbol": "greet"}, "a.txt:1:6: func greet\nb.txt:1:6: call greet\nb.txt:2:6: call greet"},
		{"lsp_symbols", map[string]any{"file_path": "a.txt"}, "a.txt:1: function greet"},
		{"lsp_symbols", map[string]any{"query": "gre"}, "a.txt:1: function greet"},
		{"lsp_hover", map[string]any{"file_path": "a.txt", "line": 1.0, "symbol": "greet"}, "```\nfunc greet()\n```\ngreet is a test word."},
		{"lsp_diagnostics", map[string]any{"file_path": "b.txt"}, "No errors or warnings."},
	}
	for _, c := range checks {
		if got := do(c.tool, c.args); got.Error != nil || got.LLMText != c.want {
			t.Errorf("%s %v: %q (%v), want %q", c.tool, c.args, got.LLMText, got.Error, c.want)
		}
	}
	c, err := tools["lsp_rename"].Build(map[string]any{"file_path": "b.txt", "line": 1.0, "symbol": "greet", "new_name": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	conf, err := c.Confirmation(context.Background())
	if err != nil || conf == nil || conf.Type != tool.ConfirmEdit || !strings.Contains(conf.FileDiff, "+func hello") || !strings.Contains(conf.FileDiff, "+call hello") {
		t.Fatalf("confirmation %+v, %v", conf, err)
	}
	for name := range files {
		if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != files[name] {
			t.Fatalf("%s written before the confirmation was answered: %q", name, b)
		}
	}
	res := c.Execute(context.Background(), nil)
	if res.Error != nil || res.LLMText != "Renamed greet to hello in 2 file(s): a.txt, b.txt." || res.Diff == nil {
		t.Fatalf("rename: %+v", res)
	}
	if written != 1 {
		t.Errorf("the hook before writing ran %d times", written)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "call hello\ncall hello\n" {
		t.Errorf("b.txt = %q", b)
	}
	if _, err := tools["lsp_definition"].Build(map[string]any{"file_path": "../x.txt", "line": 1.0, "symbol": "x"}); err == nil {
		t.Error("a path outside the workspace was accepted")
	}
}

// FuzzReadMessage: whatever a server writes, reading a message returns
// it or an error, and never more than the limit.
func FuzzReadMessage(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Type: x\r\nContent-Length: 5\r\n\r\n{\"a\":"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := readMessage(bufio.NewReader(bytes.NewReader(in)))
		if err == nil && len(b) > maxMessage {
			t.Fatalf("a %d-byte message", len(b))
		}
	})
}
