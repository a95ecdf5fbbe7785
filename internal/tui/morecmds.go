package tui

import (
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/policy"
)

// More of Gemini CLI 0.61's slash commands: /agents, /policies, /editor,
// /privacy, /bug, /docs, /terminal-setup, /commands, /shortcuts; and the
// ones that cannot apply to Castor, each said in one line.

// commandAliases are Gemini CLI's other names of commands.
var commandAliases = map[string]string{
	"?": "help", "dir": "directory", "new": "clear", "summarize": "compress", "compact": "compress", "usage": "stats",
}

// notHere are Gemini CLI 0.61 commands with no meaning in Castor, and why.
var notHere = map[string]string{
	"upgrade":      "Code Assist tiers are upgraded on Google's site, which Castor does not open",
	"setup-github": "Castor ships no GitHub workflows to install",
	"corgi":        "Castor has no corgi",
	"footer":       "Castor's footer is fixed (directory, model, mode, sandbox, MCP, IDE)",
	"statusline":   "Castor's footer is fixed (directory, model, mode, sandbox, MCP, IDE)",
	"profile":      "Castor has no profiler view; bench/ measures it",
	"tasks":        "Castor runs no background tasks",
	"bg":           "Castor runs no background tasks",
	"background":   "Castor runs no background tasks",
	"shells":       "Castor runs no background shells",
	"bashes":       "Castor runs no background shells",
	"voice":        "Castor has no voice input",
	"oncall":       "it is Google's internal triage tool",
	"gemma":        "Castor does not run local Gemma models",
	"bug-memory":   "Castor has no Node.js heap to snapshot",
	"export":       "the session is already recorded as JSONL under ~/.gemini/tmp (castor --resume reads it)",
	"plan":         "plan mode is not in this build",
	"rewind":       "rewind is not in this build",
}

