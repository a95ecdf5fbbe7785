package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/internal/npmtest"
)

// needGit skips tests that run git when it is not installed (fails
// them under CI=true).
func needGit(t *testing.T) {
	t.Helper()
	npmtest.LookPath(t, "git")
}

// newService returns a Service over a fresh project in an isolated home
// whose git configuration would break any commit that used it: no
// identity, signing required with a missing key, a failing hook path.
func newService(t *testing.T) (*Service, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostile := filepath.Join(home, ".gitconfig")
	os.WriteFile(hostile, []byte("[commit]\n  gpgsign = true\n[user]\n  signingkey = NOPE\n  useConfigOnly = true\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", hostile)
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_DIR", filepath.Join(root, "not-a-repo"))
	s := &Service{
		ProjectRoot: project,
		HistoryDir:  filepath.Join(home, ".gemini", "history", "project"),
		Dir:         filepath.Join(home, ".gemini", "tmp", "project", "checkpoints"),
		Now:         func() time.Time { return time.Date(2025, 6, 1, 10, 20, 30, 456e6, time.UTC) },
	}
	return s, project
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree returns the project's files and contents, .git excluded.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

var history = []*genai.Content{
	{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "<session_context>\nFix the greeting & more"}}},
	{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "replace", Args: map[string]any{"file_path": "a.txt"}}}}},
}

func TestSaveListRestore(t *testing.T) {
	needGit(t)
	s, project := newService(t)
	write(t, project, "a.txt", "hello\n")
	write(t, project, "sub/b.txt", "bee\n")
	write(t, project, ".gitignore", "ignored.log\n")
	write(t, project, "ignored.log", "log 1\n")
	before := tree(t, project)

	call := ToolCall{Name: "replace", Args: map[string]any{"file_path": filepath.Join(project, "a.txt"), "old_string": "hello", "new_string": "bye"}}
	name, err := s.Save(t.Context(), call, history, "sess########1")
	if err != nil {
		t.Fatal(err)
	}
	if name != "2025-06-01T10-20-30_456Z-a.txt-replace" {
		t.Errorf("name %q", name)
	}

	// The edit and more happen; then the user restores.
	write(t, project, "a.txt", "bye\n")
	write(t, project, "new.txt", "created later\n")
	write(t, project, "sub/c/d.txt", "deep\n")
	os.Remove(filepath.Join(project, "sub", "b.txt"))
	write(t, project, "ignored.log", "log 2\n")

	// A second checkpoint of the same file at the same instant gets a
	// name of its own.
	name2, err := s.Save(t.Context(), ToolCall{Name: "replace", Args: map[string]any{"file_path": "a.txt"}}, nil, "")
	if err != nil || name2 != name+"-2" {
		t.Fatalf("second checkpoint %q, %v", name2, err)
	}

	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Checkpoint != name || list[0].MessageID != "sess########1" || list[0].Tool != "replace" || list[0].Commit == "" {
		t.Fatalf("list = %+v", list)
	}
	if b, _ := json.Marshal(list[:1]); string(b) != `[{"checkpoint":"`+name+`","messageId":"sess########1"}]` {
		t.Errorf("A2A list JSON %s", b)
	}

	d, err := s.Restore(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if d.ToolCall.Name != "replace" || d.MessageID != "sess########1" || len(d.ClientHistory) != 2 || d.ClientHistory[0].Parts[0].Text != history[0].Parts[0].Text {
		t.Errorf("restored data %+v", d)
	}
	after := tree(t, project)
	before["ignored.log"] = "log 2\n" // ignored files are the user's, left alone
	if len(after) != len(before) {
		t.Errorf("files after restore %v, want %v", after, before)
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s = %q after restore, want %q", k, after[k], v)
		}
	}

	// Restoring the later checkpoint brings the later state back.
	if _, err := s.Restore(t.Context(), name2+".json"); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, project); got["new.txt"] != "created later\n" || got["a.txt"] != "bye\n" {
		t.Errorf("second restore: %v", got)
	}

	// The project's own repository, if any, is never touched.
	if _, err := os.Stat(filepath.Join(project, ".git")); err == nil {
		t.Error("a .git appeared in the project")
	}
}

func TestSnapshotUnchangedReusesCommit(t *testing.T) {
	needGit(t)
	s, project := newService(t)
	write(t, project, "a.txt", "x")
	call := ToolCall{Name: "write_file", Args: map[string]any{"file_path": "a.txt", "content": "y"}}
	n1, err := s.Save(t.Context(), call, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	n2, err := s.Save(t.Context(), call, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := s.Load(n1)
	d2, _ := s.Load(n2)
	if d1.CommitHash == "" || d1.CommitHash != d2.CommitHash {
		t.Errorf("commits %q and %q, want the same", d1.CommitHash, d2.CommitHash)
	}
}

// TestFileFormat pins the checkpoint file to Gemini CLI's layout.
func TestFileFormat(t *testing.T) {
	needGit(t)
	s, project := newService(t)
	write(t, project, "main.go", "package main\n")
	name, err := s.Save(t.Context(), ToolCall{Name: "write_file", Args: map[string]any{"file_path": "main.go", "content": "package main // new\n"}}, history, "sess########3")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`"commitHash": "[0-9a-f]{40,64}"`).ReplaceAllString(string(b), `"commitHash": "<HASH>"`)
	golden.Check(t, "checkpoint.golden.json", got)
	if fi, _ := os.Stat(filepath.Join(s.Dir, name+".json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("checkpoint mode %v: it holds the conversation and must be private", fi.Mode().Perm())
	}
}

func TestLoadErrors(t *testing.T) {
	s := &Service{Dir: t.TempDir()}
	write(t, s.Dir, "broken.json", "{not json")
	write(t, s.Dir, "notool.json", `{"commitHash":"abc"}`)
	write(t, s.Dir, "noargs.json", `{"toolCall":{"name":"replace"}}`)
	write(t, filepath.Dir(s.Dir), "outside.json", `{"toolCall":{"name":"x","args":{}}}`)
	tests := []struct {
		name string
		want error
		text string
	}{
		{"missing", ErrNotFound, "File not found: missing.json"},
		{"missing.json", ErrNotFound, "File not found: missing.json"},
		{"broken", ErrInvalid, "Checkpoint file is invalid or corrupted."},
		{"notool", ErrInvalid, ""},
		{"noargs", ErrInvalid, ""},
		{"../outside", ErrNotFound, ""},
		{"", ErrNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Load(tt.name)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("err %v, want %v containing %q", err, tt.want, tt.text)
			}
		})
	}
}

