package tui

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/tool"
)

// historyFile is the per-project input history, under the project's
// temporary directory (~/.gemini/tmp/<project>/), one JSON string a line.
const (
	historyFile = "castor-input-history.jsonl"
	maxHistory  = 1000
)

// inputHistory is what the user typed before, newest last; Up and Down
// walk it, keeping the unsent draft.
type inputHistory struct {
	path  string
	items []string
	pos   int // len(items) when not browsing
	draft string
}

func loadHistory(dir string) *inputHistory {
	h := &inputHistory{}
	if dir != "" {
		h.path = filepath.Join(dir, historyFile)
	}
	if f, err := os.Open(h.path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var s string
			// A damaged line is skipped: history is a convenience.
			if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
				h.items = append(h.items, s)
			}
		}
		f.Close()
	}
	if len(h.items) > maxHistory {
		h.items = h.items[len(h.items)-maxHistory:]
	}
	h.pos = len(h.items)
	return h
}

func (h *inputHistory) add(s string) {
	if n := len(h.items); n == 0 || h.items[n-1] != s {
		h.items = append(h.items, s)
		if h.path != "" {
			if f, err := os.OpenFile(h.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
				b, _ := json.Marshal(s)
				f.Write(append(b, '\n'))
				f.Close()
			}
		}
	}
	h.pos = len(h.items)
	h.draft = ""
}

// prev returns the entry before the one shown; cur is the text in the
// editor, kept as the draft when browsing starts.
func (h *inputHistory) prev(cur string) (string, bool) {
	h.edited(cur)
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.items) {
		h.draft = cur
	}
	h.pos--
	return h.items[h.pos], true
}

// next returns the entry after the one shown, and the draft after the
// newest; cur is the text in the editor.
func (h *inputHistory) next(cur string) (string, bool) {
	if h.edited(cur); h.pos >= len(h.items) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.items) {
		return h.draft, true
	}
	return h.items[h.pos], true
}

// edited stops browsing when the editor no longer holds the entry shown
// (the user changed it, or cleared it with Ctrl-C): what they typed is the
// new draft, never replaced by an older draft or lost.
func (h *inputHistory) edited(cur string) {
	if h.pos < len(h.items) && cur != h.items[h.pos] {
		h.pos = len(h.items)
		h.draft = cur
	}
}

// completion is the list shown under the editor for "/" commands and
// "@" paths.
type completion struct {
	items  []compItem
	sel    int
	prefix string // the text the chosen item replaces, at the end of the input
	slash  bool
}

type compItem struct{ value, desc string }

func (c *completion) active() bool { return len(c.items) > 0 }

// submitOnAccept: Enter on a complete command runs it at once.
func (c *completion) submitOnAccept() bool { return c.slash }

func (c *completion) move(d int) {
	if len(c.items) > 0 {
		c.sel = (c.sel + d + len(c.items)) % len(c.items)
	}
}

const maxCompletions = 8

// updateCompletion recomputes the list from the text before the end of
// the input.
func (m *model) updateCompletion() {
	m.comp = completion{}
	v := m.input.Value()
	if m.input.Line() != m.input.LineCount()-1 {
		return
	}
	switch {
	case strings.HasPrefix(v, "/") && !strings.Contains(v, "\n"):
		m.comp = m.slashCompletion(v[1:])
	default:
		i := strings.LastIndexAny(v, " \n\t")
		word := v[i+1:]
		if strings.HasPrefix(word, "@") && m.files != nil {
			m.comp = m.files.complete(word[1:])
		}
	}
}

