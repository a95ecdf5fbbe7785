package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// numberedLines returns "line 1\nline 2\n...line n" (no final newline).
func numberedLines(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	return strings.Join(lines, "\n")
}

func TestReadFileText(t *testing.T) {
	env, ws := fsTestEnv(t)
	readme := "# Demo project\n\nThis is the README of the demo project.\nIt has three lines of body text.\n"
	fsWrite(t, ws, "README.md", readme)
	fsWrite(t, ws, "crlf.txt", "a\r\nb\r\n")
	fsWrite(t, ws, "big.txt", numberedLines(2500))
	fsWrite(t, ws, "ten.txt", numberedLines(10))
	fsWrite(t, ws, "long.txt", "short\n"+strings.Repeat("y", 2100)+"\n")
	fsWrite(t, ws, "bom.txt", "\xef\xbb\xbfwith bom")
	fsWrite(t, ws, "logo.svg", `<svg xmlns="http://www.w3.org/2000/svg"/>`)

	tests := []struct {
		name    string
		args    map[string]any
		want    string // exact llmContent; "" when golden is set
		golden  string
		display string
	}{
		{name: "absolute path", args: map[string]any{"absolute_path": filepath.Join(ws, "README.md")}, want: readme},
		{name: "relative path", args: map[string]any{"absolute_path": "README.md"}, want: readme},
		{name: "file_path spelling", args: map[string]any{"file_path": "README.md"}, want: readme},
		{name: "crlf kept", args: map[string]any{"absolute_path": "crlf.txt"}, want: "a\r\nb\r\n"},
		{name: "bom stripped", args: map[string]any{"absolute_path": "bom.txt"}, want: "with bom"},
		{name: "svg as text", args: map[string]any{"absolute_path": "logo.svg"}, want: `<svg xmlns="http://www.w3.org/2000/svg"/>`, display: "Read SVG as text: logo.svg"},
		{name: "offset and limit", args: map[string]any{"absolute_path": "ten.txt", "offset": 2.0, "limit": 3.0}, golden: "read_file/offset_limit.golden", display: "Read lines 3-5 of 10 from ten.txt"},
		{name: "start_line and end_line", args: map[string]any{"file_path": "ten.txt", "start_line": 3.0, "end_line": 5.0}, golden: "read_file/start_end_line.golden", display: "Read lines 3-5 of 10 from ten.txt"},
		{name: "default window", args: map[string]any{"absolute_path": "big.txt"}, golden: "read_file/default_window.golden", display: "Read lines 1-2000 of 2500 from big.txt"},
		{name: "start_line only reads a window", args: map[string]any{"file_path": "big.txt", "start_line": 2401.0}, golden: "read_file/start_line_only.golden", display: "Read lines 2401-2500 of 2500 from big.txt"},
		{name: "long line shortened", args: map[string]any{"absolute_path": "long.txt"}, golden: "read_file/long_line.golden", display: "Read all 3 lines from long.txt (some lines were shortened)"},
		{name: "whole range is not truncated", args: map[string]any{"absolute_path": "ten.txt", "offset": 0.0, "limit": 10.0}, want: numberedLines(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fsRun(t, NewReadFile(env), tt.args)
			if r.Error != nil {
				t.Fatalf("error %s: %s", r.Error.Type, r.Error.Message)
			}
			if tt.golden != "" {
				fsGolden(t, tt.golden, r.LLMText)
			} else if r.LLMText != tt.want {
				t.Errorf("llmContent\n%q\nwant\n%q", r.LLMText, tt.want)
			}
			if r.Display != tt.display {
				t.Errorf("display %q, want %q", r.Display, tt.display)
			}
		})
	}
}