// TestGeminiCLICheckpoint reads a checkpoint as Gemini CLI writes it, UI
// history included, and restores its conversation.
func TestGeminiCLICheckpoint(t *testing.T) {
	b, err := os.ReadFile("testdata/gemini-cli.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.ToolCall.Name != "replace" || d.MessageID == "" || len(d.ClientHistory) != 2 || len(d.History) == 0 || d.CommitHash == "" {
		t.Errorf("parsed %+v", d)
	}
	// Written back, the UI history survives.
	out, _ := json.Marshal(d)
	if !strings.Contains(string(out), `"history":[{"type":"user"`) {
		t.Errorf("history lost: %s", out)
	}
}

func TestRestoreMissingCommit(t *testing.T) {
	needGit(t)
	s, project := newService(t)
	write(t, project, "a.txt", "x")
	if _, err := s.Save(t.Context(), ToolCall{Name: "replace", Args: map[string]any{"file_path": "a.txt"}}, nil, ""); err != nil {
		t.Fatal(err)
	}
	write(t, s.Dir, "gone.json", `{"toolCall":{"name":"replace","args":{}},"commitHash":"0123456789012345678901234567890123456789"}`)
	_, err := s.Restore(t.Context(), "gone")
	if !errors.Is(err, ErrCommitMissing) || !strings.Contains(err.Error(), "could not be found in your Git repository") {
		t.Errorf("err %v", err)
	}
	if got := tree(t, project)["a.txt"]; got != "x" {
		t.Errorf("project changed: %q", got)
	}
}

func TestGitMissingWarnsOnce(t *testing.T) {
	s, _ := newService(t)
	s.Git = filepath.Join(t.TempDir(), "no-git-here")
	var warnings []string
	s.Warn = func(w string) { warnings = append(warnings, w) }
	call := ToolCall{Name: "write_file", Args: map[string]any{"file_path": "a.txt"}}
	for range 3 {
		if name := s.Checkpoint(context.Background(), call, nil, ""); name != "" {
			t.Errorf("checkpoint %q written without git", name)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "Git is not installed") {
		t.Errorf("warnings %q", warnings)
	}
}

func TestNoFilePathIsSkipped(t *testing.T) {
	s, _ := newService(t)
	if _, err := s.Save(t.Context(), ToolCall{Name: "replace", Args: map[string]any{}}, nil, ""); err == nil || !strings.Contains(err.Error(), "missing file_path") {
		t.Errorf("err %v", err)
	}
}

// TestProjectHoldsHistory covers a session started in the home directory:
// the shadow repository and the checkpoints are inside the work tree and
// must not be snapshotted (nor removed by a restore).
func TestProjectHoldsHistory(t *testing.T) {
	needGit(t)
	s, _ := newService(t)
	home := os.Getenv("HOME")
	s.ProjectRoot = home
	write(t, home, "notes.txt", "n")
	name, err := s.Save(t.Context(), ToolCall{Name: "write_file", Args: map[string]any{"file_path": "notes.txt"}}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.git(t.Context(), true, "ls-files")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, ".gemini/") {
		t.Errorf("snapshot holds Castor's own files:\n%s", out)
	}
	if _, err := s.Restore(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, name+".json")); err != nil {
		t.Errorf("restore removed the checkpoint itself: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("testdata/gemini-cli.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"toolCall":{"name":"x","args":{}}}`))
	f.Add([]byte(`{"toolCall":{"name":"x","args":{}},"history":7}`))
	f.Add([]byte(`{"toolCall":{"name":"x","args":{}},"clientHistory":[{"parts":[{"text":"a"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		if err != nil {
			return
		}
		// Whatever parses must write back and parse again the same way.
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		d2, err := Parse(out)
		if err != nil {
			t.Fatalf("reparse of %s: %v", out, err)
		}
		if d2.ToolCall.Name != d.ToolCall.Name || d2.CommitHash != d.CommitHash || d2.MessageID != d.MessageID {
			t.Fatalf("round trip changed %+v to %+v", d, d2)
		}
	})
}

func TestInfoTime(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string // RFC 3339 with milliseconds; "" when none
	}{
		{"2025-06-01T10-20-30_456Z-main.go-replace", "2025-06-01T10:20:30.456Z"},
		{"2025-06-01T10-20-30_000Z-a-write_file", "2025-06-01T10:20:30.000Z"},
		{"2025-06-01T10-20-30Z-main.go-replace", ""},
		{"my-checkpoint", ""},
		{"", ""},
	} {
		got, ok := Info{Checkpoint: tt.name}.Time()
		s := ""
		if ok {
			s = got.Format("2006-01-02T15:04:05.000Z07:00")
		}
		if s != tt.want {
			t.Errorf("Time(%q) = %q, want %q", tt.name, s, tt.want)
		}
	}
}
