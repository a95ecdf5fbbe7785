package setup

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/policy"
)

// loadUserSettings loads settings whose user file is user, in a trusted
// temporary workspace.
func loadUserSettings(t *testing.T, user string) *config.Settings {
	t.Helper()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), user)
	st, err := config.Load(config.LoadOptions{Workspace: t.TempDir(), HomeDir: home, Env: config.EnvMap(map[string]string{config.EnvTrustWorkspace: "true"})})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestShellTimeout(t *testing.T) {
	tests := []struct {
		settings string
		want     time.Duration
	}{
		{`{}`, 0},
		{`{"tools": {"shell": {"inactivityTimeout": 300}}}`, 5 * time.Minute},
		{`{"tools": {"shell": {"inactivityTimeout": 2.5}}}`, 2500 * time.Millisecond},
		{`{"tools": {"shell": {"inactivityTimeout": 0}}}`, -1},
		{`{"tools": {"shell": {"inactivityTimeout": -5}}}`, -1},
		{`{"tools": {"shell": {"inactivityTimeout": 1e300}}}`, -1},
	}
	for _, tt := range tests {
		if got := shellTimeout(loadUserSettings(t, tt.settings)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.settings, got, tt.want)
		}
	}
	if got := shellTimeout(&config.Settings{}); got != 0 {
		t.Errorf("no settings: %v", got)
	}
}

func TestBuiltinExcludeWriteTodos(t *testing.T) {
	tests := []struct {
		settings string
		want     []string
	}{
		{`{}`, nil},
		{`{"useWriteTodos": true}`, nil},
		{`{"useWriteTodos": false}`, []string{"write_todos"}},
		{`{"useWriteTodos": false, "tools": {"exclude": ["glob"]}}`, []string{"glob", "write_todos"}},
		{`{"tools": {"exclude": ["glob"]}}`, []string{"glob"}},
	}
	for _, tt := range tests {
		st := loadUserSettings(t, tt.settings)
		before := slices.Clone(st.Tools.Exclude)
		if got := builtinExclude(st); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.settings, got, tt.want)
		}
		if !slices.Equal(st.Tools.Exclude, before) {
			t.Errorf("%s: tools.exclude changed to %q", tt.settings, st.Tools.Exclude)
		}
	}
}

// TestUseWriteTodosAssembled checks the assembled session's tools, where
// the model sees them.
func TestUseWriteTodosAssembled(t *testing.T) {
	for _, tt := range []struct {
		settings string
		want     bool
	}{
		{`{}`, true},
		{`{"useWriteTodos": false}`, false},
	} {
		p := newPlace(t, map[string]string{"home/.gemini/settings.json": tt.settings})
		a := p.agent(t, Options{})
		if _, ok := a.Session.Tools().Get("write_todos"); ok != tt.want {
			t.Errorf("%s: write_todos offered %v, want %v", tt.settings, ok, tt.want)
		}
		if _, ok := a.Session.Tools().Get("read_file"); !ok {
			t.Errorf("%s: read_file missing", tt.settings)
		}
	}
}

// TestDisableYoloModeSetting: a yolo general.defaultApprovalMode is
// ignored with a warning, as Gemini CLI 0.61 ignores it (YOLO comes only
// from flags and Ctrl+Y); a yolo option (the faces refuse flags
// themselves, A2A's autoExecute is not a flag) is kept.
func TestDisableYoloModeSetting(t *testing.T) {
	tests := []struct {
		settings string
		option   policy.Mode
		want     policy.Mode
		warned   bool
	}{
		{`{"general": {"defaultApprovalMode": "yolo"}}`, "", policy.ModeDefault, true},
		{`{"general": {"defaultApprovalMode": "yolo"}, "security": {"disableYoloMode": true}}`, "", policy.ModeDefault, true},
		{`{"general": {"defaultApprovalMode": "auto_edit"}, "security": {"disableYoloMode": true}}`, "", policy.ModeAutoEdit, false},
		{`{"security": {"disableYoloMode": true}}`, policy.ModeYolo, policy.ModeYolo, false},
	}
	for _, tt := range tests {
		st := loadUserSettings(t, tt.settings)
		var warned bool
		o := Options{ApprovalMode: tt.option, Warn: func(string) { warned = true }}
		pol, err := buildPolicy(o, st, true, false, nil, nil, nil, nil, nil, autoSave{}, nil)
		if err != nil || pol.Mode() != tt.want || warned != tt.warned {
			t.Errorf("%s, option %q: mode %v (err %v, warned %v), want %v (warned %v)", tt.settings, tt.option, pol.Mode(), err, warned, tt.want, tt.warned)
		}
	}
}
