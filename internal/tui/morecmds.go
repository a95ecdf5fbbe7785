package tui

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/policy"
)

// More of Gemini CLI 0.61's slash commands: /agents, /policies, /editor,
// /privacy, /bug, /docs, /terminal-setup, /commands, /shortcuts; and the
// ones that cannot apply to Castor, each said in one line.

// commandAliases are Gemini CLI's other names of commands.
var commandAliases = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"?": "help", "dir": "directory", "new": "clear", "summarize": "compress", "compact": "compress", "usage": "stats", "bashes": "shells",
	}
}}

// notHere are Gemini CLI 0.61 commands with no meaning in Castor, and why.
var notHere = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"upgrade":      "Code Assist tiers are upgraded on Google's site, which Castor does not open",
		"setup-github": "Castor ships no GitHub workflows to install",
		"corgi":        "Castor has no corgi",
		"footer":       "Castor's footer is fixed (directory, model, mode, sandbox, MCP, IDE)",
		"statusline":   "Castor's footer is fixed (directory, model, mode, sandbox, MCP, IDE)",
		"profile":      "Castor has no profiler view; bench/ measures it",
		"tasks":        "Castor runs no background tasks",
		"bg":           "Castor runs no background tasks",
		"background":   "Castor runs no background tasks",
		"voice":        "Castor has no voice input",
		"oncall":       "it is Google's internal triage tool",
		"gemma":        "Castor does not run local Gemma models",
		"bug-memory":   "Castor has no Node.js heap to snapshot",
		"export":       "the session is already recorded as JSONL under ~/.gemini/tmp (castor --resume reads it)",
		"plan":         "plan mode is not in this build",
		"rewind":       "rewind is not in this build",
	}
}}

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
	if len(args) > 0 {
		switch args[0] {
		case "list":
		case "add":
			m.policiesAdd(args[1:])
			return nil
		case "remove", "rm":
			m.policiesRemove(args[1:])
			return nil
		default:
			m.printNotice(noticeWarn, "Usage: /policies [list], /policies add <allow|deny|ask_user> <tool> [command prefix], /policies remove <number>")
			return nil
		}
	}
	rules := m.agent.Policy.Rules()
	if len(rules) == 0 {
		m.printNotice(noticeInfo, "No policies loaded. Policy files go in ~/.gemini/policies/*.toml; /policies add <allow|deny|ask_user> <tool> [command prefix] writes one.")
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
	if own, _ := policy.FileRules(m.userPoliciesDir()); len(own) > 0 {
		b.WriteString(m.theme.title.Render("Your rules ("+homeRelative(m.userPoliciesDir())+"; /policies remove <number>)") + "\n")
		for i, r := range own {
			fmt.Fprintf(&b, "  %d. %s (%s)\n", i+1, termtext.String(r.Summary), filepath.Base(r.File))
		}
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return nil
}

// userPoliciesDir is the user's policy folder, where Gemini CLI writes
// its auto-saved rules and /policies add writes.
func (m *model) userPoliciesDir() string { return filepath.Join(m.agent.Home.Dir, "policies") }

// policiesAdd is /policies add <decision> <tool> [command prefix]: a rule
// in the user's auto-saved.toml (Gemini CLI 0.61 reads no workspace
// policies), applied at once.
func (m *model) policiesAdd(args []string) {
	if len(args) < 2 {
		m.printNotice(noticeWarn, "Usage: /policies add <allow|deny|ask_user> <tool> [command prefix], for example /policies add deny run_shell_command rm -rf")
		return
	}
	r := policy.NewRule{Decision: args[0], ToolName: args[1], CommandPrefix: strings.Join(args[2:], " "), Priority: policyAddPriority}
	if r.CommandPrefix != "" && r.ToolName != "run_shell_command" {
		m.printNotice(noticeWarn, "A command prefix narrows run_shell_command rules only.")
		return
	}
	path := filepath.Join(m.userPoliciesDir(), policy.AutoSavedFile)
	if err := policy.AddFileRule(path, r); err != nil {
		m.printNotice(noticeError, err.Error())
		return
	}
	m.reloadPolicyFile(path)
	m.printNotice(noticeInfo, fmt.Sprintf("Policy rule added, in force now: %s %s%s (priority %d, %s).", r.Decision, r.ToolName, prefixNote(r.CommandPrefix), r.Priority, homeRelative(path)))
}

// policyAddPriority is the priority of the rules /policies add writes,
// the one Gemini CLI's policy documentation writes its examples with.
const policyAddPriority = 100

func prefixNote(p string) string {
	if p == "" {
		return ""
	}
	return " " + strconv.Quote(p)
}

// policiesRemove is /policies remove <number>, a number of the user's
// rules as /policies lists them.
func (m *model) policiesRemove(args []string) {
	own, err := policy.FileRules(m.userPoliciesDir())
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return
	}
	n := 0
	if len(args) == 1 {
		n, _ = strconv.Atoi(args[0])
	}
	if n < 1 || n > len(own) {
		m.printNotice(noticeWarn, fmt.Sprintf("Usage: /policies remove <number>, a number of your rules (%d) as /policies lists them.", len(own)))
		return
	}
	r := own[n-1]
	if err := policy.RemoveFileRule(r.File, r.Index); err != nil {
		m.printNotice(noticeError, err.Error())
		return
	}
	m.reloadPolicyFile(r.File)
	m.printNotice(noticeInfo, fmt.Sprintf("Policy rule removed, no longer in force: %s (%s).", termtext.String(r.Summary), homeRelative(r.File)))
}

// reloadPolicyFile gives the session the rules the file now holds.
func (m *model) reloadPolicyFile(path string) {
	rules, errs := policy.LoadRules(path, policy.TierUser)
	for _, err := range errs {
		m.printNotice(noticeWarn, err.Error())
	}
	m.agent.Policy.ReplaceRules(path, rules)
}

// cmdEditor is /editor: a picker of the editors Gemini CLI knows, the
// ones not installed said so; the choice is general.preferredEditor in
// the user's settings, used at once.
func (m *model) cmdEditor([]string) tea.Cmd {
	var names []string
	for _, set := range []map[string][]string{guiEditors.Get(), terminalEditors.Get()} {
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
		if _, gui := guiEditors.Get()[n]; gui {
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
