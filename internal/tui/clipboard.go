package tui

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/internal/atpath"
)

// Ctrl+V reads the system clipboard as Gemini CLI 0.61 does: an image is
// saved under the project's temporary directory and put in the input as an
// @path, which sends it to the model as inline data; text is pasted. A
// terminal cannot see the clipboard, so it is read with the system's own
// commands: wl-paste (Wayland), xclip (X11), osascript and pbpaste (macOS),
// PowerShell (Windows).

// clipboard reads the system clipboard.
type clipboard interface {
	// name is the command used, for messages.
	name() string
	// image is the clipboard's image as PNG (or the format the clipboard
	// holds); nil without one.
	image(ctx context.Context) ([]byte, string, error)
	// text is the clipboard's text.
	text(ctx context.Context) (string, error)
}

// errNoClipboard says no clipboard command is installed.
var errNoClipboard = errors.New("no clipboard command")

// clipTimeout bounds a clipboard command (xclip waits forever for a
// clipboard owner that does not answer).
const clipTimeout = 5 * time.Second

// maxClipImage is Gemini CLI's limit for a pasted image.
const maxClipImage = 10 << 20

// imageTypes are the clipboard formats taken as images, preferred first.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff"}

// systemClipboard picks the clipboard command of this system, from env;
// errNoClipboard when there is none.
func systemClipboard(env []string) (clipboard, error) {
	look := func(name string) bool { _, err := exec.LookPath(name); return err == nil }
	switch runtime.GOOS {
	case "darwin":
		return macClipboard{}, nil
	case "windows":
		return winClipboard{}, nil
	}
	if getenv(env, "WAYLAND_DISPLAY") != "" && look("wl-paste") {
		return cmdClipboard{cmd: "wl-paste", types: []string{"--list-types"}, typed: []string{"--no-newline", "--type"}, plain: []string{"--no-newline"}}, nil
	}
	if look("xclip") {
		sel := []string{"-selection", "clipboard"}
		return cmdClipboard{cmd: "xclip", types: append(sel, "-t", "TARGETS", "-o"), typed: append(sel, "-o", "-t"), plain: append(sel, "-o")}, nil
	}
	if look("wl-paste") {
		return cmdClipboard{cmd: "wl-paste", types: []string{"--list-types"}, typed: []string{"--no-newline", "--type"}, plain: []string{"--no-newline"}}, nil
	}
	return nil, errNoClipboard
}

func runClip(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, clipTimeout)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return nil, fmt.Errorf("%s: %s", name, msg)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out.Bytes(), nil
}

// cmdClipboard is a command that lists the clipboard's types and prints
// one of them (wl-paste, xclip).
type cmdClipboard struct {
	cmd                 string
	types, typed, plain []string
}

func (c cmdClipboard) name() string { return c.cmd }

func (c cmdClipboard) image(ctx context.Context) ([]byte, string, error) {
	list, err := runClip(ctx, c.cmd, c.types...)
	if err != nil {
		// An empty clipboard makes wl-paste fail: no image.
		return nil, "", nil
	}
	have := strings.Fields(string(list))
	for _, t := range imageTypes {
		for _, h := range have {
			if h == t {
				data, err := runClip(ctx, c.cmd, append(append([]string(nil), c.typed...), t)...)
				return data, t, err
			}
		}
	}
	return nil, "", nil
}

func (c cmdClipboard) text(ctx context.Context) (string, error) {
	out, err := runClip(ctx, c.cmd, c.plain...)
	return string(out), err
}

// macClipboard asks AppleScript for the clipboard's PNG, which it prints
// as «data PNGf…» in hexadecimal.
type macClipboard struct{}

func (macClipboard) name() string { return "osascript" }

func (macClipboard) image(ctx context.Context) ([]byte, string, error) {
	out, err := runClip(ctx, "osascript", "-e", "the clipboard as «class PNGf»")
	if err != nil {
		return nil, "", nil // no image on the clipboard
	}
	s := strings.TrimSpace(string(out))
	s = strings.TrimSuffix(strings.TrimPrefix(s, "«data PNGf"), "»")
	data, err := hex.DecodeString(s)
	if err != nil {
		return nil, "", nil
	}
	return data, "image/png", nil
}

func (macClipboard) text(ctx context.Context) (string, error) {
	out, err := runClip(ctx, "pbpaste")
	return string(out), err
}

// winClipboard asks PowerShell.
type winClipboard struct{}

