package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestReplace(t *testing.T) {
	const notes = "hello world\nsecond line\n"
	tests := []struct {
		name    string
		files   map[string]string
		args    map[string]any
		want    string // LLMText; "<ABS>" stands for the file's absolute path
		wantErr tool.ErrorType
		file    string // expected file content afterwards
	}{
		{
			name:  "single replacement",
			files: map[string]string{"notes.txt": notes},
			args:  map[string]any{"file_path": "notes.txt", "old_string": "hello", "new_string": "goodbye"},
			want:  "Successfully modified file: <ABS> (1 replacements). Here is the updated code:\ngoodbye world\nsecond line\n",
			file:  "goodbye world\nsecond line\n",
		},
		{
			name:  "today's form with instruction",
			files: map[string]string{"notes.txt": notes},
			args:  map[string]any{"file_path": "notes.txt", "instruction": "Say goodbye.", "old_string": "hello", "new_string": "goodbye", "allow_multiple": false},
			want:  "Successfully modified file: <ABS> (1 replacements). Here is the updated code:\ngoodbye world\nsecond line\n",
			file:  "goodbye world\nsecond line\n",
		},
		{
			name: "new file",
			args: map[string]any{"file_path": "sub/dir/new.txt", "old_string": "", "new_string": "fresh\ncontent\n"},
			want: "Created new file: <ABS> with provided content. Here is the updated code:\nfresh\ncontent\n",
			file: "fresh\ncontent\n",
		},
		{
			name:    "empty old_string on an existing file",
			files:   map[string]string{"notes.txt": notes},
			args:    map[string]any{"file_path": "notes.txt", "old_string": "", "new_string": "x"},
			want:    "File already exists, cannot create: <ABS>",
			wantErr: tool.ErrAttemptToCreateExistingFile,
			file:    notes,
		},
		{
			name:    "missing file",
			args:    map[string]any{"file_path": "notes.txt", "old_string": "a", "new_string": "b"},
			want:    "File not found: <ABS>",
			wantErr: tool.ErrFileNotFound,
		},
		{
			name:    "no occurrence",
			files:   map[string]string{"notes.txt": notes},
			args:    map[string]any{"file_path": "notes.txt", "old_string": "HELLO", "new_string": "x"},
			want:    "Failed to edit, 0 occurrences found for old_string in notes.txt. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.",
			wantErr: tool.ErrEditNoOccurrenceFound,
			file:    notes,
		},
		{
			name:    "replace does not match whitespace-flexibly",
			files:   map[string]string{"a.go": "func f() {\n\treturn\n}\n"},
			args:    map[string]any{"file_path": "a.go", "old_string": "    return", "new_string": "    return nil"},
			want:    "Failed to edit, 0 occurrences found for old_string in a.go. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.",
			wantErr: tool.ErrEditNoOccurrenceFound,
			file:    "func f() {\n\treturn\n}\n",
		},
		{
			name:    "two occurrences, spec form",
			files:   map[string]string{"x.txt": "a a\n"},
			args:    map[string]any{"file_path": "x.txt", "old_string": "a", "new_string": "b"},
			want:    "Failed to edit, Expected 1 occurrence but found 2 for old_string in file: x.txt",
			wantErr: tool.ErrEditExpectedOccurrenceMismatch,
			file:    "a a\n",
		},
		{
			name:    "two occurrences, today's form",
			files:   map[string]string{"x.txt": "a a\n"},
			args:    map[string]any{"file_path": "x.txt", "instruction": "Change a to b.", "old_string": "a", "new_string": "b"},
			want:    "Failed to edit, Expected 1 occurrence but found 2 for old_string in file: x.txt. If you intended to replace multiple occurrences, set 'allow_multiple' to true.",
			wantErr: tool.ErrEditExpectedOccurrenceMismatch,
			file:    "a a\n",
		},
		{
			name:    "expected_replacements mismatch",
			files:   map[string]string{"x.txt": "a a\n"},
			args:    map[string]any{"file_path": "x.txt", "old_string": "a", "new_string": "b", "expected_replacements": 3},
			want:    "Failed to edit, Expected 3 occurrences but found 2 for old_string in file: x.txt",
			wantErr: tool.ErrEditExpectedOccurrenceMismatch,
			file:    "a a\n",
		},
		{
			name:  "expected_replacements met",
			files: map[string]string{"x.txt": "a a\n"},
			args:  map[string]any{"file_path": "x.txt", "old_string": "a", "new_string": "b", "expected_replacements": 2},
			want:  "Successfully modified file: <ABS> (2 replacements). Here is the updated code:\nb b\n",
			file:  "b b\n",
		},
		{
			name:  "allow_multiple accepts any count",
			files: map[string]string{"x.txt": "a a a\n"},
			args:  map[string]any{"file_path": "x.txt", "instruction": "all", "old_string": "a", "new_string": "b", "allow_multiple": true},
			want:  "Successfully modified file: <ABS> (3 replacements). Here is the updated code:\nb b b\n",
			file:  "b b b\n",
		},
		{
			name:  "allow_multiple as a string",
			files: map[string]string{"x.txt": "a a\n"},
			args:  map[string]any{"file_path": "x.txt", "old_string": "a", "new_string": "b", "allow_multiple": "true"},
			want:  "Successfully modified file: <ABS> (2 replacements). Here is the updated code:\nb b\n",
			file:  "b b\n",
		},
		{
			name:    "allow_multiple still needs one",
			files:   map[string]string{"x.txt": "a\n"},
			args:    map[string]any{"file_path": "x.txt", "old_string": "z", "new_string": "b", "allow_multiple": true},
			want:    "Failed to edit, 0 occurrences found for old_string in x.txt. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.",
			wantErr: tool.ErrEditNoOccurrenceFound,
			file:    "a\n",
		},
		{
			name:    "identical strings",
			files:   map[string]string{"x.txt": "a\n"},
			args:    map[string]any{"file_path": "x.txt", "old_string": "a", "new_string": "a"},
			want:    "No changes to apply. The old_string and new_string are identical in file: x.txt",
			wantErr: tool.ErrEditNoChange,
			file:    "a\n",
		},
		{
			name:  "CRLF file stays CRLF",
			files: map[string]string{"win.txt": "one\r\ntwo\r\nthree\r\n"},
			args:  map[string]any{"file_path": "win.txt", "old_string": "one\r\ntwo", "new_string": "1\n2\n2.5"},
			want:  "Successfully modified file: <ABS> (1 replacements). Here is the updated code:\n1\n2\n2.5\nthree\n",
			file:  "1\r\n2\r\n2.5\r\nthree\r\n",
		},
		{
			name:  "no trailing newline stays without",
			files: map[string]string{"x.txt": "a\nb"},
			args:  map[string]any{"file_path": "x.txt", "old_string": "b", "new_string": "c\n"},
			want:  "Successfully modified file: <ABS> (1 replacements). Here is the updated code:\na\nc",
			file:  "a\nc",
		},
		{
			name:  "dollar signs are literal",
			files: map[string]string{"x.sh": "echo NAME\n"},
			args:  map[string]any{"file_path": "x.sh", "old_string": "NAME", "new_string": "$1 $& $$HOME $`"},
			want:  "Successfully modified file: <ABS> (1 replacements). Here is the updated code:\necho $1 $& $$HOME $`\n",
			file:  "echo $1 $& $$HOME $`\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, dir := auxTestEnv(t)
			for rel, content := range tc.files {
				fsWrite(t, dir, rel, content)
			}
			rel, _ := tc.args["file_path"].(string)
			abs := filepath.Join(dir, filepath.FromSlash(rel))
			r := fsRun(t, NewReplace(env), tc.args)
			want := strings.ReplaceAll(tc.want, "<ABS>", abs)
			if r.LLMText != want {
				t.Errorf("LLMText = %q\nwant      %q", r.LLMText, want)
			}
			if tc.wantErr != "" {
				auxErrorIs(t, r, tc.wantErr, want)
			} else if r.Error != nil {
				t.Errorf("unexpected error %s %q", r.Error.Type, r.Error.Message)
			} else if r.Diff == nil || r.Diff.FilePath != abs {
				t.Errorf("Diff = %+v", r.Diff)
			}
			if tc.file != "" {
				if got := fsRead(t, abs); got != tc.file {
					t.Errorf("file = %q, want %q", got, tc.file)
				}
			}
			entries, _ := os.ReadDir(filepath.Dir(abs))
			for _, e := range entries {
				if strings.Contains(e.Name(), "castor-tmp") {
					t.Errorf("temporary file left behind: %s", e.Name())
				}
			}
		})
	}
}

