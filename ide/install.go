package ide

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// CompanionExtensionID is the VS Code Marketplace id of Gemini CLI's
// companion extension, which Castor uses as its own.
const CompanionExtensionID = "Google.gemini-cli-vscode-ide-companion"

// InstallOptions configures Install. Zero values mean the real process
// environment.
type InstallOptions struct {
	// Getenv replaces os.Getenv.
	Getenv func(string) string
	// LookPath replaces exec.LookPath (tests put a fake `code` there).
	LookPath func(string) (string, error)
}

// Install installs the IDE companion into the IDE whose terminal runs
// Castor, as Gemini CLI's /ide install does: VS Code gets the companion
// extension through its `code` command. No other editor has an installer
// (their companion is a plugin running `castor ide serve`), so for them
// the error says what to do instead. The message says what happened and
// what the user does next.
func Install(ctx context.Context, o InstallOptions) (string, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	lookPath := o.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	info := detectIDE(getenv)
	if info.Name != "vscode" {
		where := "this terminal's editor"
		if info.Name != "ide" {
			where = info.DisplayName
		}
		return "", fmt.Errorf("no installer for %s: /ide install installs the VS Code companion, run from VS Code's terminal; in other editors, have a plugin run `castor ide serve` (see ide/PROTOCOL.md)", where)
	}
	command := "code"
	if runtime.GOOS == "windows" {
		command = "code.cmd"
	}
	bin, err := lookPath(command)
	if err != nil {
		return "", fmt.Errorf("VS Code's %q command is not on PATH (VS Code: Command Palette, \"Shell Command: Install 'code' command in PATH\"); or install the \"Gemini CLI Companion\" extension from the Extensions view", command)
	}
	out, err := exec.CommandContext(ctx, bin, "--install-extension", CompanionExtensionID, "--force").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --install-extension %s failed: %v: %s", command, CompanionExtensionID, err, strings.TrimSpace(string(out)))
	}
	return "Installed the Gemini CLI Companion extension in VS Code. Open a new terminal in VS Code (so it gets the companion's variables) and start Castor there with IDE mode on (/ide enable).", nil
}
