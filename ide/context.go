package ide

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/textutil"
)

// Limits Gemini CLI applies to the context it gives the model
// (IDE_MAX_OPEN_FILES, IDE_MAX_SELECTED_TEXT_LENGTH).
const (
	MaxOpenFiles       = 10
	MaxSelectedTextLen = 16384
)

// truncatedMarker ends a selection cut at MaxSelectedTextLen, as Gemini CLI
// marks it.
const truncatedMarker = "... [TRUNCATED]"

// Context is the IdeContext of the spec: what the user has open in the
// editor. It is the payload of ide/contextUpdate.
type Context struct {
	// WorkspaceState is nil when the editor sent none.
	WorkspaceState *WorkspaceState `json:"workspaceState,omitempty"`
}

// WorkspaceState lists the open files and whether the editor trusts the
// workspace.
type WorkspaceState struct {
	// OpenFiles are the files open in the editor.
	OpenFiles []File `json:"openFiles,omitempty"`
	// IsTrusted is nil when the editor does not say.
	IsTrusted *bool `json:"isTrusted,omitempty"`
}

// File is one open file.
type File struct {
	// Path is absolute; anything else is a virtual file (an unsaved buffer,
	// a settings page) and is dropped.
	Path string `json:"path"`
	// Timestamp is when the file last had focus, in Unix milliseconds (0
	// when it never had).
	Timestamp int64 `json:"timestamp"`
	// IsActive marks the focused file; after normalisation at most the
	// most recent file is active.
	IsActive bool `json:"isActive,omitempty"`
	// Cursor and SelectedText only count on the active file.
	Cursor       *Cursor `json:"cursor,omitempty"`
	SelectedText string  `json:"selectedText,omitempty"`
}

// Cursor is a 1-based position.
type Cursor struct {
	// Line and Character start at 1.
	Line      int `json:"line"`
	Character int `json:"character"`
}

// UnmarshalJSON accepts any JSON number for the position: JavaScript
// companions have no integer type, and one odd value must not cost the
// whole update.
func (c *Cursor) UnmarshalJSON(b []byte) error {
	var w struct {
		Line      *float64 `json:"line"`
		Character *float64 `json:"character"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Line == nil || w.Character == nil {
		return errors.New("cursor needs line and character")
	}
	c.Line, c.Character = clampInt(*w.Line), clampInt(*w.Character)
	return nil
}

// UnmarshalJSON requires path and timestamp, as Gemini CLI's schema does,
// and accepts a fractional timestamp.
func (f *File) UnmarshalJSON(b []byte) error {
	var w struct {
		Path         *string  `json:"path"`
		Timestamp    *float64 `json:"timestamp"`
		IsActive     *bool    `json:"isActive"`
		Cursor       *Cursor  `json:"cursor"`
		SelectedText *string  `json:"selectedText"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Path == nil {
		return errors.New("open file without a path")
	}
	if w.Timestamp == nil {
		return fmt.Errorf("open file %s without a timestamp", *w.Path)
	}
	*f = File{Path: *w.Path, Timestamp: int64(clampFloat(*w.Timestamp)), Cursor: w.Cursor}
	if w.IsActive != nil {
		f.IsActive = *w.IsActive
	}
	if w.SelectedText != nil {
		f.SelectedText = *w.SelectedText
	}
	return nil
}

func clampFloat(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case v > math.MaxInt64/2:
		return math.MaxInt64 / 2
	case v < math.MinInt64/2:
		return math.MinInt64 / 2
	}
	return v
}

func clampInt(v float64) int {
	v = clampFloat(v)
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	if v < math.MinInt32 {
		return math.MinInt32
	}
	return int(v)
}

// ParseContext decodes the params of an ide/contextUpdate notification and
// normalises them. A malformed update is an error, and the caller keeps the
// previous context, as Gemini CLI's schema check drops such notifications.
func ParseContext(params []byte) (*Context, error) {
	var c Context
	if len(bytes.TrimSpace(params)) == 0 || bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
		return nil, errors.New("ide/contextUpdate without params")
	}
	if err := json.Unmarshal(params, &c); err != nil {
		return nil, fmt.Errorf("malformed ide/contextUpdate: %w", err)
	}
	return Normalize(&c), nil
}

