package tui

import (
	"fmt"
	"os/exec"
	"slices"

	"github.com/castor-dev/castor/internal/lazy"
)

// guiEditors and terminalEditors are the names general.preferredEditor
// takes (Gemini CLI's editor types), with the commands each may be run
// as, in order of preference: the first one installed among all but the
// last, else the last, as Gemini CLI picks them.
var (
	guiEditors = lazy.Value[map[string][]string]{New: func() map[string][]string {
		return map[string][]string{
			"vscode":      {"code"},
			"vscodium":    {"codium"},
			"windsurf":    {"windsurf"},
			"cursor":      {"cursor"},
			"zed":         {"zed", "zeditor"},
			"antigravity": {"agy", "antigravity"},
			"sublimetext": {"subl"},
			"lapce":       {"lapce"},
			"nova":        {"nova"},
			"bbedit":      {"bbedit"},
		}
	}}
	terminalEditors = lazy.Value[map[string][]string]{New: func() map[string][]string {
		return map[string][]string{
			"vim":         {"vim"},
			"neovim":      {"nvim"},
			"emacs":       {"emacs"},
			"hx":          {"hx"},
			"emacsclient": {"emacsclient"},
			"micro":       {"micro"},
		}
	}}
)

// editorWaitFlags are the GUI editors whose flag for "return when the file
// is closed" is not --wait.
var editorWaitFlags = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"sublimetext": "-w"}
}}

// editorExtraArgs go before the file: emacsclient stays in the terminal.
var editorExtraArgs = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{"emacsclient": {"-nw"}}
}}

// preferredEditorArgv is the command line, without the file, that opens a
// file in the editor general.preferredEditor names and returns once it is
// closed: a GUI editor gets its wait flag (vscode: code --wait). It fails
// for a name Gemini CLI does not know and for an editor none of whose
// commands lookPath finds, the cases where Gemini CLI asks for another
// editor instead.
func preferredEditorArgv(name string, lookPath func(string) (string, error)) ([]string, error) {
	cmds, gui := guiEditors.Get()[name]
	if !gui {
		var ok bool
		if cmds, ok = terminalEditors.Get()[name]; !ok {
			return nil, fmt.Errorf("general.preferredEditor %q is not an editor Castor knows", name)
		}
	}
	found := slices.IndexFunc(cmds, func(c string) bool {
		_, err := lookPath(c)
		return err == nil
	})
	if found < 0 {
		return nil, fmt.Errorf("general.preferredEditor %q: %s is not installed", name, cmds[len(cmds)-1])
	}
	argv := []string{cmds[found]}
	argv = append(argv, editorExtraArgs.Get()[name]...)
	if gui {
		wait := "--wait"
		if f, ok := editorWaitFlags.Get()[name]; ok {
			wait = f
		}
		argv = append(argv, wait)
	}
	return argv, nil
}

// preferredEditor is the command line of general.preferredEditor, or nil
// when it is not set or cannot be used (said as a warning): $VISUAL or
// $EDITOR is used then.
func (m *model) preferredEditor() []string {
	if m.agent == nil || m.agent.Settings == nil || m.agent.Settings.General.PreferredEditor == "" {
		return nil
	}
	argv, err := preferredEditorArgv(m.agent.Settings.General.PreferredEditor, exec.LookPath)
	if err != nil {
		m.printNotice(noticeWarn, err.Error()+"; using $VISUAL or $EDITOR")
		return nil
	}
	return argv
}
