package castor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/model/gemini"
	"github.com/castor-dev/castor/policy"
)

// settingsAgent builds an agent that reads settings from a temporary home
// (with the given user settings.json) and trusts its workspace.
func settingsAgent(t *testing.T, srv *fakegemini.Server, settings string) (*castor.Agent, string, string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	client, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}
	a, err := castor.New(context.Background(),
		castor.WithWorkDir(ws), castor.WithHomeDir(home), castor.WithClient(client), castor.WithoutRecording(),
		castor.WithApprovalMode(policy.ModeYolo),
		castor.WithEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, home, ws
}

func TestCheckpointAndRestore(t *testing.T) {
	npmtest.LookPath(t, "git")
	srv := fakegemini.Start(t)
	a, _, ws := settingsAgent(t, srv, `{"general": {"checkpointing": {"enabled": true}}}`)
	file := filepath.Join(ws, "notes.txt")
	os.WriteFile(file, []byte("original\n"), 0o644)
	srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": file, "content": "changed\n"}),
		fakegemini.Text("done"))
	if _, err := a.Send(context.Background(), "change the notes"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "changed\n" {
		t.Fatalf("edit did not happen: %q", b)
	}
	cps, err := a.Checkpoints()
	if err != nil || len(cps) != 1 || cps[0].Tool != "write_file" {
		t.Fatalf("checkpoints = %+v, %v", cps, err)
	}
	if err := a.RestoreCheckpoint(context.Background(), cps[0].Name); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "original\n" {
		t.Errorf("restore left %q", b)
	}
	// The conversation is back to where it was before the edit: the
	// prompt, without the edit's call and response.
	h := a.Session().History()
	if len(h) != 1 || !strings.Contains(h[0].Parts[len(h[0].Parts)-1].Text, "change the notes") {
		t.Errorf("restored history has %d contents", len(h))
	}
}

func TestCheckpointingOff(t *testing.T) {
	a := newAgent(t, fakegemini.Start(t))
	if _, err := a.Checkpoints(); err != castor.ErrCheckpointingOff {
		t.Errorf("err = %v", err)
	}
}

func TestSaveMemoryRefreshesSystemInstruction(t *testing.T) {
	srv := fakegemini.Start(t)
	a, home, _ := settingsAgent(t, srv, `{}`)
	srv.Enqueue(
		fakegemini.Call("save_memory", map[string]any{"fact": "The user likes tabs"}),
		fakegemini.Text("saved"))
	if _, err := a.Send(context.Background(), "remember that I like tabs"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".gemini", "GEMINI.md")); !strings.Contains(string(b), "The user likes tabs") {
		t.Fatalf("GEMINI.md = %q", b)
	}
	reqs := srv.Requests()
	if si := systemText(reqs[0]); strings.Contains(si, "The user likes tabs") {
		t.Fatal("the fact cannot be known before it is saved")
	}
	if si := systemText(reqs[1]); !strings.Contains(si, "The user likes tabs") {
		t.Errorf("the model call after save_memory does not see the fact")
	}
}
