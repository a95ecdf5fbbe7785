package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/internal/version"
)

// terminalCommands are the slash commands that need the terminal or the
// live session (clear the screen, quit, read the session's stats). They
// are registered in the session's registry (setup.Agent.Commands) beside
// the commands every face runs alike (memory, init, restore, extensions,
// MCP prompts, custom commands), marked command.FaceTerminal, their
// Execute the terminal's action: the registry is the one table the
// terminal dispatches, lists in /help and completes from. Same-named
// commands there give way to them, as they did when they sat in front.
// Until the session is assembled they are the whole table (m.commands).
func (m *model) terminalCommands() []*command.Command {
	cmd := func(name, desc string, session bool, run func(m *model, args []string) tea.Cmd) *command.Command {
		return &command.Command{Name: name, Description: desc, Faces: command.FaceTerminal,
			Execute: func(_ context.Context, inv *command.Invocation) (*command.Result, error) {
				if session && m.agent == nil {
					m.printNotice(noticeWarn, "Castor is still starting; try again in a moment.")
					return nil, nil
				}
				return &command.Result{Kind: command.ResultAction, Action: run(m, inv.Args)}, nil
			}}
	}
	quit := func(m *model, _ []string) tea.Cmd { return m.quit() }
	return []*command.Command{
		cmd("help", "Show the commands and keys.", false, (*model).cmdHelp),
		cmd("quit", "Exit Castor.", false, quit),
		cmd("exit", "Exit Castor.", false, quit),
		cmd("clear", "Clear the screen and start the conversation afresh.", true, (*model).cmdClear),
		cmd("stats", "Show the session's statistics.", true, (*model).cmdStats),
		cmd("tools", "List the tools the model may call.", true, (*model).cmdTools),
		cmd("model", "Show the model in use, or switch to another one.", false, (*model).cmdModel),
		cmd("about", "Show version information.", false, (*model).cmdAbout),
		cmd("copy", "Copy the last answer to the clipboard.", false, (*model).cmdCopy),
		cmd("theme", "Change the theme.", false, (*model).cmdTheme), // themes.go
		cmd("chat", "Save, resume, list or delete conversation checkpoints.", true, (*model).cmdChat),
		cmd("resume", "List the recorded sessions of this project, or switch to one.", true, (*model).cmdResume),
		cmd("compress", "Compresses the context by replacing it with a summary.", true, (*model).cmdCompress),
		cmd("mcp", "List the MCP servers and their status.", true, (*model).cmdMCP),
		cmd("ide", "Show the IDE connection; enable or disable IDE mode.", true, (*model).cmdIDE),
		cmd("directory", "Add or show workspace directories.", true, (*model).cmdDirectory),
		cmd("auth", "Change the auth method.", false, (*model).cmdAuth),
		cmd("vim", "Toggle vim mode for the input.", false, (*model).cmdVim), // vim.go
		// morecmds.go
		cmd("agents", "List the subagents the model may call.", true, (*model).cmdAgents),
		cmd("policies", "List the policy rules in force; add or remove your own.", true, (*model).cmdPolicies),
		cmd("editor", "Set the external editor.", true, (*model).cmdEditor),
		cmd("privacy", "Show the privacy notice.", true, (*model).cmdPrivacy),
		cmd("bug", "Prepare a bug report (copied, not sent).", false, (*model).cmdBug),
		cmd("docs", "Show where Castor's documentation is.", false, (*model).cmdDocs),
		cmd("terminal-setup", "Say how to type new lines in this terminal.", false, (*model).cmdTerminalSetup),
		cmd("commands", "List the custom commands.", true, (*model).cmdCommands),
		cmd("shortcuts", "Show the keyboard shortcuts.", false, (*model).cmdShortcuts),
		cmd("shells", "Toggle the background shells view.", true, func(m *model, _ []string) tea.Cmd { return m.toggleBackground() }), // bgshell.go
		cmd("settings", "View and edit Castor's settings.", true, (*model).cmdSettings),                                               // settingsdialog.go
		cmd("permissions", "Manage folder trust settings and other permissions", true, (*model).cmdPermissions),                       // trustdialog.go
		cmd("rewind", "Jump back to a specific message and restart the conversation", true, (*model).cmdRewind),                       // rewind.go
	}
}

