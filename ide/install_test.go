package ide_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/castor-dev/castor/ide"
)

// TestInstall: /ide install installs the VS Code companion with VS Code's
// `code` command, and says what to do where it cannot.
func TestInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake code command is a shell script")
	}
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	fake := func(exit string) string {
		p := filepath.Join(t.TempDir(), "code")
		os.WriteFile(p, []byte("#!/bin/sh\necho \"$@\" > "+argsFile+"\necho 'some output'\nexit "+exit+"\n"), 0o755)
		return p
	}
	ok, failing := fake("0"), fake("3")
	tests := []struct {
		name     string
		env      map[string]string
		code     string
		wantMsg  string
		wantErr  string
		wantArgs string
	}{
		{"vscode", map[string]string{"TERM_PROGRAM": "vscode"}, ok, "Installed the Gemini CLI Companion", "", "--install-extension " + ide.CompanionExtensionID + " --force"},
		{"vscode without code", map[string]string{"TERM_PROGRAM": "vscode"}, "", "", `"code" command is not on PATH`, ""},
		{"code fails", map[string]string{"TERM_PROGRAM": "vscode"}, failing, "", "exit status 3: some output", ""},
		{"neovim", map[string]string{"NVIM": "/tmp/nvim.sock"}, ok, "", "no installer for Neovim", ""},
		{"unknown terminal", nil, ok, "", "no installer for this terminal's editor", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(argsFile)
			msg, err := ide.Install(context.Background(), ide.InstallOptions{
				Getenv: func(k string) string { return tt.env[k] },
				LookPath: func(string) (string, error) {
					if tt.code == "" {
						return "", errors.New("not found")
					}
					return tt.code, nil
				},
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(msg, tt.wantMsg) {
				t.Fatalf("Install: %q, %v", msg, err)
			}
			if b, _ := os.ReadFile(argsFile); strings.TrimSpace(string(b)) != tt.wantArgs {
				t.Errorf("code ran with %q, want %q", b, tt.wantArgs)
			}
		})
	}
}
