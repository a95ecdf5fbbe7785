package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/memtrim"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// Messages the program receives from the background: the assembly, the
// running turn, the engine's confirmation callback, shell commands and
// slash commands.
type (
	readyMsg struct {
		agent *setup.Agent
		err   error
	}
	noticeMsg struct {
		kind noticeKind
		text string
	}
	eventMsg struct {
		ev  *agent.Event
		gen int
	}
	turnDoneMsg struct {
		gen int
		err error
	}
	confirmMsg struct {
		call  *agent.ToolCall
		reply chan<- tool.Decision
	}
	// printedMsg says that the last batch of output reached the program,
	// so the next one may go (see flushOut).
	printedMsg struct{}
	// firstFrameMsg ends a start-up benchmark run.
	firstFrameMsg struct{}
)

type noticeKind int

const (
	noticeInfo noticeKind = iota
	noticeWarn
	noticeError
)

// model is the Bubble Tea model of the interactive terminal; Update runs
// on the program goroutine only, and background work reports through send.
type model struct {
	ctx  context.Context
	cfg  Config
	send func(tea.Msg)
	now  func() time.Time

	agent    *setup.Agent
	ready    bool
	startErr error
	workDir  string
	homeDir  string
	branch   string
	modelID  string
	cost     cost // cost.go

	// bootCommands is the command table until the session's registry
	// exists (commands.go).
	bootCommands *command.Registry

	width, height int
	theme         theme
	// themeChosen is the theme named by ui.theme or /theme ("" follows
	// the terminal's background); customThemes are ui.customThemes'.
	themeChosen  string
	customThemes []palette
	noColor      bool
	screenReader bool
	shellMode    bool // "!" typed into an empty input: lines are shell commands until Esc (shellterm.go)
	md           markdown
	tailCache    struct{ src, out string }
	// boxCache is the input box as last drawn, and what it was drawn
	// from: drawing it was most of a streamed chunk's cost, and it does
	// not change while an answer streams.
	boxCache struct {
		key inputKey
		out string
	}

	input textarea.Model
	spin  spinner.Model
	hist  *inputHistory
	comp  completion
	files *fileIndex

	running   bool
	turnGen   int
	turnStart time.Time
	cancel    context.CancelFunc
	stream    stream
	answer    strings.Builder
	thought   string
	retry     *retryWait
	calls     []*agent.ToolCall
	dialog    *dialog
	// loopAsk is the loop-detected dialog (loopdialog.go); loopStopped
	// says loop detection stopped the running turn, lastPrompt is that
	// turn's text.
	loopAsk     *loopAsk
	loopPending *loopAsk // opened once the output above it is printed
	loopStopped bool
	loopDetail  string
	lastPrompt  string
	// picker is a command's list or question (picker.go), in place of
	// the input.
	picker *picker
	// overlay is text shown above the input until the next key: the
	// shortcuts (?) or the last tool output (Ctrl+O), keys.go.
	overlay string
	// search is Ctrl+R's reverse search, keys its key table, lastCallDone
	// the last finished tool call (Ctrl+O), keys.go.
	search       *histSearch
	keys         keymap
	lastCallDone *agent.ToolCall
	// vim is vim mode for the input, vimNormal its NORMAL mode and
	// vimPending the first key of a two-key command (vim.go).
	vim       bool
	vimNormal bool
	vimSt     vimState
	// undo is the input's undo history (Ctrl+Z, vim's u; undo.go).
	undo inputUndo
	// lastEsc is when Esc was last pressed on an idle prompt (Esc Esc).
	lastEsc time.Time
	// lastTab is when a plain Tab was pressed (Tab Tab), and minimal the
	// screen it toggles: the footer hidden, as Gemini CLI's clean UI.
	lastTab time.Time
	minimal bool
	rewind  *rewindPicker // /rewind's picker (rewind.go)
	elicits []*elicitForm // MCP servers' questions, the first shown
	trust   *trustAsk     // the folder trust question (trustdialog.go)
	shell   *shellRun
	// toolPTY is the model's shell command running on a pseudo-terminal,
	// if any (toolpty.go).
	toolPTY *ptyCall
	pastes  pastes
	// bg is the background shell panel (Ctrl+B, bgshell.go).
	bg bgPanel
	// todos is the model's TODO list above the input (Ctrl+T, todos.go).
	todos todoTray
	// clip reads the system clipboard (Ctrl+V, clipboard.go); nil picks
	// the system's command when first used.
	clip   clipboard
	queued []string
	// queuedShown counts the first queued prompts already printed (typed
	// before the session was ready); the others are shown in the live
	// area until their turn starts (queue.go).
	queuedShown int
	// mcpWaiting holds prompts while MCP servers connect (mcpwait.go).
	mcpWaiting bool

	lastAnswer   string
	promptTokens int32
	compressing  bool
	// rejectNote is what the user asked for instead of a rejected call;
	// it is sent as the next prompt once the turn has ended.
	rejectNote string
	status     string
	quitArmed  bool
	quitGen    int
	quitting   bool

	// out is output waiting to be printed above the live area; printing
	// says a batch is on its way (one batch at a time keeps the order).
	out       []string
	printing  bool
	lastBlank bool
	lastCall  bool // the last thing printed is a finished tool call
	// printLog keeps everything printed, for tests.
	printLog *[]string
	// shown are the last lines printed, and redraw a screen to draw again
	// after the terminal narrowed (reflow.go); sizeSeen says the first
	// size is known.
	shown    []string
	redraw   *redraw
	sizeSeen bool
	// rawOut writes to the terminal at once, around Bubble Tea (nil in
	// tests).
	rawOut func(string)

	bannerDue bool
	// waitFrame holds output back until the first frame is drawn (see
	// frameWatch).
	waitFrame           bool
	sized               bool
	exitAfterFirstFrame bool
	// exitCode and exitNote are the process's exit code and last words
	// when the program ends on its own terms (the trust dialog left).
	exitCode int
	exitNote string
	// assembled receives what each assembly built (nil on failure);
	// assemblies counts those started (tui.go).
	assembled  chan *setup.Agent
	assemblies int
	// authFirst says the auth dialog is open because the session could
	// not start without credentials (authdialog.go).
	authFirst bool
	// pace stops the renderer's ticker while nothing happens (pace.go);
	// nil in tests.
	pace *pacer
}