// commands is the table the terminal reads: the session's registry once
// it is assembled, holding the terminal's commands (put back if a
// same-named command replaced one, since the terminal's win, as they did
// when they sat in front of the registry); before, the terminal's
// commands alone.
func (m *model) commands() *command.Registry {
	if m.bootCommands == nil {
		m.bootCommands = command.NewRegistry(m.terminalCommands()...)
	}
	if m.agent == nil || m.agent.Commands == nil {
		return m.bootCommands
	}
	reg := m.agent.Commands
	for _, c := range m.bootCommands.Commands() {
		if have, _, _ := reg.Lookup(c.Name); have != c {
			reg.Register(c)
		}
	}
	return reg
}

type cmdEntry struct{ name, desc string }

// allCommands lists the commands the terminal offers, sorted.
func (m *model) allCommands() []cmdEntry {
	var out []cmdEntry
	for _, c := range m.commands().CommandsFor(command.FaceTerminal) {
		out = append(out, cmdEntry{c.Name, c.Description})
	}
	return out
}

type commandDoneMsg struct {
	line string
	res  *command.Result
	err  error
}

func (m *model) runCommand(line string) tea.Cmd {
	words := strings.Fields(strings.TrimPrefix(line, "/"))
	if len(words) == 0 {
		return nil
	}
	if name, ok := commandAliases.Get()[words[0]]; ok {
		words[0] = name
		line = "/" + strings.Join(words, " ")
	}
	c, _, _ := m.commands().Lookup(words[0])
	if c != nil && c.Faces == command.FaceTerminal && c.Execute != nil {
		// The terminal's own: it touches the screen, so it runs here,
		// on the event loop.
		res, err := c.Execute(m.ctx, &command.Invocation{Path: words[:1], Args: words[1:]})
		if err == nil && res != nil && res.Kind == command.ResultAction {
			act, _ := res.Action.(tea.Cmd)
			return act
		}
		return m.onCommandDone(commandDoneMsg{line: line, res: res, err: err})
	}
	if m.agent == nil {
		m.printNotice(noticeWarn, "Castor is still starting; try again in a moment.")
		return nil
	}
	if why, ok := notHere.Get()[words[0]]; ok && c == nil {
		m.printNotice(noticeInfo, "/"+words[0]+" is not available in Castor: "+why+".")
		return nil
	}
	if c == nil || !c.OfferedIn(command.FaceTerminal) {
		msg := "Unknown command: /" + words[0] + ". Type /help for the list."
		if m.mcpWaiting {
			// It may be a prompt of a server not in yet.
			msg += " (MCP servers are still connecting: their prompts are not commands yet.)"
		}
		m.printNotice(noticeError, msg)
		return nil
	}
	a, send := m.agent, m.send
	env := command.Env{Workspace: a.Workspace.Root(), HomeDir: m.cfg.Options.HomeDir, Trusted: a.Trusted}
	ctx := m.ctx
	go func() {
		res, err := a.Commands.RunLine(ctx, line, env)
		send(commandDoneMsg{line: line, res: res, err: err})
	}()
	return nil
}