func (winClipboard) name() string { return "powershell" }

func (winClipboard) image(ctx context.Context) ([]byte, string, error) {
	f, err := os.CreateTemp("", "castor-clipboard-*.png")
	if err != nil {
		return nil, "", err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	script := "Add-Type -AssemblyName System.Windows.Forms; $i = [System.Windows.Forms.Clipboard]::GetImage(); if ($i) { $i.Save('" +
		strings.ReplaceAll(path, "'", "''") + "', [System.Drawing.Imaging.ImageFormat]::Png) }"
	if _, err := runClip(ctx, "powershell", "-NoProfile", "-Sta", "-Command", script); err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return nil, "", nil
	}
	return data, "image/png", nil
}

func (winClipboard) text(ctx context.Context) (string, error) {
	out, err := runClip(ctx, "powershell", "-NoProfile", "-Command", "Get-Clipboard -Raw")
	return strings.TrimRight(string(out), "\r\n"), err
}

// clipboardMsg is what Ctrl+V read.
type clipboardMsg struct {
	path, text string
	err        error
}

// pasteClipboard is Ctrl+V: the clipboard is read off the event loop.
func (m *model) pasteClipboard() tea.Cmd {
	cb := m.clip
	if cb == nil {
		var err error
		if cb, err = systemClipboard(m.cfg.Environ); err != nil {
			m.printNotice(noticeInfo, "Ctrl+V: no clipboard command (wl-paste, xclip) is installed; use the terminal's own paste key.")
			return nil
		}
	}
	dir := ""
	if m.agent != nil && m.agent.TempDir != "" {
		dir = filepath.Join(m.agent.TempDir, "images")
	}
	ctx := m.ctx
	return func() tea.Msg {
		data, mime, err := cb.image(ctx)
		if err != nil {
			return clipboardMsg{err: err}
		}
		if data == nil {
			text, err := cb.text(ctx)
			return clipboardMsg{text: text, err: err}
		}
		if dir == "" {
			return clipboardMsg{err: errors.New("an image can be pasted once the session has started")}
		}
		path, err := saveClipImage(dir, data, mime)
		return clipboardMsg{path: path, err: err}
	}
}

// saveClipImage writes a pasted image to dir as clipboard-<time>.<ext>.
func saveClipImage(dir string, data []byte, mime string) (string, error) {
	if len(data) > maxClipImage {
		return "", fmt.Errorf("the clipboard's image is %d MB, over the %d MB limit", len(data)>>20, maxClipImage>>20)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	ext := strings.TrimPrefix(mime, "image/")
	if ext == "jpeg" {
		ext = "jpg"
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("clipboard-%d-*.%s", time.Now().UnixMilli(), ext))
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), f.Close()
}

func (m *model) onClipboard(msg clipboardMsg) {
	switch {
	case msg.err != nil:
		m.printNotice(noticeError, "Ctrl+V: "+msg.err.Error())
	case msg.path != "":
		m.insertRef(msg.path)
	case msg.text != "":
		if !m.pasteInput(msg.text) {
			m.input.InsertString(msg.text)
		}
	default:
		m.printNotice(noticeInfo, "The clipboard is empty.")
	}
	m.updateCompletion()
}

// insertRef puts @path in the input, spaces escaped as the @ parser reads
// them, with a space after it, as Gemini CLI does.
func (m *model) insertRef(path string) {
	st := m.inputState()
	v := []rune(st.value)
	ref := "@" + escapeRef(path) + " "
	if st.pos > 0 && v[st.pos-1] != ' ' && v[st.pos-1] != '\n' {
		ref = " " + ref
	}
	m.undo.push(st, false)
	m.input.InsertString(ref)
}

// escapeRef writes path so that the @ parser (internal/atpath) reads it
// whole: a backslash before each character that would end it.
func escapeRef(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(" \t,;!?()[]{}\"\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// droppedPath is a paste that is one path to an existing file (a file
// dragged onto the terminal, which types its path: quoted, spaces escaped,
// or as a file:// URL); "" otherwise.
func droppedPath(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "\n\r") {
		return ""
	}
	if u, err := url.Parse(s); err == nil && u.Scheme == "file" {
		s = u.Path
	} else if len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'') {
		s = s[1 : len(s)-1]
	} else {
		s = atpath.Unescape(s)
	}
	if !filepath.IsAbs(s) {
		return ""
	}
	if fi, err := os.Stat(s); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return s
}