func newModel(ctx context.Context, c Config) *model {
	m := &model{ctx: ctx, cfg: c, now: time.Now, width: 80, height: 24}
	m.send = func(tea.Msg) {}
	m.workDir = c.Options.WorkDir
	m.homeDir = c.Options.HomeDir
	if m.homeDir == "" {
		m.homeDir = getenv(c.Environ, "HOME")
	}
	m.branch = gitBranch(m.workDir)
	m.modelID = c.Options.Model
	m.noColor = getenv(c.Environ, "NO_COLOR") != ""
	m.theme = newTheme(true, m.noColor)
	m.status = "starting…"

	in := textarea.New()
	in.Prompt = "> "
	// The prompt marks the message's first row only: repeated on every
	// row, a wrapped or multi-line message read as several messages.
	in.SetPromptFunc(2, func(p textarea.PromptInfo) string {
		if p.LineNumber == 0 {
			return "> "
		}
		return "  "
	})
	in.Placeholder = "Type your message or @path/to/file"
	in.ShowLineNumbers = false
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 10
	in.CharLimit = 0
	in.EndOfBufferCharacter = ' '
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "alt+enter", "shift+enter"))
	in.Focus()
	m.input = in
	m.spin = spinner.New(spinner.WithSpinner(spinner.Dot))
	m.applyTheme()
	return m
}

func (m *model) applyTheme() {
	st := textarea.DefaultStyles(m.theme.dark)
	if m.theme.plain {
		st = textarea.Styles{}
	}
	m.input.SetStyles(st)
	m.spin.Style = m.theme.accent
	m.md.set(m.width, m.theme.mdStyle(), m.screenReader)
	m.tailCache.src, m.tailCache.out = "", ""
	m.boxCache.out = ""
	m.resize()
}

func (m *model) resize() {
	m.input.SetWidth(max(m.width, 10))
	m.resizeToolPTY()
	m.md.set(m.width, m.theme.mdStyle(), m.screenReader)
	m.tailCache.src = "\x00"
	m.boxCache.out = ""
}

// Init prints the banner and asks the terminal for its background colour.
func (m *model) Init() tea.Cmd {
	// The banner waits for the terminal's size (the first WindowSizeMsg,
	// which comes at once) so that it wraps at the right width.
	m.bannerDue = true
	if m.sized {
		m.printBanner()
	}
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.flushOut()}
	if m.waitFrame {
		cmds = append(cmds, waitFirstFrame())
	}
	if m.exitAfterFirstFrame {
		cmds = append(cmds, func() tea.Msg { return firstFrameMsg{} })
	}
	return tea.Batch(cmds...)
}

func (m *model) printBanner() {
	if m.bannerDue {
		m.bannerDue = false
		m.print(m.theme.accent.Render("Castor "+version.Version) + m.theme.dim.Render(" · /help for commands · Enter sends, Ctrl-J adds a line · Ctrl-C twice quits"))
	}
}

// print queues lines for the scrollback.
func (m *model) print(s string) {
	m.lastBlank, m.lastCall = s == "", false
	m.out = append(m.out, s)
	m.remember(s)
	if m.printLog != nil {
		*m.printLog = append(*m.printLog, s)
	}
}

// flushOut sends the queued output as Printlns followed by printedMsg, in
// a sequence: Bubble Tea runs commands concurrently, so two Printlns from
// two updates could otherwise swap. Output taller than the room above the
// live area is sent in pieces, as Bubble Tea inserts each piece above the
// live area by scrolling the screen and cannot scroll by more than the
// screen holds.
func (m *model) flushOut() tea.Cmd {
	if m.printing || m.waitFrame || (len(m.out) == 0 && m.redraw == nil) {
		return nil
	}
	var cmds []tea.Cmd
	if m.redraw != nil {
		cmds = m.redrawCmds()
	}
	m.printing = true
	if len(m.out) == 0 {
		return tea.Sequence(append(cmds, func() tea.Msg { return printedMsg{} })...)
	}
	// Lines are wrapped one column short of the width: Bubble Tea counts a
	// line exactly as wide as the screen as two rows, and a wrong count
	// leaves stale rows behind.
	text := wrapLines(strings.Join(m.out, "\n"), max(m.width-1, 10))
	// No line keeps padding: the terminal reflows it into rows of blanks
	// when it narrows (trimPadding).
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = trimPadding(l)
	}
	text = strings.Join(lines, "\n")
	m.out = m.out[:0]
	room := max(m.height-strings.Count(m.render(), "\n")-2, 1)
	for _, piece := range splitRows(text, room, m.width) {
		cmds = append(cmds, tea.Println(piece))
	}
	cmds = append(cmds, func() tea.Msg { return printedMsg{} })
	return tea.Sequence(cmds...)
}