func (m *model) slashCompletion(typed string) completion {
	if m.agent == nil {
		return completion{}
	}
	words := strings.Fields(typed)
	trailing := strings.HasSuffix(typed, " ")
	cmds := m.allCommands()
	var items []compItem
	prefix := typed
	switch {
	case len(words) == 0 || (len(words) == 1 && !trailing):
		p := ""
		if len(words) == 1 {
			p = words[0]
		}
		for _, c := range cmds {
			if strings.HasPrefix(c.name, p) {
				items = append(items, compItem{c.name, c.desc})
			}
		}
		prefix = p
	case len(words) == 1 && trailing, len(words) == 2 && !trailing:
		c, _, _ := m.commands().Lookup(words[0])
		if c == nil {
			return completion{}
		}
		p := ""
		if len(words) == 2 {
			p = words[1]
		}
		for _, s := range c.SubCommands {
			if strings.HasPrefix(s.Name, p) {
				items = append(items, compItem{s.Name, s.Description})
			}
		}
		prefix = p
	}
	if len(items) == 1 && items[0].value == prefix {
		return completion{}
	}
	// Every command is listed (Gemini CLI 0.61 has over 40); the list
	// scrolls.
	return completion{items: items, prefix: prefix, slash: true}
}

func (m *model) acceptCompletion() {
	c := m.comp
	if !c.active() {
		return
	}
	v := m.input.Value()
	v = strings.TrimSuffix(v, c.prefix) + c.items[c.sel].value
	if c.slash {
		v += " "
	}
	m.input.SetValue(v)
	m.input.MoveToEnd()
	m.comp = completion{}
	if !c.slash {
		m.updateCompletion()
	}
}

func (m *model) renderCompletion() string {
	c := m.comp
	if !c.active() {
		return ""
	}
	start := 0
	if c.sel >= maxCompletions {
		start = c.sel - maxCompletions + 1
	}
	end := min(start+maxCompletions, len(c.items))
	var lines []string
	for i := start; i < end; i++ {
		it := c.items[i]
		label := it.value
		if c.slash {
			label = "/" + label
		}
		s := "  " + label
		if it.desc != "" {
			s += "  " + m.theme.dim.Render(firstLine(it.desc))
		}
		if i == c.sel {
			s = m.theme.selected.Render("› "+label) + "  " + m.theme.dim.Render(firstLine(it.desc))
		}
		lines = append(lines, ansi.Truncate(s, m.width, "…"))
	}
	if len(c.items) > end {
		lines = append(lines, m.theme.dim.Render("  …"))
	}
	return strings.Join(lines, "\n")
}

// fileIndex lists the workspace's files once, honouring .gitignore and
// .geminiignore, for "@" completion.
type fileIndex struct {
	root  string
	files []string
	built bool
}

const maxIndexedFiles = 20000

func newFileIndex(root string) *fileIndex { return &fileIndex{root: root} }

func (fi *fileIndex) build() {
	fi.built = true
	filter := config.NewFileFilter(fi.root, tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true})
	_ = filepath.WalkDir(fi.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == fi.root {
			return nil
		}
		if filter.Ignored(p, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(fi.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		fi.files = append(fi.files, rel)
		if len(fi.files) >= maxIndexedFiles {
			return filepath.SkipAll
		}
		return nil
	})
	sort.Strings(fi.files)
}

// complete finds paths starting with typed, then paths containing it.
func (fi *fileIndex) complete(typed string) completion {
	if !fi.built {
		fi.build()
	}
	var pre, sub []compItem
	low := strings.ToLower(typed)
	for _, f := range fi.files {
		lf := strings.ToLower(f)
		switch {
		case f == typed:
		case strings.HasPrefix(lf, low):
			// Only the next level, as a path is typed one directory at
			// a time.
			rest := strings.TrimSuffix(f[len(typed):], "/")
			if !strings.Contains(rest, "/") {
				pre = append(pre, compItem{value: f})
			}
		case typed != "" && strings.Contains(lf, low):
			sub = append(sub, compItem{value: f})
		}
		if len(pre) >= maxCompletions*4 {
			break
		}
	}
	items := append(pre, sub...)
	if len(items) > maxCompletions*4 {
		items = items[:maxCompletions*4]
	}
	if len(items) == 1 && items[0].value == typed {
		return completion{}
	}
	return completion{items: items, prefix: typed}
}
