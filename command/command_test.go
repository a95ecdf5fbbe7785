package command

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testEnv(t *testing.T) Env {
	t.Helper()
	root := t.TempDir()
	env := Env{Workspace: filepath.Join(root, "ws"), HomeDir: filepath.Join(root, "home"), Trusted: true}
	for _, d := range []string{env.Workspace, env.HomeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func TestLookup(t *testing.T) {
	r := DefaultRegistry()
	for _, tt := range []struct {
		words    []string
		name     string
		path     string
		restArgs string
	}{
		{[]string{"memory"}, "memory", "memory", ""},
		{[]string{"memory", "show"}, "show", "memory show", ""},
		{[]string{"memory show"}, "show", "memory show", ""},
		{[]string{"memory add buy milk"}, "add", "memory add", "buy milk"},
		{[]string{"memory", "bogus"}, "memory", "memory", "bogus"},
		{[]string{"extensions", "list"}, "list", "extensions list", ""},
		{[]string{"nope"}, "", "", "nope"},
		{nil, "", "", ""},
	} {
		c, p, rest := r.Lookup(tt.words...)
		name := ""
		if c != nil {
			name = c.Name
		}
		if name != tt.name || strings.Join(p, " ") != tt.path || strings.Join(rest, " ") != tt.restArgs {
			t.Errorf("Lookup(%q) = %q %q %q", tt.words, name, p, rest)
		}
	}
}

func TestRegisterReplaces(t *testing.T) {
	r := DefaultRegistry()
	r.Register(&Command{Name: "memory", Description: "mine"})
	if c, _, _ := r.Lookup("memory"); c.Description != "mine" {
		t.Error("not replaced")
	}
	if n := len(r.Commands()); n != len(Builtins()) {
		t.Errorf("%d commands", n)
	}
}

func TestMemoryCommands(t *testing.T) {
	env := testEnv(t)
	r := DefaultRegistry()
	ctx := context.Background()
	run := func(line string) *Result {
		t.Helper()
		res, err := r.RunLine(ctx, line, env)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return res
	}
	if got := run("/memory show").Content; got != "Memory is currently empty." {
		t.Errorf("empty show = %q", got)
	}
	if got := run("memory list").Content; got != "No GEMINI.md files in use." {
		t.Errorf("empty list = %q", got)
	}
	if res := run("memory add"); res.MessageType != MessageError {
		t.Errorf("add without text = %+v", res)
	}
	if got := run("memory add I prefer tabs").Content; !strings.Contains(got, "I prefer tabs") {
		t.Errorf("add = %q", got)
	}
	os.WriteFile(filepath.Join(env.Workspace, "GEMINI.md"), []byte("Project rules."), 0o644)
	show := run("memory").Content
	for _, want := range []string{"from 2 file(s)", "I prefer tabs", "Project rules."} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q: %s", want, show)
		}
	}
	if got := run("memory list").Content; !strings.Contains(got, "There are 2 GEMINI.md file(s) in use") {
		t.Errorf("list = %q", got)
	}
	if got := run("memory refresh").Content; !strings.Contains(got, "from 2 file(s)") {
		t.Errorf("refresh = %q", got)
	}
	// An untrusted workspace contributes no project memory.
	env.Trusted = false
	if got := run("memory list").Content; !strings.Contains(got, "There are 1 GEMINI.md") {
		t.Errorf("untrusted list = %q", got)
	}
}

func TestExtensionsList(t *testing.T) {
	env := testEnv(t)
	r := DefaultRegistry()
	res, err := r.Run(context.Background(), []string{"extensions", "list"}, nil, env)
	if err != nil || res.Payload() != "No extensions installed." {
		t.Fatalf("empty = %+v, %v", res, err)
	}
	for _, e := range []struct{ dir, manifest string }{
		{filepath.Join(env.HomeDir, ".gemini", "extensions", "good"), `{"name":"good","version":"1.0.0"}`},
		{filepath.Join(env.HomeDir, ".gemini", "extensions", "noversion"), `{"name":"nov"}`},
		{filepath.Join(env.HomeDir, ".gemini", "extensions", "broken"), `{`},
		{filepath.Join(env.Workspace, ".gemini", "extensions", "ws"), `{"name":"wsext","version":"0.1"}`},
	} {
		os.MkdirAll(e.dir, 0o755)
		os.WriteFile(filepath.Join(e.dir, "gemini-extension.json"), []byte(e.manifest), 0o644)
	}
	res, _ = r.Run(context.Background(), []string{"extensions"}, nil, env)
	exts, _ := res.Data.([]ExtensionInfo)
	// Gemini CLI 0.61 has no workspace extensions; installed ones are
	// active unless disabled.
	if len(exts) != 1 || exts[0].Name != "good" || !exts[0].IsActive {
		t.Errorf("extensions = %+v", exts)
	}
}

