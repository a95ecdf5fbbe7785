package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

func TestPreferredEditorArgv(t *testing.T) {
	tests := []struct {
		name      string
		installed []string
		want      []string
		wantErr   string
	}{
		{"vscode", []string{"code"}, []string{"code", "--wait"}, ""},
		{"vscodium", []string{"codium"}, []string{"codium", "--wait"}, ""},
		{"cursor", []string{"cursor"}, []string{"cursor", "--wait"}, ""},
		{"sublimetext", []string{"subl"}, []string{"subl", "-w"}, ""},
		{"zed", []string{"zed", "zeditor"}, []string{"zed", "--wait"}, ""},
		{"zed", []string{"zeditor"}, []string{"zeditor", "--wait"}, ""},
		{"antigravity", []string{"antigravity"}, []string{"antigravity", "--wait"}, ""},
		{"vim", []string{"vim"}, []string{"vim"}, ""},
		{"neovim", []string{"nvim"}, []string{"nvim"}, ""},
		{"emacs", []string{"emacs"}, []string{"emacs"}, ""},
		{"emacsclient", []string{"emacsclient"}, []string{"emacsclient", "-nw"}, ""},
		{"hx", []string{"hx"}, []string{"hx"}, ""},
		{"micro", []string{"micro"}, []string{"micro"}, ""},
		{"vscode", nil, nil, `general.preferredEditor "vscode": code is not installed`},
		{"zed", nil, nil, `general.preferredEditor "zed": zeditor is not installed`},
		{"notepad", []string{"notepad"}, nil, `general.preferredEditor "notepad" is not an editor Castor knows`},
		{"code", []string{"code"}, nil, "not an editor Castor knows"},
	}
	for _, tt := range tests {
		lookPath := func(c string) (string, error) {
			if slices.Contains(tt.installed, c) {
				return "/usr/bin/" + c, nil
			}
			return "", errors.New("not found")
		}
		got, err := preferredEditorArgv(tt.name, lookPath)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s %v: err %v, want %q", tt.name, tt.installed, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s %v: %q, %v; want %q", tt.name, tt.installed, got, err, tt.want)
		}
	}
}

// TestPreferredEditorNames keeps the editor names and the settings
// validation's list the same.
func TestPreferredEditorNames(t *testing.T) {
	var names []string
	for n := range guiEditors.Get() {
		names = append(names, n)
	}
	for n := range terminalEditors.Get() {
		names = append(names, n)
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(config.PreferredEditors))
	if !slices.Equal(names, want) {
		t.Errorf("editors %v, settings allow %v", names, want)
	}
}
