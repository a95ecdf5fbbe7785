package tui_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// onePixelPNG is a valid 1×1 PNG.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

// sentImage says whether the last request's user message carries img as
// inline data.
func sentImage(t *testing.T, e *e2etest.Env, img []byte) bool {
	t.Helper()
	reqs := e.Srv.Requests()
	contents := reqs[len(reqs)-1].Contents
	for _, p := range contents[len(contents)-1].Parts {
		if p.InlineData != nil && p.InlineData.MIMEType == "image/png" && bytes.Equal(p.InlineData.Data, img) {
			return true
		}
	}
	return false
}

// Ctrl+V with an image on the clipboard saves it under the project's
// temporary directory and puts it in the input as an @path, which reaches
// the model as inline data (Gemini CLI 0.61). The clipboard is read with
// the system's command: here a fake wl-paste.
func TestTUIPasteClipboardImage(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("A single pixel."))
	bin := t.TempDir()
	img := filepath.Join(t.TempDir(), "clip.png")
	if err := os.WriteFile(img, onePixelPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	e2etest.WriteAt(t, filepath.Join(bin, "wl-paste"), `#!/bin/sh
case "$*" in
--list-types) printf 'image/png\ntext/plain\n' ;;
"--no-newline --type image/png") cat "$FAKE_CLIPBOARD_IMAGE" ;;
*) printf 'clipboard text' ;;
esac
`)
	if err := os.Chmod(filepath.Join(bin, "wl-paste"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.TUIEnv = []string{"WAYLAND_DISPLAY=wayland-test", "FAKE_CLIPBOARD_IMAGE=" + img, "PATH=" + bin + ":" + os.Getenv("PATH")}
	tm := e.StartTUI()
	tm.TypeText("What is in ")
	tm.Keys("C-v")
	tm.WaitFor("/.gemini/tmp/ws/images/clipboard-")
	tm.TypeText("?")
	tm.Keys("Enter")
	tm.WaitFor("A single pixel.")
	if !sentImage(t, e, onePixelPNG) {
		t.Errorf("the image did not reach the model as inline data: %s", e2etest.MustJSON(e.Srv.Requests()[0].Contents))
	}
	saved, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "ws", "images", "clipboard-*.png"))
	if len(saved) != 1 {
		t.Errorf("saved images: %v", saved)
	}
}

// A file dragged onto the terminal (its path pasted, spaces escaped) goes
// in as an @path, an image sent as inline data.
func TestTUIDropImagePath(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("A single pixel."))
	img := filepath.Join(e.WS, "my shot.png")
	if err := os.WriteFile(img, onePixelPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	tm := e.StartTUI()
	paste(tm, strings.ReplaceAll(img, " ", `\ `))
	s := tm.WaitFor(`shot.png`)
	tm.Golden("image_dropped", s)
	tm.Keys("Enter")
	tm.WaitFor("A single pixel.")
	if !sentImage(t, e, onePixelPNG) {
		t.Errorf("the image did not reach the model as inline data: %s", e2etest.MustJSON(e.Srv.Requests()[0].Contents))
	}
}

// Without a clipboard command Ctrl+V says so in one line.
func TestTUIPasteNoClipboard(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.TUIEnv = []string{"PATH=" + t.TempDir()}
	tm := e.StartTUI()
	tm.Keys("C-v")
	tm.Golden("paste_no_clipboard", tm.WaitFor("no clipboard command"))
}
