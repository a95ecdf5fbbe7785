package config

// PreferredEditors are the values general.preferredEditor takes: Gemini
// CLI's editor names (its schema refuses any other). The terminal UI maps
// each to a command.
var PreferredEditors = []string{
	"vscode", "vscodium", "windsurf", "cursor", "zed", "antigravity",
	"sublimetext", "lapce", "nova", "bbedit",
	"vim", "neovim", "emacs", "hx", "emacsclient", "micro",
}