// splitRows cuts text into pieces of at most rows screen rows at width
// columns (long lines wrap). A piece that is one blank row is a space:
// Bubble Tea prints nothing for an empty string, which lost the blank
// row printed on its own after an answer or a notice.
func splitRows(text string, rows, width int) []string {
	var pieces []string
	var cur []string
	n := 0
	piece := func() string {
		if p := strings.Join(cur, "\n"); p != "" {
			return p
		}
		return " "
	}
	for _, l := range strings.Split(text, "\n") {
		h := 1
		if w := ansi.StringWidth(l); width > 0 && w > width {
			h = (w + width - 1) / width
		}
		if n+h > rows && len(cur) > 0 {
			pieces = append(pieces, piece())
			cur, n = nil, 0
		}
		cur = append(cur, l)
		n += h
	}
	return append(pieces, piece())
}

// Update handles one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.pace.wake()
	asking := m.dialog != nil
	cmd := m.update(msg)
	if asking && m.dialog == nil && m.running {
		// The spinner's time starts again once a confirmation is
		// answered, as Gemini CLI's does: time spent deciding is the
		// user's, not the model's.
		m.turnStart = m.now()
	}
	return m, tea.Batch(cmd, m.flushOut())
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	if m.onElicit(msg) || m.onTrust(msg) {
		return nil
	}
	switch msg := msg.(type) {
	case printedMsg:
		m.printing = false
		if m.loopPending != nil && len(m.out) == 0 {
			m.loopAsk, m.loopPending = m.loopPending, nil // loopdialog.go
		}
		return nil
	case frameDrawnMsg:
		m.waitFrame = false
		return nil
	case quitDisarmMsg:
		if msg.gen == m.quitGen {
			m.quitArmed = false
		}
		return nil
	case firstFrameMsg:
		return tea.Quit
	case tea.WindowSizeMsg:
		m.noteResize(msg.Width, msg.Height)
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		m.printBanner()
		return nil
	case tea.BackgroundColorMsg:
		// A theme chosen by name stays; the default follows the
		// background, as Gemini CLI's does.
		if dark := msg.IsDark(); dark != m.theme.dark && m.themeChosen == "" {
			m.theme = newTheme(dark, m.theme.plain)
			m.applyTheme()
		}
		return nil
	case readyMsg:
		return m.onReady(msg)
	case mcpReadyMsg:
		return m.onMCPReady()
	case noticeMsg:
		m.printNotice(msg.kind, msg.text)
		return nil
	case eventMsg:
		if msg.gen == m.turnGen {
			m.onEvent(msg.ev)
		}
		return nil
	case turnDoneMsg:
		if msg.gen == m.turnGen {
			m.turnEnded() // cost.go; a turn that failed cost something too
			return m.onTurnDone(msg.err)
		}
		return nil
	case confirmMsg:
		m.flushStream()
		m.dialog = newDialog(msg.call, msg.reply, m.savesAnswers())
		if m.agent != nil && !m.agent.Policy.OffersAlways() {
			m.dialog.onceOnly() // security.disableAlwaysAllow
		}
		return nil
	case editorDoneMsg:
		return m.onEditorDone(msg)
	case promptEditedMsg:
		return m.onPromptEdited(msg)
	case shellDoneMsg:
		return m.onShellDone(msg)
	case ptyCallMsg:
		m.onPTYCall(msg)
		return nil
	case commandDoneMsg:
		return m.onCommandDone(msg)
	case bgTickMsg:
		return m.onBgTick(msg)
	case clipboardMsg:
		m.onClipboard(msg)
		return nil
	case bgKilledMsg:
		m.onBgKilled(msg)
		return nil
	case compressDoneMsg:
		return m.onCompressDone(msg)
	case spinner.TickMsg:
		if !m.running && !m.shellRunning() && !m.mcpWaiting {
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	case tea.PasteMsg:
		if m.picker != nil && m.dialog == nil {
			m.pickerPaste(msg)
			return nil
		}
		if m.dialog != nil && m.dialog.note != nil {
			var cmd tea.Cmd
			*m.dialog.note, cmd = m.dialog.note.Update(msg)
			return cmd
		}
		if m.dialog != nil {
			return nil
		}
		if p := droppedPath(msg.Content); p != "" && !m.shellMode {
			// A file dragged onto the terminal: sent as its content, an
			// image as inline data (clipboard.go).
			m.insertRef(p)
			m.updateCompletion()
			return nil
		}
		if m.pasteInput(msg.Content) {
			m.updateCompletion()
			return nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.updateCompletion()
		return cmd
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

func (m *model) onReady(msg readyMsg) tea.Cmd {
	if m.quitting {
		return nil // left from the trust dialog: Run closes what was built
	}
	if msg.err != nil {
		m.startErr = msg.err
		m.status = "start-up failed"
		m.printNotice(noticeError, msg.err.Error())
		if needsAuth(msg.err) {
			// A first run without credentials: the auth dialog, not a
			// dead input (authdialog.go).
			m.openAuth(true)
		}
		return nil
	}
	a := msg.agent
	m.agent, m.ready = a, true
	m.commands() // the terminal's commands join the session's before MCP prompts are named
	m.status = ""
	m.modelID = a.Session.Model()
	m.hist = loadHistory(a.TempDir)
	// Gemini CLI's accessibility setting: plain, linear output (no
	// Markdown layout, colours or animation) that screen readers follow.
	if on, _ := a.Settings.GetBool("ui.accessibility.screenReader"); on || m.cfg.ScreenReader {
		m.screenReader = true
		m.theme = newTheme(m.theme.dark, true)
		m.applyTheme()
	} else {
		m.loadThemes(a.Settings)
	}
	if on, _ := a.Settings.GetBool("general.vimMode"); on {
		m.setVim(true)
	}
	m.files = newFileIndex(a.Workspace.Root())
	m.noteUntrusted(a)
	if h := a.Session.History(); len(h) > 0 {
		m.printHistory(fmt.Sprintf("Resumed session %s.", a.Session.ID()), h)
	}
	if m.cfg.Prompt != "" {
		p := m.cfg.Prompt
		m.cfg.Prompt = ""
		m.print(m.userBlock(p))
		m.queued = append([]string{p}, m.queued...)
		m.queuedShown++
	}
	tick := m.watchMCP()
	if m.mcpWaiting && len(m.queued) > 0 {
		m.printNotice(noticeInfo, mcpWaitNotice)
	}
	return tea.Batch(tick, m.nextQueued())
}

// nextQueued sends the prompts typed while the session was starting,
// waiting for its MCP servers or busy: all of them as one prompt, as
// Gemini CLI's message queue does (joinQueued).
func (m *model) nextQueued() tea.Cmd {
	if !m.ready || m.mcpWaiting || m.running || m.compressing || m.dialog != nil || m.loopAsk != nil || m.loopPending != nil || len(m.queued) == 0 {
		return nil
	}
	if t := strings.TrimSpace(m.queued[0]); strings.HasPrefix(t, "/") || strings.HasPrefix(t, "!") {
		// A command held from the start (-i "/cmd") runs alone.
		p := m.queued[0]
		m.queued = m.queued[1:]
		return m.submit(p, true)
	}
	n := len(m.queued)
	for i, q := range m.queued {
		if t := strings.TrimSpace(q); strings.HasPrefix(t, "/") || strings.HasPrefix(t, "!") {
			n = i
			break
		}
	}
	m.printQueued(n)
	p := joinQueued(m.queued[:n])
	m.queued = m.queued[n:]
	return m.submit(p, true)
}

func (m *model) printNotice(kind noticeKind, text string) {
	text = termtext.String(text)
	style, mark := m.theme.dim, "ℹ "
	switch kind {
	case noticeWarn:
		style, mark = m.theme.warn, "⚠ "
	case noticeError:
		style, mark = m.theme.bad, "✕ "
	}
	// Line by line: a style pads every line of a block to the widest, and
	// the padding of a short line under a long one wraps into blank rows
	// (an MCP server's failure and its stderr lines).
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	m.print(style.Render(mark) + strings.Join(lines, "\n"))
}

// startTurn sends text to the engine on a goroutine whose events come
// back as eventMsg.
func (m *model) startTurn(text string) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.turnGen++
	gen := m.turnGen
	m.running, m.turnStart, m.cancel = true, m.now(), cancel
	m.thought = ""
	m.lastPrompt, m.loopStopped = text, false
	m.retry = nil
	m.answer.Reset()
	a, send := m.agent, m.send
	go func() {
		parts, err := a.ExpandPrompt(ctx, text)
		if err == nil {
			for ev, e := range a.Session.Send(ctx, parts...) {
				if e != nil {
					err = e
					break
				}
				send(eventMsg{ev: ev, gen: gen})
			}
		}
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		send(turnDoneMsg{gen: gen, err: err})
	}()
	return m.spin.Tick
}

func (m *model) cancelTurn() {
	if m.cancel != nil {
		m.cancel()
	}
	if m.dialog != nil {
		m.dialog.answer(tool.Decision{Outcome: tool.Cancel})
		m.dialog = nil
	}
}

func (m *model) onEvent(ev *agent.Event) {
	if ev.Type != agent.EventRetry {
		// The model answers again.
		m.retry = nil
	}
	switch ev.Type {
	case agent.EventContent:
		m.answer.WriteString(ev.Text)
		if done := m.stream.Append(termtext.String(ev.Text)); done != "" {
			m.printMarkdown(done)
		}
	case agent.EventThought:
		if ev.Thought != nil && ev.Thought.Subject != "" {
			m.thought = termtext.String(ev.Thought.Subject)
		}
	case agent.EventToolCall:
		m.flushStream()
		m.onCall(ev.Call)
	case agent.EventToolOutput:
		for _, c := range m.calls {
			if c.ID == ev.Call.ID {
				if ev.Call.LiveOutput != "" {
					c.LiveOutput = ev.Call.LiveOutput
				} else {
					c.LiveOutput += ev.Text
				}
			}
		}
	case agent.EventFinished:
		if ev.Usage != nil && ev.Usage.PromptTokenCount > 0 {
			m.promptTokens = ev.Usage.PromptTokenCount
		}
		if ev.Model != "" {
			m.modelID = ev.Model
		}
	case agent.EventRetry, agent.EventFallback:
		if n := ev.Notice; n != nil && ev.Type == agent.EventFallback {
			m.printNotice(noticeWarn, fmt.Sprintf("Switched from %s to %s.", n.From, n.To))
		} else if n != nil && n.Err != nil {
			m.retry = newRetryWait(n, m.now())
		}
	case agent.EventLoopDetected:
		// Said with the dialog's outcome (loopdialog.go): a line printed
		// as the dialog opens can be lost by the inline renderer.
		m.flushStream()
		m.loopStopped, m.loopDetail = true, ev.Text
	case agent.EventWarning:
		m.flushStream()
		m.printNotice(noticeWarn, ev.Text)
	case agent.EventMaxSessionTurns:
		m.flushStream()
		m.printNotice(noticeWarn, "The session reached its maximum number of turns (model.maxSessionTurns).")
	case agent.EventCompressed:
		if c := ev.Compression; c != nil {
			if c.Status == "COMPRESSED" {
				m.printNotice(noticeInfo, fmt.Sprintf("Chat history compressed from %d to %d tokens.", c.OriginalTokens, c.NewTokens))
			} else {
				m.printNotice(noticeWarn, "Chat compression did not help: "+c.Status)
			}
		}
	case agent.EventTurnEnd:
		m.flushStream()
		m.lastAnswer = ev.Text
	case agent.EventInputRequired:
		m.flushStream()
	}
}

// onCall tracks a call: running calls stay in the live area, finished
// ones are printed.
func (m *model) onCall(c *agent.ToolCall) {
	// Answered elsewhere (the IDE's diff view): the dialog goes.
	if d := m.dialog; d != nil && d.call.ID == c.ID && c.Status != agent.StatusAwaitingApproval {
		d.done = true
		m.dialog = nil
	}
	i := -1
	for j, x := range m.calls {
		if x.ID == c.ID {
			i = j
		}
	}
	if c.Status.Terminal() {
		if i >= 0 {
			m.calls = append(m.calls[:i], m.calls[i+1:]...)
		}
		m.print(m.renderCall(c, false))
		m.lastCall = true
		m.noteDone(c)
		m.noteTodos(c)
		return
	}
	if i >= 0 {
		live := m.calls[i].LiveOutput
		m.calls[i] = c
		if c.LiveOutput == "" {
			c.LiveOutput = live
		}
		return
	}
	m.calls = append(m.calls, c)
}

func (m *model) onTurnDone(err error) tea.Cmd {
	m.flushStream()
	for _, c := range m.calls {
		c.Status = agent.StatusCancelled
		m.print(m.renderCall(c, false))
	}
	m.calls = nil
	if m.dialog != nil {
		m.dialog.answer(tool.Decision{Outcome: tool.Cancel})
		m.dialog = nil
	}
	memtrim.AfterTurn()
	m.running = false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	loop := m.loopStopped && errors.Is(err, agent.ErrLoopDetected)
	m.loopStopped = false
	switch {
	case err == nil, loop: // a loop: the dialog says it (loopdialog.go)
	case errors.Is(err, context.Canceled):
		m.printNotice(noticeInfo, "Request cancelled.")
	default:
		m.printNotice(noticeError, err.Error())
	}
	m.thought = ""
	m.retry = nil
	if !m.lastBlank {
		m.print("")
	}
	if note := m.rejectNote; note != "" {
		m.rejectNote = ""
		if err == nil {
			return m.submit(note, false)
		}
		// The turn failed: the note waits in the input, not lost.
		if m.input.Value() == "" {
			m.setInput(note)
		}
	}
	if loop {
		// Gemini CLI 0.61 asks whether to keep loop detection on.
		m.openLoopAsk(&loopAsk{prompt: m.lastPrompt, detail: m.loopDetail})
		return nil
	}
	return m.nextQueued()
}

// flushStream prints what is left of the answer being streamed.
func (m *model) flushStream() {
	if rest := m.stream.Flush(); strings.TrimSpace(rest) != "" {
		m.printMarkdown(rest)
	}
}

// printMarkdown prints a finished block; a block that ended at a blank
// line keeps it, as Markdown separates blocks with one.
func (m *model) printMarkdown(src string) {
	if out := m.md.render(src); out != "" {
		if m.lastCall {
			// The answer does not run on from a tool's block.
			m.print("")
		}
		m.print(out)
		if strings.HasSuffix(src, "\n\n") {
			m.print("")
		}
	}
}

func (m *model) onKey(k tea.KeyPressMsg) tea.Cmd {
	ks := k.String()
	if ks != "ctrl+c" {
		m.quitArmed = false
	}
	if ks != "tab" {
		m.lastTab = time.Time{}
	}
	if m.trust != nil {
		return m.trustKey(k)
	}
	if len(m.elicits) > 0 {
		return m.elicitKey(k)
	}
	if m.dialog != nil {
		return m.dialogKey(k)
	}
	if m.loopAsk != nil {
		return m.loopKey(k) // loopdialog.go
	}
	if cmd, ok := m.shellKey(k); ok { // shellterm.go
		return cmd
	}
	if m.rewind != nil {
		return m.rewindKey(k)
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if cmd, ok := m.backgroundKey(k); ok { // bgshell.go
		return cmd
	}
	if m.vim {
		if cmd, ok := m.vimKey(k); ok {
			return cmd
		}
	}
	if m.undoKey(k) { // undo.go
		return nil
	}
	if cmd, ok := m.appKey(k); ok {
		return cmd
	}
	switch ks {
	case "ctrl+c":
		if m.input.Value() != "" {
			// Ctrl+Z brings it back.
			m.undo.push(m.inputState(), false)
			m.resetInput()
			m.comp = completion{}
			return nil
		}
		if m.running {
			m.cancelTurn()
		}
		if m.quitArmed {
			return m.quit()
		}
		m.armQuit()
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return m.quit()
		}
	case "esc":
		if m.comp.active() {
			m.comp = completion{}
			return nil
		}
		if m.dropLastQueued() {
			return nil
		}
		if m.running {
			m.cancelTurn()
			return nil
		}
		if m.shellRunning() {
			m.cancelShell()
			return nil
		}
		return m.doubleEsc()
	case "tab":
		if m.comp.active() {
			m.acceptCompletion()
			return nil
		}
		return m.plainTab()
	case "enter":
		if m.comp.active() && m.comp.submitOnAccept() {
			m.acceptCompletion()
		} else if m.comp.active() {
			m.acceptCompletion()
			return nil
		}
		text := m.inputText()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m.resetInput()
		m.undo = inputUndo{}
		m.comp = completion{}
		if m.hist != nil {
			m.hist.add(text)
		}
		return m.submit(text, false)
	case "up":
		if m.comp.active() {
			m.comp.move(-1)
			return nil
		}
		if m.editQueued() {
			return nil
		}
		if m.input.Line() == 0 && m.hist != nil {
			if v, ok := m.hist.prev(m.inputText()); ok {
				m.setInput(v)
				m.input.MoveToBegin()
			}
			return nil
		}
	case "down":
		if m.comp.active() {
			m.comp.move(1)
			return nil
		}
		if m.input.Line() == m.input.LineCount()-1 && m.hist != nil {
			if v, ok := m.hist.next(m.inputText()); ok {
				m.setInput(v)
			}
			return nil
		}
	}
	var cmd tea.Cmd
	before := m.input.Value()
	var st inputState
	if before != "" || k.Text != "" {
		st = m.inputState()
	}
	m.input, cmd = m.input.Update(k)
	if m.input.Value() != before {
		// A typed character joins the characters typed before it in one
		// undo step; any other change is a step of its own.
		m.undo.push(st, k.Text != "" && k.Key().Mod&(tea.ModCtrl|tea.ModAlt) == 0)
	} else {
		m.undo.typing = false
	}
	m.updateCompletion()
	return cmd
}

// submit handles a line the user sent: a slash command, a shell command
// or a prompt. queued is true for a prompt sent earlier and kept waiting.
func (m *model) submit(text string, queued bool) tea.Cmd {
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, "/") && !strings.HasPrefix(trimmed, "//"):
		m.separate()
		m.print(m.theme.user.Render("> " + trimmed))
		return m.runCommand(trimmed)
	case strings.HasPrefix(trimmed, "!"):
		m.separate()
		m.print(m.theme.user.Render("! " + strings.TrimSpace(trimmed[1:])))
		return m.runShell(strings.TrimSpace(trimmed[1:]))
	}
	if !m.ready || m.mcpWaiting || m.running || m.compressing || m.dialog != nil || m.loopAsk != nil || m.loopPending != nil || m.shellRunning() {
		if m.startErr != nil {
			m.printNotice(noticeError, "the session could not start: "+m.startErr.Error())
			return nil
		}
		idle := !m.running && !m.compressing && m.dialog == nil && !m.shellRunning()
		first := len(m.queued) == 0
		if (!m.ready || idle) && m.queuedShown == len(m.queued) {
			// Nothing is being printed: the prompt can go to the
			// scrollback now. During a turn it would land inside the
			// answer, so it waits in the live area (queue.go).
			m.separate()
			m.print(m.userBlock(text))
			m.queuedShown++
		}
		m.queued = append(m.queued, text)
		switch {
		case !m.ready:
			m.printNotice(noticeInfo, "Queued until the session is ready.")
		case m.mcpWaiting && idle && first:
			// Said once, for the first prompt held, as Gemini CLI does.
			m.printNotice(noticeInfo, mcpWaitNotice)
		}
		return nil
	}
	if !queued {
		m.separate()
		m.print(m.userBlock(text))
	}
	m.print("")
	return m.startTurn(text)
}