func TestInit(t *testing.T) {
	env := testEnv(t)
	r := DefaultRegistry()
	res, err := r.Run(context.Background(), []string{"init"}, nil, env)
	if err != nil || res.Kind != ResultSubmitPrompt || !strings.Contains(res.Content, "GEMINI.md") || res.Mode != "auto_edit" {
		t.Fatalf("init = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "GEMINI.md")); err != nil {
		t.Errorf("GEMINI.md not created: %v", err)
	}
	res, _ = r.Run(context.Background(), []string{"init"}, nil, env)
	if res.Kind != ResultMessage || !strings.Contains(res.Content, "already exists") {
		t.Errorf("second init = %+v", res)
	}
}

func TestRunErrors(t *testing.T) {
	r := DefaultRegistry()
	if _, err := r.Run(context.Background(), []string{"nope"}, nil, Env{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := r.Run(context.Background(), []string{"memory"}, nil, Env{}); !errors.Is(err, ErrNeedsWorkspace) {
		t.Errorf("no workspace: %v", err)
	}
	r.Register(&Command{Name: "group", SubCommands: []*Command{{Name: "x"}}})
	if _, err := r.RunLine(context.Background(), "group", Env{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("group without default: %v", err)
	}
}

// TestFind: the rule every face applies before running a command.
func TestFind(t *testing.T) {
	r := DefaultRegistry()
	ws := Env{Workspace: t.TempDir()}
	tests := []struct {
		path     []string
		env      Env
		wantPath string
		err      error
	}{
		{[]string{"memory", "show"}, ws, "memory show", nil},
		{[]string{"memory show"}, ws, "memory show", nil},
		{[]string{"memory"}, Env{}, "", ErrNeedsWorkspace},
		{[]string{"nope"}, ws, "", ErrNotFound},
		{[]string{"memory", "show", "extra"}, ws, "", ErrNotFound},
		{nil, ws, "", ErrNotFound},
	}
	for _, tt := range tests {
		c, p, err := r.Find(tt.env, tt.path...)
		if !errors.Is(err, tt.err) || strings.Join(p, " ") != tt.wantPath || (err == nil) != (c != nil) {
			t.Errorf("Find(%q) = %v, %q, %v; want %q, %v", tt.path, c != nil, p, err, tt.wantPath, tt.err)
		}
	}
}

func FuzzRunLine(f *testing.F) {
	f.Add("memory add hello")
	f.Add("/extensions list")
	f.Add("  ")
	f.Fuzz(func(t *testing.T, line string) {
		r := NewRegistry(Extensions())
		// Only the side-effect-free command is registered.
		r.RunLine(context.Background(), line, Env{HomeDir: t.TempDir()})
	})
}

func TestRestoreWithoutCheckpoints(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	res, err := DefaultRegistry().RunLine(context.Background(), "restore", Env{Workspace: ws, HomeDir: home, Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != ResultData {
		t.Fatalf("result = %+v", res)
	}
	if b, _ := json.Marshal(res.Data); string(b) != "[]" {
		t.Errorf("data = %s", b)
	}
	if _, err := DefaultRegistry().RunLine(context.Background(), "restore nope", Env{Workspace: ws, HomeDir: home}); err == nil {
		t.Error("restoring a missing checkpoint must fail")
	}
}

// TestFaces: a command is offered where its Faces say, every face when
// it names none, and CommandsFor lists only those.
func TestFaces(t *testing.T) {
	r := NewRegistry(
		&Command{Name: "all"},
		&Command{Name: "clear", Faces: FaceTerminal},
		&Command{Name: "both", Faces: FaceACP | FaceA2A},
	)
	for _, tt := range []struct {
		face Face
		want string
	}{
		{FaceTerminal, "all clear"},
		{FaceACP, "all both"},
		{FaceA2A, "all both"},
		{FaceStream, "all"},
	} {
		var got []string
		for _, c := range r.CommandsFor(tt.face) {
			got = append(got, c.Name)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("CommandsFor(%d) = %v, want %s", tt.face, got, tt.want)
		}
	}
}