func TestReplaceBuildErrors(t *testing.T) {
	env, dir := auxTestEnv(t)
	fsWrite(t, dir, "a.go", "x\n")
	outside := filepath.Join(filepath.Dir(dir), "elsewhere.txt")
	tests := []struct {
		name    string
		args    map[string]any
		wantTyp tool.ErrorType
		wantMsg string
	}{
		{"missing new_string", map[string]any{"file_path": "a.go", "old_string": "x"}, tool.ErrInvalidParams, "params must have required property 'new_string'"},
		{"empty path", map[string]any{"file_path": "", "old_string": "x", "new_string": "y"}, tool.ErrInvalidParams, "The 'file_path' parameter must be non-empty."},
		{"expected_replacements below 1", map[string]any{"file_path": "a.go", "old_string": "x", "new_string": "y", "expected_replacements": 0}, tool.ErrInvalidParams, "params/expected_replacements must be >= 1"},
		{"omission placeholder", map[string]any{"file_path": "a.go", "old_string": "x", "new_string": "y\n// ... rest of code"}, tool.ErrInvalidParams, editOmissionError},
		{"outside the workspace", map[string]any{"file_path": outside, "old_string": "x", "new_string": "y"}, tool.ErrPathNotInWorkspace, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fsPrepare(NewReplace(env), "", tc.args)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Type != tc.wantTyp || (tc.wantMsg != "" && err.Message != tc.wantMsg) {
				t.Errorf("got %s %q, want %s %q", err.Type, err.Message, tc.wantTyp, tc.wantMsg)
			}
		})
	}
}