func (m *model) onCommandDone(msg commandDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.printNotice(noticeError, msg.err.Error())
		return nil
	}
	r := msg.res
	if r == nil {
		return nil
	}
	switch r.Kind {
	case command.ResultSubmitPrompt:
		return m.submit(r.Content, true)
	case command.ResultAction:
		if c, ok := r.Action.(command.Clipboard); ok { // /plan copy
			m.printNotice(noticeInfo, c.Notice)
			return tea.SetClipboard(c.Text)
		}
	case command.ResultData:
		if s, ok := r.Data.(string); ok {
			m.printNotice(noticeInfo, s)
			break
		}
		if s, ok := dataText(r.Data); ok {
			m.print(termtext.String(s))
			break
		}
		b, err := json.MarshalIndent(r.Data, "", "  ")
		if err != nil {
			m.printNotice(noticeError, err.Error())
			break
		}
		m.print(termtext.String(string(b)))
	default:
		if r.MessageType == command.MessageError {
			m.printNotice(noticeError, r.Content)
		} else {
			m.print(termtext.String(r.Content))
		}
	}
	m.print("")
	return nil
}

// keys is the key list of /help and the README.
var keys = [][2]string{
	{"Enter", "send the message (queued while a turn runs)"},
	{"Ctrl-J, Alt-Enter, Shift-Enter", "new line"},
	{"Up, Down, Ctrl-P, Ctrl-N", "previous and next input (per project); Up edits queued prompts"},
	{"Ctrl-R", "search the input history"},
	{"Tab", "complete a /command or an @path; queue the prompt while a turn runs; Tab Tab hides the footer"},
	{"Tab, Shift-Tab (Ctrl-F)", "into a running command's terminal and back"},
	{"Esc", "cancel the running request; remove a queued prompt; close a list"},
	{"Esc Esc", "clear the input; on an empty one, rewind"},
	{"Shift-Tab", "cycle the approval mode: default, auto-accept edits, plan"},
	{"Ctrl-Y", "turn YOLO mode (no approvals) on or off"},
	{"Ctrl-G", "edit the prompt in the external editor"},
	{"Ctrl-O", "expand or fold a paste, else show the last tool output"},
	{"Ctrl-L", "clear the screen"},
	{"Ctrl-B", "background shells (Ctrl-K kills one, Ctrl-L lists them)"},
	{"Ctrl-T", "show or fold the model's TODO list"},
	{"Ctrl-V", "paste the clipboard (an image as an @path)"},
	{"Ctrl-Z, Alt-Z", "undo in the input; with nothing to undo, suspend Castor (fg resumes it)"},
	{"Ctrl-Shift-Z, Alt-Shift-Z", "redo in the input"},
	{"?", "show the shortcuts (on an empty input)"},
	{"Ctrl-C", "clear the input; twice to quit"},
	{"Ctrl-D", "quit (on an empty input)"},
	{"!command", "run a shell command; it and its output join the conversation"},
	{"@path", "include a file or directory in the prompt"},
}

