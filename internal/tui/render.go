package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// Limits of what a tool block shows; the whole output stays in history
// and in the recording.
const (
	maxResultLines = 10
	maxLiveLines   = 8
	maxDiffLines   = 30
)

// callIcon is a call's status at a glance.
func (m *model) callIcon(s agent.Status) string {
	switch s {
	case agent.StatusSuccess:
		return m.theme.ok.Render("✓")
	case agent.StatusError:
		return m.theme.bad.Render("✗")
	case agent.StatusCancelled:
		return m.theme.warn.Render("-")
	case agent.StatusAwaitingApproval:
		return m.theme.warn.Render("?")
	case agent.StatusExecuting:
		return m.theme.accent.Render("⊷")
	}
	return m.theme.dim.Render("o")
}

// renderCall draws a call as a compact block: status, name, argument
// summary, then the result summary (a coloured diff for edits), or the
// live output while it runs.
func (m *model) renderCall(c *agent.ToolCall, live bool) string {
	name := c.Name
	if c.Tool != nil && c.Tool.DisplayName() != "" {
		name = c.Tool.DisplayName()
	}
	desc := c.Description
	if desc == "" && len(c.Args) > 0 {
		b, _ := json.Marshal(c.Args)
		desc = string(b)
	}
	desc = firstLine(termtext.Visible(desc))
	head := m.callIcon(c.Status) + " " + m.theme.title.Render(termtext.Visible(name)) + " " + m.theme.dim.Render(desc)
	lines := []string{ansi.Truncate(head, m.width, "…")}
	var body []string
	switch {
	case live && c.LiveOutput != "":
		body = tailLines(termtext.Visible(c.LiveOutput), maxLiveLines)
	case c.Result != nil && c.Result.Diff != nil && c.Status == agent.StatusSuccess:
		body = m.renderDiff(c.Result.Diff.FileDiff, maxDiffLines)
		// The language server's new problems, under the diff (internal/lsp).
		if c.Result.Notes != "" {
			body = append(body, headLines(termtext.Visible(c.Result.Notes), maxResultLines)...)
		}
	case c.Result != nil:
		body = headLines(termtext.Visible(strings.TrimRight(c.Result.Display, "\n")), maxResultLines)
	}
	for _, l := range body {
		lines = append(lines, ansi.Truncate("  "+l, m.width, "…"))
	}
	return strings.Join(lines, "\n")
}

// renderDiff colours a unified diff and numbers its lines (the new file's
// numbers for added and context lines, the old file's for removed ones).
func (m *model) renderDiff(diff string, limit int) []string {
	var out []string
	oldN, newN := 0, 0
	total := 0
	for _, l := range strings.Split(strings.TrimRight(termtext.Visible(diff), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			oldN, newN = hunkStart(l)
			if total > 0 {
				total++
				if len(out) < limit {
					out = append(out, m.theme.dim.Render("   ⋮"))
				}
			}
			continue
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "Index:"), strings.HasPrefix(l, "==="), strings.HasPrefix(l, `\`):
			continue
		}
		var s string
		switch {
		case strings.HasPrefix(l, "+"):
			s = m.theme.lineNo.Render(fmt.Sprintf("%4d ", newN)) + m.theme.diffAdd.Render("+ "+l[1:])
			newN++
		case strings.HasPrefix(l, "-"):
			s = m.theme.lineNo.Render(fmt.Sprintf("%4d ", oldN)) + m.theme.diffDel.Render("- "+l[1:])
			oldN++
		default:
			s = m.theme.lineNo.Render(fmt.Sprintf("%4d ", newN)) + m.theme.diffCtx.Render("  "+strings.TrimPrefix(l, " "))
			oldN++
			newN++
		}
		total++
		if len(out) < limit {
			out = append(out, s)
		}
	}
	if total > limit {
		out = append(out, m.theme.dim.Render(fmt.Sprintf("… %d more lines", total-limit)))
	}
	return out
}

// hunkStart reads "@@ -a,b +c,d @@".
func hunkStart(h string) (oldN, newN int) {
	f := strings.Fields(h)
	num := func(s string) int {
		s = strings.TrimLeft(s, "-+")
		s, _, _ = strings.Cut(s, ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	if len(f) >= 3 {
		return num(f[1]), num(f[2])
	}
	return 1, 1
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func headLines(s string, n int) []string {
	if s == "" {
		return nil
	}
	l := strings.Split(s, "\n")
	if len(l) > n {
		more := len(l) - n
		l = append(l[:n:n], fmt.Sprintf("… %d more lines", more))
	}
	return l
}

func tailLines(s string, n int) []string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return l
}

// printHistory renders a resumed conversation into the scrollback: user
// prompts, answers as Markdown, tool calls as one line each.
func (m *model) printHistory(heading string, h []*genai.Content) {
	m.printNotice(noticeInfo, heading)
	for _, c := range h {
		for _, p := range c.Parts {
			switch {
			case p.Thought:
			case p.FunctionCall != nil:
				m.print(m.theme.ok.Render("✓") + " " + m.theme.title.Render(termtext.String(p.FunctionCall.Name)) + " " + m.theme.dim.Render(argsSummary(p.FunctionCall.Args, m.width)))
			case p.FunctionResponse != nil:
			case p.Text != "" && c.Role == genai.RoleUser:
				if strings.HasPrefix(p.Text, "<session_context>") {
					continue
				}
				m.print(m.userBlock(p.Text))
			case p.Text != "":
				m.printMarkdown(termtext.String(p.Text))
			}
		}
	}
	m.print("")
}

func argsSummary(args map[string]any, width int) string {
	if len(args) == 0 {
		return ""
	}
	b, _ := json.Marshal(args)
	return ansi.Truncate(termtext.String(string(b)), max(width-20, 10), "…")
}

// gitBranch reads the branch from .git/HEAD without running git, so that
// the first frame does not wait for a process.
func gitBranch(dir string) string {
	for d := dir; d != "" && d != "/" && d != "."; d = filepath.Dir(d) {
		head := filepath.Join(d, ".git", "HEAD")
		data, err := os.ReadFile(head)
		if err != nil {
			if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && !fi.IsDir() {
				return "" // a worktree or submodule: not worth resolving here
			}
			continue
		}
		s := strings.TrimSpace(string(data))
		if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
			return ref
		}
		if len(s) >= 7 {
			return s[:7]
		}
		return ""
	}
	return ""
}

// confirmTitle is what a dialog asks.
func confirmQuestion(d *tool.ConfirmationDetails) string {
	switch d.Type {
	case tool.ConfirmEdit:
		return "Apply this change?"
	case tool.ConfirmExec:
		return "Allow execution of: " + strings.Join(rootsOf(d), ", ") + "?"
	case tool.ConfirmMCP:
		return fmt.Sprintf("Allow execution of MCP tool %q from server %q?", d.ToolName, d.ServerName)
	}
	return "Do you want to proceed?"
}

// rootsOf names the commands an exec confirmation is about: for a shell
// line, what an answer for the session would cover ("git add", not
// "git": policy.SessionCommands), else the roots the tool gave.
func rootsOf(d *tool.ConfirmationDetails) []string {
	if d.Type == tool.ConfirmExec && d.Command != "" {
		if cmds, ok := policy.SessionCommands(d.Command); ok {
			return cmds
		}
	}
	if len(d.RootCommands) > 0 {
		return d.RootCommands
	}
	if d.RootCommand != "" {
		return []string{d.RootCommand}
	}
	return []string{firstLine(d.Command)}
}
