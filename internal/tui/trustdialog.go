package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
)

// The folder trust dialog (Gemini CLI's FolderTrustDialog): the assembly
// asks through askTrust before it reads anything from a folder that no
// rule decides, and waits. The dialog replaces the input and lists what
// the folder would run; Enter saves the choice, Esc or Ctrl-C leave
// castor with nothing from the folder run (exit 130, as Gemini CLI).
// /permissions trust [dir] shows the same dialog to change a folder's
// trust later; its answer is saved and applies from the next start.

// trustExitCode is Gemini CLI's FATAL_CANCELLATION_ERROR, its exit code
// when the trust dialog is left with Esc.
const trustExitCode = 130

// trustAskMsg shows the dialog.
type trustAskMsg struct{ ask *trustAsk }

// trustAsk is the question on screen and where its answer goes.
type trustAsk struct {
	q      setup.TrustQuestion
	labels []string
	levels []config.TrustLevel
	sel    int
	reply  chan<- trustReply
	done   bool
	// modify is /permissions' dialog: saved by the face, Esc closes it;
	// current is the folder's trust then.
	modify  bool
	current string
}

type trustReply struct {
	level config.TrustLevel
	err   error
}

func (t *trustAsk) answer(r trustReply) {
	if !t.done && t.reply != nil {
		t.done = true
		t.reply <- r
	}
}

// askTrust is the assembly's setup.Options.AskTrust: it shows the dialog
// and waits for the choice.
func (m *model) askTrust(ctx context.Context, q setup.TrustQuestion) (config.TrustLevel, error) {
	reply := make(chan trustReply, 1)
	labels, levels := setup.TrustChoices(q.Folder)
	m.send(trustAskMsg{ask: &trustAsk{q: q, labels: labels, levels: levels, reply: reply}})
	select {
	case r := <-reply:
		return r.level, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// onTrust handles the dialog's messages; it reports whether msg was one
// (a paste while the dialog is shown goes nowhere).
func (m *model) onTrust(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case trustAskMsg:
		m.trust = msg.ask
		m.status = "waiting for folder trust"
		return true
	case tea.PasteMsg:
		return m.trust != nil
	}
	return false
}

// trustKey handles a key while the dialog is shown.
func (m *model) trustKey(k tea.KeyPressMsg) tea.Cmd {
	t := m.trust
	ks := k.String()
	switch ks {
	case "up", "k":
		t.sel = (t.sel + len(t.levels) - 1) % len(t.levels)
	case "down", "j", "tab":
		t.sel = (t.sel + 1) % len(t.levels)
	case "enter":
		return m.chooseTrust(t.sel)
	case "esc", "ctrl+c":
		m.trust = nil
		if t.modify {
			m.printNotice(noticeInfo, "Folder trust unchanged.")
			return nil
		}
		t.answer(trustReply{err: setup.ErrTrustNotGiven})
		key := "escape"
		if ks == "ctrl+c" {
			key = "Ctrl-C"
		}
		m.exitNote = fmt.Sprintf("%s Exiting since %s was pressed.", setup.ErrTrustNotGiven, key)
		m.exitCode = trustExitCode
		return m.quit()
	default:
		if len(ks) == 1 && ks[0] >= '1' && int(ks[0]-'0') <= len(t.levels) {
			return m.chooseTrust(int(ks[0] - '1'))
		}
	}
	return nil
}

// chooseTrust answers with choice i; the assembly saves it and goes on.
func (m *model) chooseTrust(i int) tea.Cmd {
	t := m.trust
	m.trust = nil
	if t.modify {
		m.saveTrust(t.q.Folder, t.levels[i])
		return nil
	}
	m.status = "starting…"
	m.print(m.theme.dim.Render("Folder trust: " + termtext.String(t.labels[i])))
	t.answer(trustReply{level: t.levels[i]})
	return nil
}

// noteUntrusted says on screen that the session runs without the
// folder's configuration, as Gemini CLI does at start-up.
func (m *model) noteUntrusted(a *setup.Agent) {
	if a.Trusted || !a.Settings.Trust.FolderTrustEnabled {
		return
	}
	m.printNotice(noticeInfo, setup.UntrustedNotice("Use the `/permissions` command to change the trust level."))
}

// permissionsUsage is Gemini CLI's.
const permissionsUsage = "Usage: /permissions trust [<directory-path>]"

// cmdPermissions is Gemini CLI's /permissions trust [dir]: the trust
// dialog for the workspace or dir, showing its current trust.
func (m *model) cmdPermissions(args []string) tea.Cmd {
	switch {
	case len(args) == 0:
		m.printNotice(noticeError, "Please provide a subcommand for /permissions. "+permissionsUsage)
		return nil
	case args[0] != "trust":
		m.printNotice(noticeError, fmt.Sprintf("Invalid subcommand for /permissions: %s. %s", args[0], permissionsUsage))
		return nil
	}
	dir := m.agent.Workspace.Root()
	if p := strings.TrimSpace(strings.Join(args[1:], " ")); p != "" {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(m.homeDir, strings.TrimPrefix(p, "~"))
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		dir = filepath.Clean(p)
	}
	if fi, err := os.Stat(dir); err != nil {
		m.printNotice(noticeError, fmt.Sprintf("Error accessing path: %s. %v", dir, err))
		return nil
	} else if !fi.IsDir() {
		m.printNotice(noticeError, "Path is not a directory: "+dir)
		return nil
	}
	current := "Not Set"
	if tf, err := config.LoadTrustedFolders(m.agent.Home.TrustedFoldersPath(m.agent.Env.Lookup)); err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	} else if st := tf.Lookup(dir); st != config.TrustUnknown {
		current = st.String()
	}
	labels, levels := setup.TrustChoices(dir)
	labels[0] = strings.Replace(labels[0], "Trust folder", "Trust this folder", 1)
	m.trust = &trustAsk{q: setup.TrustQuestion{Folder: dir, Found: setup.DiscoverFolder(dir)}, labels: labels, levels: levels, modify: true, current: current}
	return nil
}