// separate sets what the user sends off from the output before it with
// a blank row (command results and notices end without one).
func (m *model) separate() {
	if !m.lastBlank {
		m.print("")
	}
}

func (m *model) userBlock(text string) string {
	lines := strings.Split(termtext.String(shownPrompt(strings.TrimRight(text, "\n"))), "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = "> " + l
		} else {
			lines[i] = "  " + l
		}
	}
	return m.theme.user.Render(strings.Join(lines, "\n"))
}

// cycleMode is Shift+Tab, as Gemini CLI 0.61 cycles: default →
// auto_edit → plan → default, plan skipped while a turn runs, and YOLO
// left to auto_edit. YOLO is never reached from here: two presses meant
// for plan mode must not approve every shell command (Ctrl+Y does that).
func (m *model) cycleMode() {
	if m.agent == nil || m.agent.Policy == nil {
		m.printNotice(noticeInfo, "The approval mode can change once Castor has started.")
		return
	}
	var next policy.Mode
	switch m.agent.Policy.Mode() {
	case policy.ModeDefault:
		next = policy.ModeAutoEdit
	case policy.ModeAutoEdit:
		next = policy.ModePlan
		if m.running {
			next = policy.ModeDefault
		}
	case policy.ModeYolo:
		next = policy.ModeAutoEdit
	default:
		next = policy.ModeDefault
	}
	m.agent.Policy.SetMode(next)
}