func TestReadFileErrors(t *testing.T) {
	env, ws := fsTestEnv(t)
	outside := fsTempDir(t)
	fsWrite(t, outside, "secret.txt", "secret")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	fsWrite(t, ws, "bin.dat2", "ab\x00cd")
	fsWrite(t, ws, "ignored.txt", "x")
	fsWrite(t, ws, "ten.txt", numberedLines(10))
	if err := os.Mkdir(filepath.Join(ws, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(ws, "huge.txt")
	if f, err := os.Create(huge); err == nil {
		_ = f.Truncate(maxReadFileBytes + 1) // sparse: no disk used
		f.Close()
	}
	fifo := filepath.Join(ws, "fifo")
	if haveFifo {
		if err := syscallMkfifo(fifo); err != nil {
			t.Fatal(err)
		}
	}
	fsWithFilter(env, "ignored.txt")
	notInWS := func(p string) string { return fsNotInWorkspace(env, p) }

	// Failures found while building the call.
	buildTests := []struct {
		name string
		args map[string]any
		typ  tool.ErrorType
		msg  string
	}{
		{"missing path", map[string]any{}, tool.ErrInvalidParams, "params must have required property 'absolute_path'"},
		{"empty path", map[string]any{"absolute_path": "  "}, tool.ErrInvalidParams, "The 'absolute_path' parameter must be non-empty."},
		{"empty file_path", map[string]any{"file_path": ""}, tool.ErrInvalidParams, "The 'file_path' parameter must be non-empty."},
		{"wrong type", map[string]any{"absolute_path": 3.0}, tool.ErrInvalidParams, "params/absolute_path must be string"},
		{"dot-dot", map[string]any{"absolute_path": "../secret.txt"}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(filepath.Dir(ws), "secret.txt"))},
		{"absolute outside", map[string]any{"absolute_path": filepath.Join(outside, "secret.txt")}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(outside, "secret.txt"))},
		{"symlink outside", map[string]any{"file_path": "link.txt"}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(ws, "link.txt"))},
		{"negative offset", map[string]any{"absolute_path": "ten.txt", "offset": -1.0}, tool.ErrInvalidParams, "Offset must be a non-negative number"},
		{"zero limit", map[string]any{"absolute_path": "ten.txt", "limit": 0.0}, tool.ErrInvalidParams, "Limit must be a positive number"},
		{"zero start_line", map[string]any{"file_path": "ten.txt", "start_line": 0.0}, tool.ErrInvalidParams, "start_line must be at least 1"},
		{"zero end_line", map[string]any{"file_path": "ten.txt", "end_line": 0.0}, tool.ErrInvalidParams, "end_line must be at least 1"},
		{"start after end", map[string]any{"file_path": "ten.txt", "start_line": 5.0, "end_line": 2.0}, tool.ErrInvalidParams, "start_line cannot be greater than end_line"},
		{"string start_line", map[string]any{"file_path": "ten.txt", "start_line": "3"}, tool.ErrInvalidParams, "params/start_line must be number"},
		{"ignored", map[string]any{"absolute_path": "ignored.txt"}, tool.ErrInvalidParams, "File path '" + filepath.Join(ws, "ignored.txt") + "' is ignored by configured ignore patterns."},
	}
	for _, tt := range buildTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fsPrepare(NewReadFile(env), "", tt.args)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Type != tt.typ || err.Message != tt.msg {
				t.Errorf("got %s %q\nwant %s %q", err.Type, err.Message, tt.typ, tt.msg)
			}
		})
	}

	// Failures and notices found while executing.
	execTests := []struct {
		name    string
		path    string
		typ     tool.ErrorType // "" for a success
		msg     string         // error message, or llmContent on success
		llm     string
		display string
	}{
		{"not found", "missing.txt", tool.ErrFileNotFound, "File not found: " + filepath.Join(ws, "missing.txt"),
			"Could not read file because no file was found at the specified path.", "File not found."},
		{"directory", "dir", tool.ErrTargetIsDirectory, "Path is a directory, not a file: " + filepath.Join(ws, "dir"),
			"Could not read file because the provided path is a directory, not a file.", "Path is a directory."},
		{"too large", "huge.txt", tool.ErrFileTooLarge, "File size exceeds the 20MB limit: " + huge + " (20.00MB)",
			"File size exceeds the 20MB limit.", "File size exceeds the 20MB limit."},
		{"binary", "bin.dat2", "", "", "Cannot display content of binary file: bin.dat2", "Skipped binary file: bin.dat2"},
		{"fifo", "fifo", tool.ErrReadContentFailure, "Error reading file " + fifo + ": not a regular file",
			"Error reading file fifo: not a regular file", "Error reading file fifo: not a regular file"},
	}
	for _, tt := range execTests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "fifo" && !haveFifo {
				t.Skip("no named pipes on this system")
			}
			r := fsRun(t, NewReadFile(env), map[string]any{"absolute_path": tt.path})
			switch {
			case tt.typ == "" && r.Error != nil:
				t.Fatalf("unexpected error %s: %s", r.Error.Type, r.Error.Message)
			case tt.typ != "" && r.Error == nil:
				t.Fatalf("no error; llmContent %q", r.LLMText)
			case tt.typ != "" && (r.Error.Type != tt.typ || r.Error.Message != tt.msg):
				t.Errorf("error %s %q\nwant %s %q", r.Error.Type, r.Error.Message, tt.typ, tt.msg)
			}
			if r.LLMText != tt.llm || r.Display != tt.display {
				t.Errorf("llm %q display %q\nwant %q %q", r.LLMText, r.Display, tt.llm, tt.display)
			}
		})
	}
}

