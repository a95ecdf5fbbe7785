package setup

import (
	"context"
	"errors"
	"iter"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

func TestConnectIDE(t *testing.T) {
	tmp := t.TempDir()
	// os.TempDir, where discovery files live, follows TMPDIR.
	t.Setenv("TMPDIR", tmp)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	getenv := func(k string) string {
		if k == ide.EnvIDEPID {
			return "4545"
		}
		return ""
	}
	terminalAsked := false
	own := func(context.Context, *agent.ToolCall) (tool.Decision, error) {
		terminalAsked = true
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }

	if h, err := connectIDE(context.Background(), false, ws, getenv, warn); h != nil || err != nil || len(warnings) != 0 {
		t.Fatalf("IDE mode off: %+v, %v, %v", h, err, warnings)
	}

	h, err := connectIDE(context.Background(), true, ws, getenv, warn)
	if h != nil || err != nil || len(warnings) != 1 ||
		!strings.Contains(warnings[0], "no IDE companion found") || !strings.Contains(warnings[0], "castor ide status") {
		t.Fatalf("no companion: %+v, %q", h, warnings)
	}

	s := companion.New(companion.Options{Workspaces: []string{ws}, TempDir: tmp, PID: 4545, Debounce: time.Millisecond})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	s.FileFocused(filepath.Join(ws, "a.go"))
	h, err = connectIDE(context.Background(), true, ws, getenv, warn)
	if err != nil || h == nil || h.client == nil {
		t.Fatalf("connection %+v, %v (warnings %q)", h, err, warnings)
	}
	defer h.client.Close()
	// Connecting waited for the companion's first context.
	if parts := h.client.PromptContext(true); len(parts) != 1 || !strings.Contains(parts[0].Text, filepath.Join(ws, "a.go")) {
		t.Errorf("prompt context %+v", parts)
	}
	// A call that is not an edit goes to the caller's own Confirm.
	shell := &agent.ToolCall{Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec}}}
	if d, err := h.client.Confirm(own)(context.Background(), shell); err != nil || d.Outcome != tool.ProceedOnce || !terminalAsked {
		t.Errorf("shell confirmation: %+v, %v, asked %v", d, err, terminalAsked)
	}
}

// TestIDETrustDecidesFolderTrust checks that a connected IDE's answer
// about the workspace decides folder trust for a headless run, as it does
// in Gemini CLI, where otherwise an unknown folder is refused.
func TestIDETrustDecidesFolderTrust(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		s := companion.New(companion.Options{Workspaces: []string{ws}, TempDir: tmp, PID: 4545, Debounce: time.Millisecond})
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		s.SetTrusted(trusted)
		s.FileFocused(filepath.Join(ws, "a.go"))
		getenv := func(k string) string {
			if k == ide.EnvIDEPID {
				return "4545"
			}
			return ""
		}
		a, err := New(context.Background(), Options{
			WorkDir: ws, HomeDir: t.TempDir(), Env: envOf(getenv), IDE: true, EnforceTrust: true,
			DisableRecording: true, Client: noModel{},
		})
		if trusted {
			if err != nil {
				t.Errorf("IDE says trusted: %v", err)
			} else {
				a.Close()
			}
		} else {
			var ue *UntrustedError
			if !errors.As(err, &ue) {
				t.Errorf("IDE says untrusted: err = %v", err)
			}
		}
		s.Stop(context.Background())
	}
}

// noModel is a transport that is never called.
type noModel struct{}

func (noModel) GenerateContent(context.Context, *model.Request) (*genai.GenerateContentResponse, error) {
	return nil, errors.New("not called")
}
func (noModel) GenerateContentStream(context.Context, *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(func(*genai.GenerateContentResponse, error) bool) {}
}
func (noModel) CountTokens(context.Context, *model.Request) (int32, error) { return 0, nil }