// yoloWarning is printed each time Ctrl+Y turns YOLO mode on: from then
// on nothing asks before a shell command runs.
const yoloWarning = "YOLO mode is on: every tool call, shell commands included, runs without asking. Ctrl+Y turns it off."

// toggleYolo is Ctrl+Y: YOLO mode on, or back to default, as Gemini CLI's
// toggle; security.disableYoloMode refuses it with Gemini CLI's words.
func (m *model) toggleYolo() {
	if m.agent == nil || m.agent.Policy == nil {
		m.printNotice(noticeInfo, "The approval mode can change once Castor has started.")
		return
	}
	if m.agent.Policy.Mode() == policy.ModeYolo {
		m.agent.Policy.SetMode(policy.ModeDefault)
		m.printNotice(noticeInfo, "YOLO mode is off: tool calls ask for approval again.")
		return
	}
	if m.agent.Settings.YoloDisabled() {
		m.printNotice(noticeWarn, config.YoloToggleRefused)
		return
	}
	m.agent.Policy.SetMode(policy.ModeYolo)
	m.printNotice(noticeWarn, yoloWarning)
}

// quitWindow is how long a Ctrl-C waits for the second one that quits.
// Armed for good, a Ctrl-C that cancelled a turn made a later one, pressed
// minutes after to clear an empty editor, end the session.
const quitWindow = 2 * time.Second