func (m *model) cmdHelp([]string) tea.Cmd {
	var b strings.Builder
	b.WriteString(m.theme.title.Render("Commands") + "\n")
	for _, c := range m.allCommands() {
		b.WriteString(m.column(fmt.Sprintf("  /%-15s ", c.name), termtext.String(firstLine(c.desc))) + "\n")
	}
	b.WriteString("\n" + m.theme.title.Render("Keys") + "\n")
	for _, k := range keys {
		b.WriteString(m.column(fmt.Sprintf("  %-32s ", k[0]), k[1]) + "\n")
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return nil
}

// column is a row of a two-column list: text wraps under its own column
// rather than under the label, while there is room for it.
func (m *model) column(label, text string) string {
	room := m.width - 1 - ansi.StringWidth(label)
	if room < 20 || ansi.StringWidth(text) <= room {
		return label + text
	}
	return label + strings.TrimLeft(wrapWords(text, room, strings.Repeat(" ", ansi.StringWidth(label))), " ")
}

func (m *model) cmdClear([]string) tea.Cmd {
	if m.running {
		m.cancelTurn()
	}
	if err := m.agent.Session.SetHistory(nil); err != nil {
		m.printNotice(noticeError, err.Error())
	}
	m.promptTokens = 0
	m.todos = todoTray{} // Gemini CLI's tray is read from the history cleared
	// Bubble Tea's ClearScreen only redraws the live area when inline, so
	// the conversation stayed on screen: the screen and the scrollback
	// are cleared here, as Gemini CLI does, the cursor left at the top
	// left, where ClearScreen then draws the whole live area again.
	// The echoed "/clear" and anything not yet printed go too.
	m.out = m.out[:0]
	// Nor is anything printed before drawn again after a resize.
	m.shown, m.redraw = nil, nil
	return tea.Sequence(tea.Raw(ansi.CursorHomePosition+ansi.EraseEntireScreen+ansi.EraseEntireDisplay), tea.ClearScreen)
}

func (m *model) cmdStats([]string) tea.Cmd {
	st := m.agent.Session.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", m.theme.title.Render("Session "+m.agent.Session.ID()))
	names := make([]string, 0, len(st.Models))
	for n := range st.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ms := st.Models[n]
		fmt.Fprintf(&b, "  %s: %d requests (%d errors), %d input tokens, %d output tokens, %d cached\n",
			n, ms.API.TotalRequests, ms.API.TotalErrors, ms.Tokens.Prompt, ms.Tokens.Candidates, ms.Tokens.Cached)
	}
	fmt.Fprintf(&b, "  Tool calls: %d (%d succeeded, %d failed)\n", st.Tools.TotalCalls, st.Tools.TotalSuccess, st.Tools.TotalFail)
	fmt.Fprintf(&b, "  Lines changed: +%d -%d", st.Files.TotalLinesAdded, st.Files.TotalLinesRemoved)
	m.costLines(&b) // cost.go
	m.print(b.String())
	m.print("")
	return nil
}