// saveTrust saves /permissions' answer.
func (m *model) saveTrust(dir string, level config.TrustLevel) {
	path, err := setup.SaveTrust(m.agent.Home, m.agent.Env.Lookup, dir, level)
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return
	}
	m.printNotice(noticeInfo, fmt.Sprintf("Saved %s for %s in %s. Restart castor to apply the trust change.", level, dir, homeRelative(path)))
}

// trustIntro is Gemini CLI's explanation above the list.
const trustIntro = "Trusting a folder allows Castor to load its local configurations, including custom commands, hooks, MCP servers, agent skills, and settings. These configurations could execute code on your behalf or change the behavior of the CLI."

// renderTrust draws the dialog and the footer in place of the input. On
// a short terminal the explanation goes first, then the end of the list
// of what the folder holds; the title and the choices always show.
func (m *model) renderTrust() string {
	t := m.trust
	inner := max(m.width-4, 20)
	// item wraps one entry under its bullet, later rows indented.
	item := func(bullet, text string, style func(...string) string) []string {
		rows := strings.Split(ansi.Wrap(termtext.String(text), max(inner-ansi.StringWidth(bullet), 10), " "), "\n")
		for i, r := range rows {
			if i == 0 {
				rows[i] = style(bullet + r)
			} else {
				rows[i] = style(strings.Repeat(" ", ansi.StringWidth(bullet)) + r)
			}
		}
		return rows
	}
	plain := func(s ...string) string { return strings.Join(s, "") }
	head := []string{m.theme.title.Render("Do you trust the files in this folder?"), m.theme.dim.Render(termtext.String(t.q.Folder))}
	leave := "Esc leaves castor without running anything from this folder"
	if t.modify {
		head = []string{m.theme.title.Render("Modify Trust Level"), "Folder: " + termtext.String(t.q.Folder), "Current Level: " + m.theme.title.Render(t.current)}
		leave = "Esc closes"
	}
	intro := append([]string{""}, strings.Split(ansi.Wordwrap(trustIntro, inner, " "), "\n")...)

	var found []string
	f := t.q.Found
	if len(f.Errors) > 0 {
		found = append(found, "", m.theme.bad.Render("Discovery Errors:"))
		for _, e := range f.Errors {
			found = append(found, item("  • ", e, m.theme.bad.Render)...)
		}
	}
	if len(f.Warnings) > 0 {
		found = append(found, "", m.theme.warn.Render("Security Warnings:"))
		for _, w := range f.Warnings {
			found = append(found, item("  • ", w, m.theme.warn.Render)...)
		}
	}
	if groups := f.Groups(); len(groups) > 0 {
		found = append(found, "", m.theme.title.Render("This folder contains:"))
		for _, g := range groups {
			found = append(found, fmt.Sprintf("  • %s (%d):", g.Label, len(g.Items)))
			for _, it := range g.Items {
				found = append(found, item("    - ", it, plain)...)
			}
		}
	}

	choices := []string{""}
	for i, l := range t.labels {
		label := fmt.Sprintf("%d. %s", i+1, termtext.String(l))
		if i == t.sel {
			choices = append(choices, m.theme.selected.Render("● "+label))
		} else {
			choices = append(choices, "  "+label)
		}
	}
	choices = append(choices, "", m.theme.dim.Render("Enter chooses · "+leave))

	// Two borders and the footer around the dialog.
	room := m.height - 3 - len(head) - len(choices)
	body := append(intro, found...)
	if len(body) > room {
		body = found
	}
	if len(body) > room {
		keep := max(room-1, 0)
		body = body[:keep:keep]
		if room > 0 {
			body = append(body, m.theme.dim.Render(fmt.Sprintf("… %d more lines (a taller terminal shows them)", len(found)-keep)))
		}
	}
	lines := append(append(head, body...), choices...)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return m.theme.dialog.Width(m.width).Render(strings.Join(lines, "\n")) + "\n" + m.footer()
}