type quitDisarmMsg struct{ gen int }

func (m *model) armQuit() {
	m.quitArmed = true
	m.quitGen++
	gen, send := m.quitGen, m.send
	// A timer, not a tea.Tick command: the window is a convenience, and
	// the key's command stays empty.
	time.AfterFunc(quitWindow, func() { send(quitDisarmMsg{gen: gen}) })
}

// quit ends the program. The live area goes first: the editor and its
// footer left on screen looked as if castor still took input, and the
// words printed on exit were written over the footer.
func (m *model) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}

// View draws the live area.
func (m *model) View() tea.View {
	if m.quitting {
		return tea.NewView("")
	}
	v := tea.NewView(m.render())
	// The cursor rests at the top left of the live area. Bubble Tea's
	// inline renderer (v2.0.10) otherwise redraws a shrinking frame from
	// the wrong row and leaves its old top rows on screen.
	v.Cursor = tea.NewCursor(0, 0)
	return v
}

func (m *model) render() string {
	if m.trust != nil {
		return m.renderTrust()
	}
	if len(m.elicits) > 0 {
		return m.renderElicit()
	}
	var parts []string
	if tail := m.stream.Tail(); strings.TrimSpace(tail) != "" {
		if tail != m.tailCache.src {
			m.tailCache.src, m.tailCache.out = tail, m.md.render(tail)
		}
		parts = append(parts, m.tailCache.out)
	}
	for _, c := range m.calls {
		if c.Status == agent.StatusAwaitingApproval && m.dialog != nil && m.dialog.call.ID == c.ID {
			continue
		}
		parts = append(parts, m.renderCall(c, true))
	}
	if m.shell != nil {
		if out := m.renderShell(); out != "" {
			parts = append(parts, out)
		}
	}
	if out := m.renderBackground(); out != "" && m.dialog == nil {
		parts = append(parts, out)
	}
	// One status row, always there (blank when idle): the live area
	// changing height while output is printed above it is what makes
	// inline renderers misplace rows.
	status := ""
	switch {
	case m.quitArmed:
		status = m.theme.warn.Render("Press Ctrl-C again to exit.")
	case m.dialog != nil:
		parts = append(parts, m.renderDialog())
	case m.loopAsk != nil:
		parts = append(parts, m.renderLoopAsk())
	case m.rewind != nil:
		parts = append(parts, m.renderRewind())
	case m.running || m.shellRunning():
		status = m.spinnerLine()
	case m.mcpWaiting:
		status = m.mcpStatusLine()
	}
	if len(m.queued) > 0 && m.ready && status == "" {
		status = m.theme.dim.Render(fmt.Sprintf("%d queued", len(m.queued)))
	}
	if m.search != nil && m.dialog == nil {
		status = m.renderSearch()
	}
	if m.dialog == nil {
		parts = append(parts, status)
		if q := m.renderQueued(); q != "" {
			parts = append(parts, q)
		}
	}
	if t := m.renderTodos(); t != "" && m.dialog == nil && m.picker == nil {
		parts = append(parts, t)
	}
	switch {
	case m.dialog != nil, m.loopAsk != nil:
	case m.picker != nil:
		parts = append(parts, m.renderPicker())
	case m.overlay != "":
		// Ctrl+O's output and ?'s shortcuts, above the input (keys.go).
		parts = append(parts, m.overlay, m.inputBox())
	default:
		parts = append(parts, m.inputBox())
		if c := m.renderCompletion(); c != "" {
			parts = append(parts, c)
		}
	}
	if !m.minimal {
		parts = append(parts, m.footer())
	}
	return strings.Join(parts, "\n")
}