// Normalize returns a copy of c cut down the way Gemini CLI's context
// store does: virtual files dropped, files sorted newest first, only the
// most recent file active (and only if it says it is) with its cursor and
// selection, the selection cut at MaxSelectedTextLen UTF-16 units, and at
// most MaxOpenFiles files.
func Normalize(c *Context) *Context {
	if c == nil {
		return nil
	}
	out := &Context{}
	if c.WorkspaceState == nil {
		return out
	}
	ws := &WorkspaceState{IsTrusted: c.WorkspaceState.IsTrusted}
	out.WorkspaceState = ws
	for _, f := range c.WorkspaceState.OpenFiles {
		if isVirtual(f.Path) {
			continue
		}
		if f.Cursor != nil {
			cur := *f.Cursor
			f.Cursor = &cur
		}
		ws.OpenFiles = append(ws.OpenFiles, f)
	}
	if len(ws.OpenFiles) == 0 {
		ws.OpenFiles = nil
		return out
	}
	// Stable, like Array.prototype.sort, so equal timestamps keep the
	// editor's order.
	slices.SortStableFunc(ws.OpenFiles, func(a, b File) int {
		switch {
		case a.Timestamp > b.Timestamp:
			return -1
		case a.Timestamp < b.Timestamp:
			return 1
		}
		return 0
	})
	first := ws.OpenFiles[0].IsActive
	for i := range ws.OpenFiles {
		f := &ws.OpenFiles[i]
		if i == 0 && first {
			f.SelectedText = truncateSelection(f.SelectedText)
			continue
		}
		f.IsActive, f.Cursor, f.SelectedText = false, nil, ""
	}
	if len(ws.OpenFiles) > MaxOpenFiles {
		ws.OpenFiles = ws.OpenFiles[:MaxOpenFiles]
	}
	return out
}

// isVirtual reports whether a path names no file on disk: the spec says
// companions must leave such files out, and the CLI does not trust them to.
func isVirtual(p string) bool {
	if p == "" || !utf8.ValidString(p) {
		return true
	}
	return !filepath.IsAbs(p) && !isWindowsAbs(p)
}

// isWindowsAbs accepts C:\ and \\server\ paths on every OS, since a
// companion on the Windows side of WSL may report them.
func isWindowsAbs(p string) bool {
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return strings.HasPrefix(p, `\\`)
}

// truncateSelection cuts s at MaxSelectedTextLen UTF-16 code units (the
// unit JavaScript's length counts) and marks the cut; it never splits a
// character.
func truncateSelection(s string) string {
	if cut := textutil.CutUTF16(s, MaxSelectedTextLen); len(cut) < len(s) {
		return cut + truncatedMarker
	}
	return s
}

// Active returns the active file, or nil.
func (c *Context) Active() *File {
	if c == nil || c.WorkspaceState == nil {
		return nil
	}
	for i := range c.WorkspaceState.OpenFiles {
		if c.WorkspaceState.OpenFiles[i].IsActive {
			return &c.WorkspaceState.OpenFiles[i]
		}
	}
	return nil
}

// Files returns the open files, newest first after Normalize.
func (c *Context) Files() []File {
	if c == nil || c.WorkspaceState == nil {
		return nil
	}
	return c.WorkspaceState.OpenFiles
}

// Trusted returns the editor's verdict on the workspace, or nil.
func (c *Context) Trusted() *bool {
	if c == nil || c.WorkspaceState == nil {
		return nil
	}
	return c.WorkspaceState.IsTrusted
}

// The introductions Gemini CLI puts before the JSON it sends the model.
const (
	fullContextIntro  = "Here is the user's editor context as a JSON object. This is for your information only."
	deltaContextIntro = "Here is a summary of changes in the user's editor context, in JSON format. This is for your information only."
)

// activeFileJSON is the active file as the model sees it; the field order
// is Gemini CLI's.
type activeFileJSON struct {
	Path         string  `json:"path"`
	Cursor       *Cursor `json:"cursor,omitempty"`
	SelectedText string  `json:"selectedText,omitempty"`
}