func TestReplaceConfirmationAndUserModification(t *testing.T) {
	env, dir := auxTestEnv(t)
	p := fsWrite(t, dir, "notes.txt", "alpha\nbeta\n")
	c, err := fsPrepare(NewReplace(env), "", map[string]any{"file_path": "notes.txt", "old_string": "beta", "new_string": "gamma"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Describe(); got != "notes.txt: beta => gamma" {
		t.Errorf("Describe = %q", got)
	}
	d, cerr := c.Confirmation(context.Background())
	if cerr != nil || d == nil {
		t.Fatalf("Confirmation = %v, %v", d, cerr)
	}
	if d.Type != tool.ConfirmEdit || d.Title != "Confirm Edit: notes.txt" || d.FileName != "notes.txt" || d.FilePath != p {
		t.Errorf("details = %+v", d)
	}
	if d.OriginalContent == nil || *d.OriginalContent != "alpha\nbeta\n" || d.NewContent != "alpha\ngamma\n" {
		t.Errorf("contents = %v %q", d.OriginalContent, d.NewContent)
	}
	if !strings.Contains(d.FileDiff, "-beta\n+gamma") || !strings.Contains(d.FileDiff, "notes.txt\tProposed") {
		t.Errorf("diff = %q", d.FileDiff)
	}
	if got := fsRead(t, p); got != "alpha\nbeta\n" {
		t.Errorf("confirmation wrote the file: %q", got)
	}

	m, ok := c.(tool.Modifiable)
	if !ok {
		t.Fatal("edit call is not Modifiable")
	}
	m.ApplyUserContent("alpha\ndelta\n")
	r := c.Execute(context.Background(), nil)
	want := "Successfully modified file: " + p + " (1 replacements). Here is the updated code:\nalpha\ndelta\n User modified the `new_string` content to be: alpha\ndelta\n."
	if r.Error != nil || r.LLMText != want {
		t.Errorf("LLMText = %q\nwant      %q (err %v)", r.LLMText, want, r.Error)
	}
	if got := fsRead(t, p); got != "alpha\ndelta\n" {
		t.Errorf("file = %q", got)
	}
	st := r.Diff.DiffStat
	if st.ModelAddedLines != 1 || st.ModelRemovedLines != 1 || st.UserAddedLines != 1 || st.UserRemovedLines != 1 {
		t.Errorf("diff stat = %+v", st)
	}
}

func TestReplaceFailingEditIsNeverWrittenUnapproved(t *testing.T) {
	env, dir := auxTestEnv(t)
	p := fsWrite(t, dir, "x.txt", "nothing here\n")
	c, err := fsPrepare(NewReplace(env), "", map[string]any{"file_path": "x.txt", "old_string": "needle", "new_string": "pin"})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Confirmation(context.Background())
	if d != nil {
		t.Fatalf("a failing edit asked for confirmation: %+v", d)
	}
	// The file changes between confirmation and execution so that the
	// edit would now apply; it must still fail.
	fsWrite(t, dir, "x.txt", "needle\n")
	r := c.Execute(context.Background(), nil)
	if r.Error == nil || r.Error.Type != tool.ErrEditNoOccurrenceFound {
		t.Errorf("result = %+v", r)
	}
	if got := fsRead(t, p); got != "needle\n" {
		t.Errorf("file = %q", got)
	}
}

func TestReplaceDescribe(t *testing.T) {
	env, dir := auxTestEnv(t)
	fsWrite(t, dir, "a.txt", "x\n")
	long := strings.Repeat("a", 40)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"file_path": "new.txt", "old_string": "", "new_string": "x"}, "Create new.txt"},
		{map[string]any{"file_path": "a.txt", "old_string": "x", "new_string": "x"}, "No file changes to a.txt"},
		{map[string]any{"file_path": "a.txt", "old_string": long + "\nmore", "new_string": "y\nz"}, "a.txt: " + strings.Repeat("a", 30) + "... => y"},
	}
	for _, tc := range tests {
		c, err := fsPrepare(NewReplace(env), "", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Describe(); got != tc.want {
			t.Errorf("Describe = %q, want %q", got, tc.want)
		}
	}
}

func TestReplaceDeclaration(t *testing.T) {
	d := tool.Declaration(NewReplace(nil))
	if d.Name != "replace" || !strings.HasPrefix(d.Description, "Replaces text in a file") {
		t.Errorf("declaration = %s %q", d.Name, d.Description[:40])
	}
	if NewReplace(nil).Kind() != tool.KindEdit || NewReplace(nil).DisplayName() != "Edit" {
		t.Error("kind or display name")
	}
}