func (m *model) spinnerLine() string {
	label := "Working"
	if m.thought != "" {
		label = m.thought
	}
	if m.retry != nil {
		label = m.retry.label(m.now())
	}
	elapsed := m.now().Sub(m.turnStart).Truncate(time.Second)
	if m.toolPTY != nil && m.running {
		label = m.toolPTYLabel()
	}
	if m.shellRunning() && !m.running {
		label = m.shellLabel()
		elapsed = m.now().Sub(m.shell.start).Truncate(time.Second)
	}
	frame := m.spin.View()
	if m.screenReader {
		frame = "…"
	}
	hint := fmt.Sprintf(" (esc to cancel, %s)", elapsed)
	// A long label (a retry's reason) gives way, not how to cancel.
	if room := m.width - ansi.StringWidth(frame) - 1 - ansi.StringWidth(hint); room >= 10 {
		label = ansi.Truncate(label, room, "…")
	}
	return ansi.Truncate(frame+" "+m.theme.accent.Render(label)+m.theme.dim.Render(hint), m.width, "…")
}

// footer is one line: directory and branch, model and context left,
// approval mode, the sandbox, MCP and IDE status.
func (m *model) footer() string {
	dir := m.workDir
	if m.homeDir != "" && (dir == m.homeDir || strings.HasPrefix(dir, m.homeDir+"/")) {
		dir = "~" + strings.TrimPrefix(dir, m.homeDir)
	}
	if m.branch != "" {
		dir += " (" + m.branch + ")"
	}
	// The footer gives way in steps on a narrow terminal: the directory
	// first, then the hints, then the model; the approval mode always
	// stays, as it says what tool calls will do (YOLO must never be cut).
	var rest string
	for level := range 3 {
		rest = strings.Join(m.footerRight(level), " · ")
		if ansi.StringWidth(rest)+2+min(ansi.StringWidth(dir), 12) <= m.width {
			break
		}
	}
	room := m.width - ansi.StringWidth(rest) - 2
	switch {
	case room < 4:
		return ansi.Truncate(m.theme.dim.Render(rest), m.width, "…")
	case ansi.StringWidth(dir) > room:
		dir = ansi.TruncateLeft(dir, ansi.StringWidth(dir)-room+1, "…")
	}
	line := m.theme.accent.Render(dir) + "  " + m.theme.dim.Render(rest)
	return ansi.Truncate(line, m.width, "…")
}

