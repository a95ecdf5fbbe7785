package setup

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

// TestWarnIgnoredSettings: the settings files' and active extensions'
// ignored keys reach Warn one line each, once per process however many
// sessions are assembled; IgnoreSettings says nothing.
func TestWarnIgnoredSettings(t *testing.T) {
	root := t.TempDir()
	home, ws, ext := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "ext")
	for p, content := range map[string]string{
		filepath.Join(home, ".gemini", "settings.json"): `{"security": {"autoAddToPolicyByDefault": true}, "model": {"name": "x"}}`,
		filepath.Join(ext, "gemini-extension.json"):     `{"name": "demo", "version": "1", "themes": [{"name": "t"}]}`,
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(ws, 0o755)
	st, err := config.Load(config.LoadOptions{Workspace: ws, HomeDir: home, Env: config.EnvMap(nil)})
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{Settings: st, Extensions: []*config.Extension{{Name: "demo", Path: ext}}}

	var got []string
	o := Options{Warn: func(s string) { got = append(got, s) }}
	warnIgnoredSettings(o, a)
	warnIgnoredSettings(o, a)
	warnIgnoredSettings(Options{IgnoreSettings: true, Warn: func(s string) { t.Errorf("IgnoreSettings warned %q", s) }}, a)
	want := []string{
		filepath.Join(home, ".gemini", "settings.json") + ": security.autoAddToPolicyByDefault is not supported by Castor yet; ignored",
		filepath.Join(ext, "gemini-extension.json") + ": themes is a display option of Gemini CLI's UI that Castor's terminal UI does not have; ignored",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