func (m *model) cmdTools([]string) tea.Cmd {
	var b strings.Builder
	b.WriteString(m.theme.title.Render("Tools") + "\n")
	for _, t := range m.agent.Session.Tools().Tools() {
		fmt.Fprintf(&b, "  %-20s %s\n", termtext.String(t.DisplayName()), m.theme.dim.Render("("+termtext.String(t.Name())+")"))
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return nil
}

// modelChoices are the aliases /model offers, as Gemini CLI's model
// dialog does; any other model name is accepted as given.
var modelChoices = []string{routing.Auto, "pro", "flash", "flash-lite"}

func (m *model) cmdModel(args []string) tea.Cmd {
	if len(args) == 0 {
		// A picker, as Gemini CLI's model dialog; any other model is
		// named with /model <name>.
		var items []pickItem
		sel := 0
		for _, c := range modelChoices {
			what := routing.Resolve(c, false)
			if c == routing.Auto {
				what = "routed per prompt to " + routing.ProModel + " or " + routing.FlashModel
			}
			if c == m.modelID {
				sel = len(items)
			}
			items = append(items, pickItem{label: c, desc: what})
		}
		items = m.providerChoices(items, &sel) // cost.go
		if !slices.ContainsFunc(items, func(it pickItem) bool { return it.label == m.modelID }) && m.modelID != "" {
			sel = len(items)
			items = append(items, pickItem{label: m.modelID, desc: "in use"})
		}
		m.pick(&picker{title: "Select Model", note: "Current: " + m.modelID + ". Any other model: /model <name>.", items: items, sel: sel,
			choose: func(m *model, it pickItem) tea.Cmd { return m.cmdModel([]string{it.label}) }})
		return nil
	}
	name := args[0]
	if len(args) > 1 {
		m.printNotice(noticeError, "Usage: /model <auto|pro|flash|flash-lite|model name>")
		return nil
	}
	if m.agent == nil {
		m.printNotice(noticeWarn, "Castor is still starting; try again in a moment.")
		return nil
	}
	if err := m.agent.CheckModel(name); err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	// The session asks for the name as given: the router in front of the
	// transport resolves aliases (and routes auto) per request.
	m.agent.Session.SetModel(name)
	m.modelID = name
	text := "Model set to " + name
	if routing.IsAlias(name) && name != routing.Auto {
		text += " (" + routing.Resolve(name, false) + ")"
	}
	m.printNotice(noticeInfo, text+" from the next request on.")
	return nil
}

func (m *model) cmdAbout([]string) tea.Cmd {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", m.theme.title.Render("About Castor"))
	fmt.Fprintf(&b, "  Version   %s\n", version.Version)
	fmt.Fprintf(&b, "  Go        %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "  Model     %s\n", m.modelID)
	if m.agent != nil {
		fmt.Fprintf(&b, "  Session   %s\n", m.agent.Session.ID())
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	m.print("")
	return nil
}

func (m *model) cmdCopy([]string) tea.Cmd {
	if m.lastAnswer == "" {
		m.printNotice(noticeWarn, "No answer to copy yet.")
		return nil
	}
	m.printNotice(noticeInfo, "Last answer copied to the clipboard.")
	return tea.SetClipboard(m.lastAnswer)
}

// checkpointPath is where /chat save keeps a conversation: the project's
// temporary directory, in Gemini CLI's checkpoint-<tag>.json format (the
// history as a JSON array of contents).
func (m *model) checkpointPath(tag string) string {
	return filepath.Join(m.agent.TempDir, "checkpoint-"+sanitizeName(tag)+".json")
}

func (m *model) cmdChat(args []string) tea.Cmd {
	sub := "list"
	if len(args) > 0 {
		sub = args[0]
	}
	tag := strings.Join(args[min(1, len(args)):], " ")
	if sub != "list" && tag == "" {
		m.printNotice(noticeError, "Missing tag. Usage: /chat "+sub+" <tag>")
		return nil
	}
	switch sub {
	case "save":
		b, err := json.MarshalIndent(m.agent.Session.History(), "", "  ")
		if err == nil {
			err = os.WriteFile(m.checkpointPath(tag), b, 0o600)
		}
		if err != nil {
			m.printNotice(noticeError, err.Error())
			return nil
		}
		m.printNotice(noticeInfo, "Conversation checkpoint saved with tag: "+tag+".")
	case "resume", "load":
		b, err := os.ReadFile(m.checkpointPath(tag))
		var h []*genai.Content
		if err == nil {
			err = json.Unmarshal(b, &h)
			if err != nil {
				err = fmt.Errorf("%s: %v", m.checkpointPath(tag), err)
			}
		}
		if err == nil {
			err = m.agent.Session.SetHistory(h)
		}
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("no saved checkpoint found with tag: %s", tag)
		}
		if err != nil {
			m.printNotice(noticeError, err.Error())
			return nil
		}
		m.promptTokens = 0
		m.printHistory("Resumed conversation from tag: "+tag+".", h)
	case "list":
		files, _ := filepath.Glob(filepath.Join(m.agent.TempDir, "checkpoint-*.json"))
		if len(files) == 0 {
			m.printNotice(noticeInfo, "No saved conversation checkpoints found.")
			return nil
		}
		var b strings.Builder
		b.WriteString("List of saved conversations:\n")
		for _, f := range files {
			name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "checkpoint-"), ".json")
			mod := ""
			if fi, err := os.Stat(f); err == nil {
				mod = fi.ModTime().Format(time.DateTime)
			}
			fmt.Fprintf(&b, "  - %s %s\n", name, m.theme.dim.Render("(saved on "+mod+")"))
		}
		m.print(strings.TrimRight(b.String(), "\n"))
	case "delete":
		if err := os.Remove(m.checkpointPath(tag)); err != nil {
			m.printNotice(noticeError, "no saved checkpoint found with tag: "+tag)
			return nil
		}
		m.printNotice(noticeInfo, "Conversation checkpoint '"+tag+"' has been deleted.")
	default:
		m.printNotice(noticeError, "Unknown sub-command /chat "+sub+": use save, resume, list or delete.")
	}
	return nil
}

