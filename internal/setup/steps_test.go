package setup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

func TestResolveWorkDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		in      string
		want    string
		wantErr string
	}{
		{in: dir, want: dir},
		{in: dir + "/./", want: dir},
		{in: file, wantErr: "is not a directory"},
		{in: filepath.Join(dir, "missing"), wantErr: "is not a directory"},
	}
	for _, tt := range tests {
		got, err := resolveWorkDir(tt.in)
		var ce *ConfigError
		switch {
		case tt.wantErr != "" && (err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("resolveWorkDir(%q) error = %v, want a ConfigError with %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("resolveWorkDir(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestResolveModelName(t *testing.T) {
	tests := []struct {
		option, setting, env, want string
	}{
		{want: "auto"},
		{env: "gemini-env", want: "gemini-env"},
		// Gemini CLI 0.61: GEMINI_MODEL beats model.name.
		{setting: "gemini-settings", env: "gemini-env", want: "gemini-env"},
		{setting: "gemini-settings", want: "gemini-settings"},
		{option: "gemini-option", setting: "gemini-settings", env: "gemini-env", want: "gemini-option"},
		{option: "flash", want: "flash"},
	}
	for _, tt := range tests {
		st := &config.Settings{}
		st.Model.Name = tt.setting
		getenv := func(k string) string {
			if k == "GEMINI_MODEL" {
				return tt.env
			}
			return ""
		}
		if got := resolveModelName(tt.option, st, getenv); got != tt.want {
			t.Errorf("resolveModelName(%q, settings %q, env %q) = %q, want %q", tt.option, tt.setting, tt.env, got, tt.want)
		}
	}
}

// namedTool is a tool with just a name and a display name, for the
// registry filters.
type namedTool struct{ name, display string }

func (n namedTool) Name() string                          { return n.name }
func (n namedTool) DisplayName() string                   { return n.display }
func (namedTool) Description() string                     { return "" }
func (namedTool) Kind() tool.Kind                         { return tool.KindOther }
func (namedTool) Schema() map[string]any                  { return nil }
func (namedTool) Build(map[string]any) (tool.Call, error) { return nil, nil }

func TestKeepTool(t *testing.T) {
	shell := namedTool{"run_shell_command", "Shell"}
	tests := []struct {
		name          string
		core, exclude []string
		want          bool
	}{
		{name: "no lists", want: true},
		{name: "core by name", core: []string{"run_shell_command"}, want: true},
		{name: "core by display name", core: []string{"Shell"}, want: true},
		{name: "core with arguments names the tool", core: []string{"run_shell_command(git status)"}, want: true},
		{name: "core without it", core: []string{"read_file"}, want: false},
		{name: "empty core keeps nothing", core: []string{}, want: false},
		{name: "excluded by name", exclude: []string{" run_shell_command "}, want: false},
		{name: "excluded by display name", exclude: []string{"Shell"}, want: false},
		{name: "an exclusion with arguments leaves the tool to the policy", exclude: []string{"run_shell_command(rm -rf)"}, want: true},
	}
	for _, tt := range tests {
		if got := keepTool(shell, tt.core, tt.exclude); got != tt.want {
			t.Errorf("%s: keepTool = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWorkspaceDirs(t *testing.T) {
	wd, home := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(wd, "rel"), 0o755)
	os.Mkdir(filepath.Join(home, "docs"), 0o755)
	st := &config.Settings{}
	st.Context.IncludeDirectories = []string{"rel", "~/docs", "  "}
	var warns []string
	ws := workspace(wd, st, []string{filepath.Join(wd, "missing")}, home, func(s string) { warns = append(warns, s) })
	want := []string{wd, filepath.Join(wd, "rel"), filepath.Join(home, "docs")}
	if got := ws.Dirs(); !slices.Equal(got, want) {
		t.Errorf("dirs = %v, want %v", got, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "missing does not exist") {
		t.Errorf("warnings = %q", warns)
	}
}

func TestBuildPolicyMode(t *testing.T) {
	tests := []struct {
		name            string
		option, setting string
		trusted         bool
		want            policy.Mode
		wantErr         bool
	}{
		{name: "default", trusted: true, want: policy.ModeDefault},
		{name: "setting", setting: "autoEdit", trusted: true, want: policy.ModeAutoEdit},
		{name: "option beats setting", option: "yolo", setting: "plan", trusted: true, want: policy.ModeYolo},
		{name: "untrusted folder loses yolo", option: "yolo", want: policy.ModeDefault},
		{name: "untrusted folder keeps plan", setting: "plan", want: policy.ModePlan},
		{name: "bad setting", setting: "sometimes", trusted: true, wantErr: true},
	}
	for _, tt := range tests {
		st := &config.Settings{}
		st.General.DefaultApprovalMode = tt.setting
		o := Options{ApprovalMode: policy.Mode(tt.option), Warn: func(string) {}}
		pol, err := buildPolicy(o, st, tt.trusted, false, nil, nil, nil, nil, nil, autoSave{}, nil)
		if tt.wantErr {
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "general.defaultApprovalMode") {
				t.Errorf("%s: error = %v", tt.name, err)
			}
			continue
		}
		if err != nil || pol.Mode() != tt.want {
			t.Errorf("%s: mode = %v, %v; want %v", tt.name, pol, err, tt.want)
		}
	}
}

func TestRetryOptions(t *testing.T) {
	st := &config.Settings{}
	st.General.MaxAttempts = 3
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CASTOR_RETRY_BASE_DELAY" {
				return v
			}
			return ""
		}
	}
	ro, err := retryOptions(Options{}, st, env(""))
	if err != nil || ro.MaxAttempts != 3 || ro.InitialDelay != 0 {
		t.Errorf("settings: %+v, %v", ro, err)
	}
	ro, err = retryOptions(Options{}, st, env("250ms"))
	if err != nil || ro.InitialDelay != 250*time.Millisecond || ro.MaxDelay != 1500*time.Millisecond {
		t.Errorf("CASTOR_RETRY_BASE_DELAY: %+v, %v", ro, err)
	}
	if _, err := retryOptions(Options{}, st, env("soon")); err == nil || !strings.Contains(err.Error(), "CASTOR_RETRY_BASE_DELAY") {
		t.Errorf("bad delay: %v", err)
	}
}

func TestEnvLayersDotEnvWithoutTouchingTheProcess(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, ".env"), []byte("CASTOR_STEP_A=from-file\nCASTOR_STEP_B=from-file\n"), 0o600)
	base := config.EnvMap(map[string]string{"CASTOR_STEP_A": "from-base"})
	e := NewEnv(base)
	if err := e.LoadDotEnv(ws, home, true); err != nil {
		t.Fatal(err)
	}
	if v := e.Getenv("CASTOR_STEP_A"); v != "from-base" {
		t.Errorf("a set variable was overridden: %q", v)
	}
	if v, ok := e.Lookup("CASTOR_STEP_B"); !ok || v != "from-file" {
		t.Errorf("CASTOR_STEP_B = %q, %v", v, ok)
	}
	if _, ok := os.LookupEnv("CASTOR_STEP_B"); ok {
		t.Error("the .env value reached the process environment")
	}
	if !slices.Contains(e.Environ(), "CASTOR_STEP_B=from-file") {
		t.Error("child processes do not get the .env value")
	}
}

// TestNewCancelledBeforeStart checks that a cancelled context stops New at
// once and releases what was started.
func TestNewCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(ctx, Options{WorkDir: t.TempDir(), HomeDir: t.TempDir(), Client: noModel{}, DisableRecording: true, Env: config.EnvMap(nil)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("New = %v, want context.Canceled", err)
	}
}

// TestNewTakesLoadedSettings: settings the caller loaded (the CLI's
// start-up checks) are the session's, not loaded again; with an Env of
// its own the assembly loads them itself.
func TestNewTakesLoadedSettings(t *testing.T) {
	home, ws, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GEMINI_CLI_HOME", home)
	t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
	settings := filepath.Join(elsewhere, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"model": {"name": "gemini-2.5-flash-lite"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := config.Load(config.LoadOptions{Workspace: elsewhere})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  config.LookupFunc
		want string
	}{
		{"process environment", nil, "gemini-2.5-flash-lite"},
		{"own Env", os.LookupEnv, DefaultModel},
	} {
		a, err := New(context.Background(), Options{WorkDir: ws, Settings: loaded, Env: c.env, Client: noModel{}, DisableRecording: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Session.Model(); got != c.want {
			t.Errorf("%s: model %q, want %q", c.name, got, c.want)
		}
		a.Close()
	}
}