func TestReadFileMedia(t *testing.T) {
	env, ws := fsTestEnv(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	if err := os.WriteFile(filepath.Join(ws, "pic.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "doc.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file, mime, display string
		data                []byte
	}{
		{"pic.png", "image/png", "Read image file: pic.png", png},
		{"doc.pdf", "application/pdf", "Read pdf file: doc.pdf", pdf},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := fsRun(t, NewReadFile(env), map[string]any{"absolute_path": filepath.Join(ws, tt.file)})
			if r.Error != nil || r.LLMPart == nil || r.LLMPart.InlineData == nil {
				t.Fatalf("want an inlineData part, got %+v", r)
			}
			if r.LLMPart.InlineData.MIMEType != tt.mime || string(r.LLMPart.InlineData.Data) != string(tt.data) {
				t.Errorf("inlineData %s %q", r.LLMPart.InlineData.MIMEType, r.LLMPart.InlineData.Data)
			}
			if r.Display != tt.display {
				t.Errorf("display %q", r.Display)
			}
			parts := tool.FunctionResponseParts("fc-img-1", "read_file", r)
			if len(parts) != 2 {
				t.Fatalf("%d parts, want functionResponse + inlineData", len(parts))
			}
			fr := parts[0].FunctionResponse
			if fr == nil || fr.ID != "fc-img-1" || fr.Name != "read_file" {
				t.Fatalf("first part %+v", parts[0])
			}
			if got := fr.Response["output"]; got != "Binary content of type "+tt.mime+" was processed." {
				t.Errorf("output %q", got)
			}
			if parts[1].InlineData == nil || parts[1].InlineData.MIMEType != tt.mime {
				t.Errorf("second part %+v", parts[1])
			}
			if got := base64Of(parts[1].InlineData.Data); got != base64Of(tt.data) {
				t.Errorf("base64 %s", got)
			}
		})
	}
}

func TestReadFileNormalizeKeepsSchema(t *testing.T) {
	rf := NewReadFile(&Env{})
	req := rf.Schema()["required"].([]any)
	if len(req) != 1 || req[0] != "absolute_path" {
		t.Errorf("required = %v, want the wire spec's [absolute_path]", req)
	}
	props := rf.Schema()["properties"].(map[string]any)
	for _, k := range []string{"absolute_path", "offset", "limit"} {
		if _, ok := props[k]; !ok {
			t.Errorf("schema lacks %s", k)
		}
	}
	if len(props) != 3 {
		t.Errorf("schema has %d properties, want 3", len(props))
	}
}

func TestReadFileDescribe(t *testing.T) {
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "src/a.go", "package a")
	c, err := fsPrepare(NewReadFile(env), "", map[string]any{"absolute_path": filepath.Join(ws, "src/a.go")})
	if err != nil {
		t.Fatal(err.Message)
	}
	if got := c.Describe(); got != "src/a.go" {
		t.Errorf("Describe = %q", got)
	}
	if d, _ := c.Confirmation(context.Background()); d != nil {
		t.Error("read_file asks for confirmation")
	}
}

// FuzzReadFileArgs throws arbitrary argument values at read_file: building
// must never panic, failures must be typed, and a built call must run.
func FuzzReadFileArgs(f *testing.F) {
	f.Add("README.md", 0.0, 10.0, 0.0, 0.0, false)
	f.Add("../x", -1.0, 0.0, 3.0, 2.0, true)
	f.Add("", 1e300, -1e300, 0.5, 1.5, true)
	f.Add("/etc/passwd", 2.5, 1.0, 1.0, 1.0, false)
	env := &Env{}
	dir := f.TempDir()
	env.Workspace = tool.NewWorkspace(dir)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(numberedLines(50)), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path string, offset, limit, start, end float64, newStyle bool) {
		args := map[string]any{"absolute_path": path, "offset": offset, "limit": limit}
		if newStyle {
			args = map[string]any{"file_path": path, "start_line": start, "end_line": end}
		}
		c, err := fsPrepare(NewReadFile(env), "", args)
		if err != nil {
			if err.Type == "" || err.Message == "" {
				t.Fatalf("untyped error %+v", err)
			}
			return
		}
		r := c.Execute(context.Background(), nil)
		if r == nil {
			t.Fatal("nil result")
		}
	})
}