func (m *model) cmdAgents(args []string) tea.Cmd {
	if len(args) > 0 && args[0] != "list" {
		m.printNotice(noticeInfo, "/agents "+args[0]+" is not available: Castor reads agent definitions at start (.gemini/agents/*.md); edit them and start again.")
		return nil
	}
	defs := m.agent.SubagentDefinitions()
	if len(defs) == 0 {
		m.printNotice(noticeInfo, "No agents are defined. Add Markdown definitions under .gemini/agents/ (or ~/.gemini/agents/) and start again.")
		return nil
	}
	var b strings.Builder
	b.WriteString(m.theme.title.Render("Local agents") + "\n")
	for _, d := range defs {
		name := d.Name
		if d.DisplayName != "" && d.DisplayName != d.Name {
			name += " (" + d.DisplayName + ")"
		}
		b.WriteString(m.column(fmt.Sprintf("  %-16s ", termtext.String(name)), termtext.String(firstLine(d.Description))) + "\n")
		if d.File != "" {
			b.WriteString(m.theme.dim.Render("    "+homeRelative(d.File)) + "\n")
		}
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return nil
}

// policyModes are the modes /policies groups rules by, with Gemini CLI's
// headings.
var policyModes = []struct {
	mode  policy.Mode
	title string
}{
	{policy.ModeDefault, "Normal mode policies"},
	{policy.ModeAutoEdit, "Auto Edit mode policies"},
	{policy.ModeYolo, "YOLO mode policies"},
	{policy.ModePlan, "Plan mode policies"},
}

func (m *model) cmdPolicies(args []string) tea.Cmd {
	if len(args) > 0 && args[0] != "list" {
		m.printNotice(noticeInfo, "/policies "+args[0]+" is not available: policies are TOML files under ~/.gemini/policies and .gemini/policies; edit them and start again.")
		return nil
	}
	rules := m.agent.Policy.Rules()
	if len(rules) == 0 {
		m.printNotice(noticeInfo, "No policies loaded. Policy files go in ~/.gemini/policies/*.toml (user) and .gemini/policies/*.toml (workspace).")
		return nil
	}
	var b strings.Builder
	cur := m.agent.Policy.Mode()
	for _, pm := range policyModes {
		var rows []string
		for _, r := range rules {
			if ms := r.Modes(); len(ms) == 0 || slices.Contains(ms, pm.mode) {
				rows = append(rows, "  "+termtext.String(r.String()))
			}
		}
		title := pm.title
		if pm.mode == cur {
			title += " (current)"
		}
		b.WriteString(m.theme.title.Render(title) + "\n")
		if len(rows) == 0 {
			rows = []string{m.theme.dim.Render("  none")}
		}
		b.WriteString(strings.Join(rows, "\n") + "\n\n")
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return nil
}

// cmdEditor is /editor: a picker of the editors Gemini CLI knows, the
// ones not installed said so; the choice is general.preferredEditor in
// the user's settings, used at once.
func (m *model) cmdEditor([]string) tea.Cmd {
	var names []string
	for _, set := range []map[string][]string{guiEditors, terminalEditors} {
		for k := range set {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	cur := m.agent.Settings.General.PreferredEditor
	items := make([]pickItem, 0, len(names))
	sel := 0
	for _, n := range names {
		desc := "terminal"
		if _, gui := guiEditors[n]; gui {
			desc = "GUI"
		}
		if _, err := preferredEditorArgv(n, exec.LookPath); err != nil {
			desc += ", not installed"
		}
		if n == cur {
			sel = len(items)
		}
		items = append(items, pickItem{label: n, desc: desc})
	}
	note := "Used to change proposed edits and prompts (Ctrl+G). Now: $VISUAL or $EDITOR."
	if cur != "" {
		note = "Used to change proposed edits and prompts (Ctrl+G). Now: " + cur + "."
	}
	m.pick(&picker{title: "Select Editor", note: note, items: items, sel: sel, choose: func(m *model, it pickItem) tea.Cmd {
		path := m.agent.Home.SettingsPath()
		if err := config.UpdateFile(path, "general.preferredEditor", it.label); err != nil {
			m.printNotice(noticeError, err.Error())
			return nil
		}
		m.agent.Settings.General.PreferredEditor = it.label
		m.printNotice(noticeInfo, "Editor preference set to "+it.label+" in "+homeRelative(path)+".")
		return nil
	}})
	return nil
}

// cmdPrivacy is /privacy: which terms govern the data sent, by the auth
// type in use, as Gemini CLI's privacy notice says; Castor itself sends
// no usage statistics.
func (m *model) cmdPrivacy([]string) tea.Cmd {
	sel, _ := oauth.SelectAuthType(m.agent.Settings.Security.Auth.SelectedType, "", m.agent.Env.Getenv)
	var text string
	switch sel.Type {
	case oauth.VertexAI:
		text = "Vertex AI: your prompts and answers are governed by the Google Cloud Platform Terms of Service and its Service Specific Terms (https://cloud.google.com/terms)."
	case oauth.LoginWithGoogle, oauth.ComputeADC, oauth.CloudShell:
		text = "Gemini Code Assist: your prompts and answers are governed by the Gemini Code Assist Privacy Notice (https://developers.google.com/gemini-code-assist/resources/privacy-notice-gemini-code-assist-individuals)."
	default:
		text = "Gemini API key: your prompts and answers are governed by the Gemini API Terms of Service (https://ai.google.dev/gemini-api/terms); on the unpaid tier Google may use them to improve its products."
	}
	m.print(m.theme.title.Render("Privacy notice"))
	m.print(wrapWords(text, max(m.width-1, 20), ""))
	m.print(m.theme.dim.Render("Castor sends no usage statistics or telemetry of its own."))
	m.print("")
	return nil
}

// castorIssues is where Castor's bugs are reported.
const castorIssues = "https://github.com/castor-dev/castor/issues/new"

// cmdBug is /bug: a report prefilled with the versions and the setup, to
// paste into a new issue; nothing is sent over the network. It is printed
// and copied to the clipboard.
func (m *model) cmdBug(args []string) tea.Cmd {
	title := strings.TrimSpace(strings.Join(args, " "))
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "Title: %s\n\n", title)
	}
	b.WriteString("What happened:\n\nWhat I expected:\n\nSteps to reproduce:\n\n")
	fmt.Fprintf(&b, "Castor version: %s\n", version.Version)
	fmt.Fprintf(&b, "Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "Model: %s\n", m.modelID)
	if m.agent != nil {
		sel, _ := oauth.SelectAuthType(m.agent.Settings.Security.Auth.SelectedType, "", m.agent.Env.Getenv)
		fmt.Fprintf(&b, "Auth: %s\n", orNone(string(sel.Type)))
		fmt.Fprintf(&b, "Session: %s\n", m.agent.Session.ID())
	}
	fmt.Fprintf(&b, "Sandbox: %s\n", orNone(m.cfg.Sandbox))
	fmt.Fprintf(&b, "Terminal: TERM=%s TERM_PROGRAM=%s, %dx%d\n", getenv(m.cfg.Environ, "TERM"), getenv(m.cfg.Environ, "TERM_PROGRAM"), m.width, m.height)
	m.print(m.theme.title.Render("Bug report") + m.theme.dim.Render(" (copied to the clipboard; paste it into "+castorIssues+")"))
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return tea.SetClipboard(b.String())
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// castorDocs is Castor's documentation.
const castorDocs = "https://github.com/castor-dev/castor/tree/main/docs"

func (m *model) cmdDocs([]string) tea.Cmd {
	m.printNotice(noticeInfo, "Castor's documentation: "+castorDocs+" (also in docs/ of its source).")
	return nil
}

// cmdTerminalSetup is /terminal-setup. Gemini CLI writes Shift+Enter
// keybindings into VS Code-like editors' settings; Castor reads
// Shift+Enter wherever the terminal reports it (the kitty keyboard
// protocol) and offers Ctrl-J and Alt-Enter everywhere, so it says which
// applies here rather than editing another program's files.
func (m *model) cmdTerminalSetup([]string) tea.Cmd {
	prog := getenv(m.cfg.Environ, "TERM_PROGRAM")
	text := "New lines: Ctrl-J and Alt-Enter work in every terminal; Shift-Enter where the terminal reports it (kitty, WezTerm, foot, Ghostty, iTerm2 with CSI u)."
	switch strings.ToLower(prog) {
	case "vscode":
		text += ` In VS Code, Cursor or Windsurf, add to keybindings.json: {"key": "shift+enter", "command": "workbench.action.terminal.sendSequence", "args": {"text": "\u001b\r"}, "when": "terminalFocus"}.`
	case "":
	default:
		text += " This terminal: " + prog + "."
	}
	m.printNotice(noticeInfo, text)
	return nil
}

// cmdCommands is /commands: the custom commands of this session. They
// are read again when their files change, so reload has nothing to do.
func (m *model) cmdCommands(args []string) tea.Cmd {
	if len(args) > 0 && args[0] != "list" {
		m.printNotice(noticeInfo, "/commands "+args[0]+": custom commands are read again when their .toml files change; nothing to reload.")
		return nil
	}
	fc := m.agent.FileCommands()
	if len(fc) == 0 {
		m.printNotice(noticeInfo, "No custom commands. Add .toml files under ~/.gemini/commands/ or .gemini/commands/.")
		return nil
	}
	names := make([]string, 0, len(fc))
	for n := range fc {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(m.theme.title.Render("Custom commands") + "\n")
	for _, n := range names {
		c := fc[n]
		b.WriteString(m.column(fmt.Sprintf("  /%-16s ", termtext.String(n)), termtext.String(firstLine(c.Description))+m.theme.dim.Render(" ("+c.Scope+")")) + "\n")
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return nil
}

// cmdShortcuts is /shortcuts: the ? panel.
func (m *model) cmdShortcuts([]string) tea.Cmd {
	m.overlay = m.shortcuts()
	return nil
}