// FullContextText is the text Gemini CLI sends with the first prompt (and
// after its history was replaced): the active file and the other open
// files. It is "" when no file is open.
func FullContextText(c *Context) string {
	var data struct {
		ActiveFile     *activeFileJSON `json:"activeFile,omitempty"`
		OtherOpenFiles []string        `json:"otherOpenFiles,omitempty"`
	}
	for _, f := range c.Files() {
		if f.IsActive {
			if data.ActiveFile == nil {
				data.ActiveFile = &activeFileJSON{Path: f.Path, Cursor: f.Cursor, SelectedText: f.SelectedText}
			}
			continue
		}
		data.OtherOpenFiles = append(data.OtherOpenFiles, f.Path)
	}
	if data.ActiveFile == nil && len(data.OtherOpenFiles) == 0 {
		return ""
	}
	return wrapJSON(fullContextIntro, data)
}

// DeltaText is the text Gemini CLI sends on later prompts: what changed
// since last was sent. It is "" when nothing did.
func DeltaText(last, cur *Context) string {
	type cursorMoved struct {
		Path   string  `json:"path"`
		Cursor *Cursor `json:"cursor"`
	}
	type selectionChanged struct {
		Path         string `json:"path"`
		SelectedText string `json:"selectedText"`
	}
	type noActiveFile struct {
		Path         *string `json:"path"`
		PreviousPath string  `json:"previousPath"`
	}
	var changes struct {
		FilesOpened       []string          `json:"filesOpened,omitempty"`
		FilesClosed       []string          `json:"filesClosed,omitempty"`
		ActiveFileChanged any               `json:"activeFileChanged,omitempty"`
		CursorMoved       *cursorMoved      `json:"cursorMoved,omitempty"`
		SelectionChanged  *selectionChanged `json:"selectionChanged,omitempty"`
	}
	lastFiles, curFiles := last.Files(), cur.Files()
	has := func(files []File, p string) bool {
		return slices.ContainsFunc(files, func(f File) bool { return f.Path == p })
	}
	// Gemini CLI keys its maps by path, so a path listed twice counts once.
	seen := map[string]bool{}
	for _, f := range curFiles {
		if !seen[f.Path] && !has(lastFiles, f.Path) {
			changes.FilesOpened = append(changes.FilesOpened, f.Path)
		}
		seen[f.Path] = true
	}
	clear(seen)
	for _, f := range lastFiles {
		if !seen[f.Path] && !has(curFiles, f.Path) {
			changes.FilesClosed = append(changes.FilesClosed, f.Path)
		}
		seen[f.Path] = true
	}
	lastActive, curActive := last.Active(), cur.Active()
	switch {
	case curActive != nil && (lastActive == nil || lastActive.Path != curActive.Path):
		changes.ActiveFileChanged = &activeFileJSON{Path: curActive.Path, Cursor: curActive.Cursor, SelectedText: curActive.SelectedText}
	case curActive != nil:
		if c := curActive.Cursor; c != nil && (lastActive.Cursor == nil || *lastActive.Cursor != *c) {
			changes.CursorMoved = &cursorMoved{Path: curActive.Path, Cursor: c}
		}
		if lastActive.SelectedText != curActive.SelectedText {
			changes.SelectionChanged = &selectionChanged{Path: curActive.Path, SelectedText: curActive.SelectedText}
		}
	case lastActive != nil:
		changes.ActiveFileChanged = &noActiveFile{PreviousPath: lastActive.Path}
	}
	if changes.FilesOpened == nil && changes.FilesClosed == nil && changes.ActiveFileChanged == nil &&
		changes.CursorMoved == nil && changes.SelectionChanged == nil {
		return ""
	}
	return wrapJSON(deltaContextIntro, struct {
		Changes any `json:"changes"`
	}{&changes})
}

// wrapJSON renders v as JSON.stringify(v, null, 2) does and puts it in a
// fenced block after intro, the way Gemini CLI joins its context parts.
func wrapJSON(intro string, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		// Only strings, ints and structs go in: this cannot happen.
		panic(err)
	}
	js := unescapeLineSeparators(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return intro + "\n```json\n" + string(js) + "\n```"
}

// unescapeLineSeparators undoes the \u2028 and \u2029 escapes that
// encoding/json always writes and JSON.stringify does not, so that a
// selection containing them reads as Gemini CLI would send it.
func unescapeLineSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) && (string(b[i+2:i+6]) == "2028" || string(b[i+2:i+6]) == "2029") {
			r := '\u2028'
			if b[i+5] == '9' {
				r = '\u2029'
			}
			out = utf8.AppendRune(out, r)
			i += 5
			continue
		}
		// Any other escape is copied whole, so that an escaped backslash
		// followed by "u2028" is left alone.
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}