func (m *model) cmdResume(args []string) tea.Cmd {
	if len(args) > 0 {
		if m.running || m.shellRunning() {
			m.printNotice(noticeError, "Cannot switch sessions while a request is running.")
			return nil
		}
		id, h, err := m.agent.ResumeChat(strings.Join(args, " "))
		if err != nil {
			m.printNotice(noticeError, err.Error())
			return nil
		}
		m.promptTokens = 0
		m.printHistory("Resumed session "+id+".", h)
		return nil
	}
	store, err := chats.OpenStore(m.agent.Home.Dir, m.workDir)
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	infos, err := store.List()
	if err != nil && !errors.Is(err, chats.ErrNoSessions) {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	if len(infos) == 0 {
		m.printNotice(noticeInfo, termtext.String(chats.ErrNoSessions.Error()))
		return nil
	}
	// A picker, newest first, as Gemini CLI's session browser; Enter
	// resumes the session chosen.
	now := time.Now()
	cur := m.agent.Session.ID()
	items := make([]pickItem, 0, len(infos))
	for i := len(infos) - 1; i >= 0; i-- {
		in := infos[i]
		desc := chats.FormatRelativeTime(in.LastUpdated, now)
		if cur != "" && strings.Contains(in.FileName, cur[:min(8, len(cur))]) {
			desc += ", current"
		}
		items = append(items, pickItem{label: firstLine(in.DisplayName), desc: desc, value: in.ID})
	}
	m.pick(&picker{title: "Resume a session", note: fmt.Sprintf("%d sessions of this project, newest first.", len(infos)), items: items,
		choose: func(m *model, it pickItem) tea.Cmd { return m.cmdResume([]string{it.value}) }})
	return nil
}

// compressDoneMsg is the outcome of /compress.
type compressDoneMsg struct {
	info *agent.CompressionInfo
	err  error
}

func (m *model) cmdCompress([]string) tea.Cmd {
	if m.running || m.shellRunning() || m.compressing {
		m.printNotice(noticeError, "Cannot compress the conversation while a request is running.")
		return nil
	}
	m.compressing = true
	m.status = "compressing…"
	a, send, ctx := m.agent, m.send, m.ctx
	go func() {
		info, err := a.Session.Compress(ctx)
		send(compressDoneMsg{info: info, err: err})
	}()
	return nil
}

func (m *model) onCompressDone(msg compressDoneMsg) tea.Cmd {
	m.compressing = false
	m.status = ""
	res := setup.CompressMessage(msg.info, msg.err)
	switch {
	case res.MessageType == command.MessageError:
		m.printNotice(noticeError, res.Content)
	default:
		m.printNotice(noticeInfo, res.Content)
	}
	if msg.err == nil && msg.info != nil && msg.info.Status == "COMPRESSED" {
		m.promptTokens = msg.info.NewTokens
	}
	m.print("")
	return m.nextQueued()
}

func (m *model) cmdMCP([]string) tea.Cmd {
	if m.agent.MCP == nil {
		m.printNotice(noticeInfo, "No MCP servers configured.")
		return nil
	}
	var b strings.Builder
	b.WriteString(m.theme.title.Render("MCP servers") + "\n")
	for _, s := range m.agent.MCP.Statuses() {
		line := fmt.Sprintf("  %s: %s, %d tools, %d prompts", s.Name, s.Status, s.Tools, s.Prompts)
		if f := s.Failure; f != nil {
			// The command or URL, what went wrong, the server's last
			// stderr lines: one indented line each.
			line += "\n    " + f.Target + ": " + strings.ReplaceAll(f.Details(), "\n", "\n    ")
		} else if s.Reason != "" {
			line += " (" + s.Reason + ")"
		}
		b.WriteString(termtext.String(line) + "\n")
	}
	m.print(strings.TrimRight(b.String(), "\n"))
	return nil
}

// cmdIDE shows the IDE connection, and turns IDE mode on or off: in the
// user's settings (ide.enabled) for the next sessions, and in this one,
// which /ide enable connects to the companion and /ide disable
// disconnects from it, as Gemini CLI's do (idelive.go).
func (m *model) cmdIDE(args []string) tea.Cmd {
	sub := "status"
	if len(args) > 0 {
		sub = args[0]
	}
	path := m.agent.Home.SettingsPath()
	shown := homeRelative(path)
	c := m.agent.IDEClient()
	switch sub {
	case "status":
		if c == nil {
			m.printNotice(noticeInfo, "IDE: not connected (start Castor with --ide or run /ide enable, with the IDE companion running).")
			return nil
		}
		// The connection's state now: the editor may have closed since.
		m.printNotice(noticeInfo, "IDE: "+c.Summary())
	case "enable", "disable":
		on := sub == "enable"
		if err := config.UpdateFile(path, "ide.enabled", on); err != nil {
			m.printNotice(noticeError, err.Error())
			return nil
		}
		switch {
		case on && c != nil && c.Status().State != ide.Connected:
			c.Reconnect()
			m.printNotice(noticeInfo, "IDE mode enabled in "+shown+"; the IDE connection was lost, looking for the companion now (/ide status tells).")
		case on && c != nil:
			m.printNotice(noticeInfo, "IDE mode enabled in "+shown+"; this session is already connected.")
		case on:
			m.printNotice(noticeInfo, "IDE mode enabled in "+shown+"; connecting to the IDE companion…")
			return m.connectIDE()
		case c != nil:
			// Off the event loop: closing the diffs still open in the
			// editor waits for its answers (up to a few seconds each).
			a := m.agent
			return func() tea.Msg {
				if err := a.DisconnectIDE(); err != nil {
					return noticeMsg{kind: noticeWarn, text: "IDE mode disabled in " + shown + "; disconnecting from the IDE: " + err.Error()}
				}
				return noticeMsg{kind: noticeInfo, text: "IDE mode disabled in " + shown + "; disconnected from the IDE. To enable it again, run /ide enable."}
			}
		default:
			m.printNotice(noticeInfo, "IDE mode disabled in "+shown+".")
		}
	case "install":
		// Installing runs VS Code's `code` command, which takes seconds:
		// off the event loop, the answer arrives as a notice.
		ctx, environ := m.ctx, m.cfg.Environ
		m.printNotice(noticeInfo, "Installing the IDE companion…")
		return func() tea.Msg {
			msg, err := ide.Install(ctx, ide.InstallOptions{Getenv: func(k string) string { return getenv(environ, k) }})
			if err != nil {
				return noticeMsg{kind: noticeError, text: err.Error()}
			}
			return noticeMsg{kind: noticeInfo, text: msg}
		}
	default:
		m.printNotice(noticeError, "Unknown sub-command /ide "+sub+": use status, enable, disable or install.")
	}
	return nil
}

func (m *model) cmdDirectory(args []string) tea.Cmd {
	if len(args) > 0 && args[0] == "add" {
		if len(args) < 2 {
			m.printNotice(noticeError, "Usage: /directory add <path>[,<path>…]")
			return nil
		}
		for _, d := range strings.Split(strings.Join(args[1:], " "), ",") {
			d = strings.TrimSpace(d)
			if strings.HasPrefix(d, "~/") {
				d = filepath.Join(m.homeDir, d[2:])
			}
			if !filepath.IsAbs(d) {
				d = filepath.Join(m.workDir, d)
			}
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				m.printNotice(noticeError, d+" is not a directory")
				continue
			}
			m.agent.Workspace.Add(d)
			m.printNotice(noticeInfo, "Added "+d+" to the workspace.")
		}
		return nil
	}
	m.print("Workspace directories:\n  " + strings.Join(m.agent.Workspace.Dirs(), "\n  "))
	return nil
}

// homeRelative writes a path under the user's home as ~/…, which is
// shorter on screen and the same for every user.
func homeRelative(p string) string {
	h, err := os.UserHomeDir()
	if err != nil || h == "" || !strings.HasPrefix(p, h+string(filepath.Separator)) {
		return p
	}
	return "~" + p[len(h):]
}