// footerRight is the footer's right part, shorter at each level: 0 says
// all, 1 drops the hints, 2 the model too.
func (m *model) footerRight(level int) []string {
	right := []string{}
	if v := m.vimStatus(); v != "" {
		right = append(right, v)
	}
	if m.status != "" {
		right = append(right, m.status)
	}
	if m.modelID != "" {
		switch level {
		case 0:
			right = append(right, fmt.Sprintf("%s (%d%% context left)", m.modelID, contextLeft(m.promptTokens, m.contextWindow())))
		case 1:
			right = append(right, fmt.Sprintf("%s (%d%%)", m.modelID, contextLeft(m.promptTokens, m.contextWindow())))
		}
	}
	if m.cost.priced && level < 2 {
		right = append(right, usd(m.cost.session))
	}
	if m.agent != nil && m.agent.Policy != nil {
		mode := m.agent.Policy.Mode()
		s := string(mode)
		switch mode {
		case policy.ModeYolo:
			s = m.theme.bad.Render("YOLO")
		case policy.ModeAutoEdit:
			s = m.theme.warn.Render("auto-accept edits")
		case policy.ModePlan:
			s = m.theme.accent.Render("plan")
		}
		if level == 0 && mode == policy.ModeYolo {
			s += m.theme.dim.Render(" (ctrl+y)")
		} else if level == 0 {
			s += m.theme.dim.Render(" (shift+tab)")
		}
		right = append(right, s)
	}
	if m.cfg.Sandbox != "" && level < 2 {
		right = append(right, m.cfg.Sandbox)
	}
	if m.agent != nil && m.agent.MCP != nil {
		st := m.agent.MCP.Statuses()
		ok := 0
		for _, s := range st {
			if s.Reason == "" && s.Status == "connected" {
				ok++
			}
		}
		right = append(right, fmt.Sprintf("MCP %d/%d", ok, len(st)))
	}
	if c := m.ideClient(); c != nil {
		// The editor may have closed since the session started.
		if c.Status().State == ide.Connected {
			right = append(right, "IDE")
		} else {
			right = append(right, "IDE disconnected")
		}
	}
	return right
}

// contextLeft is the share of the model's window the last prompt left
// free; every Gemini model Castor serves has a 1M-token window.
func contextLeft(used int32, window int) int {
	left := 100 - int(int64(used)*100/int64(window))
	return max(left, 0)
}

// contextWindow is the current model's context window: a provider
// model's from the settings (setup.Agent.ContextWindow), else Gemini's
// million tokens.
func (m *model) contextWindow() int {
	if m.agent != nil {
		if w := m.agent.ContextWindow(m.modelID); w > 0 {
			return w
		}
	}
	return 1 << 20
}

// inputKey is what the input box's drawing depends on.
type inputKey struct {
	value             string
	line, col, scroll int
	width             int
	placeholder       string
	focused           bool
}

// inputBox is the input editor in its box, drawn again only when the
// input changed (applyTheme and resize forget the last drawing).
func (m *model) inputBox() string {
	k := inputKey{value: m.input.Value(), line: m.input.Line(), col: m.input.Column(), scroll: m.input.ScrollYOffset(),
		width: m.width, focused: m.input.Focused(), placeholder: m.input.Placeholder}
	if m.boxCache.out == "" || k != m.boxCache.key {
		m.boxCache.key, m.boxCache.out = k, m.theme.box.Width(m.width).Render(m.input.View())
	}
	return m.boxCache.out
}
