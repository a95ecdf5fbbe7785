package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

func denyToolFile(name string) string {
	return "[[rule]]\ntoolName = \"" + name + "\"\ndecision = \"deny\"\npriority = 1\n"
}

// TestPolicyFileLocations checks which files a session reads: the user
// folder unless policyPaths or --policy replace it, supplemental admin
// paths unless the system folder has files, extensions' folders, and
// never the workspace's.
func TestPolicyFileLocations(t *testing.T) {
	root := t.TempDir()
	home := config.HomeAt(filepath.Join(root, "user"))
	wd := filepath.Join(root, "ws")
	sys := filepath.Join(root, "etc", "policies")
	ext := filepath.Join(root, "ext")
	files := map[string]string{
		filepath.Join(home.Dir, "policies", "u.toml"):                 denyToolFile("from_user"),
		filepath.Join(root, "flag.toml"):                              denyToolFile("from_flag"),
		filepath.Join(wd, "rel", "s.toml"):                            denyToolFile("from_setting"),
		filepath.Join(root, "admin", "a.toml"):                        denyToolFile("from_admin_path"),
		filepath.Join(ext, "policies", "e.toml"):                      denyToolFile("from_extension"),
		filepath.Join(wd, config.GeminiDirName, "policies", "w.toml"): denyToolFile("from_workspace"),
	}
	for p, c := range files {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(sys, 0o755)
	old := systemPoliciesDir
	systemPoliciesDir = sys
	defer func() { systemPoliciesDir = old }()
	settings := func(raw string) *config.Settings {
		t.Helper()
		os.WriteFile(home.SettingsPath(), []byte(raw), 0o644)
		st, err := config.Load(config.LoadOptions{Workspace: wd, HomeDir: home.UserDir, Env: config.EnvMap(nil), SystemSettingsPath: filepath.Join(root, "none.json"), SystemDefaultsPath: filepath.Join(root, "none2.json")})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	exts := []*config.Extension{{Name: "guard", Path: ext}}

	tests := []struct {
		name     string
		opts     Options
		settings string
		denied   []string
		warn     string
	}{
		{"defaults", Options{}, "{}", []string{"from_user", "from_extension"}, "workspace policies in"},
		{"policyPaths replace the user folder", Options{}, `{"policyPaths": ["rel"]}`, []string{"from_setting", "from_extension"}, ""},
		{"--policy replaces policyPaths", Options{PolicyPaths: []string{filepath.Join(root, "flag.toml")}}, `{"policyPaths": ["rel"]}`, []string{"from_flag", "from_extension"}, ""},
		{"a named path that does not exist is said", Options{PolicyPaths: []string{filepath.Join(root, "typo.toml")}}, "{}", []string{"from_extension"}, "policy path " + filepath.Join(root, "typo.toml") + " does not exist"},
		{"admin paths", Options{}, `{"adminPolicyPaths": ["` + filepath.Join(root, "admin") + `"]}`, []string{"from_admin_path", "from_user", "from_extension"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warnings []string
			rules, err := policyFiles(tt.opts, settings(tt.settings), home, wd, exts, func(s string) { warnings = append(warnings, s) })
			if err != nil {
				t.Fatal(err)
			}
			e := policy.New(policy.Options{Mode: policy.ModeYolo, Rules: rules})
			for _, n := range []string{"from_user", "from_flag", "from_setting", "from_admin_path", "from_extension", "from_workspace"} {
				d, _ := e.Decide(policy.Call{Name: n, Kind: tool.KindOther})
				want := policy.Allow
				for _, dn := range tt.denied {
					if dn == n {
						want = policy.Deny
					}
				}
				if d != want {
					t.Errorf("%s: %v, want %v", n, d, want)
				}
			}
			if tt.warn != "" && !strings.Contains(strings.Join(warnings, "\n"), tt.warn) {
				t.Errorf("warnings %q lack %q", warnings, tt.warn)
			}
		})
	}

	// A system folder with files wins over supplemental admin paths; one
	// that others can write is skipped with a warning.
	os.WriteFile(filepath.Join(sys, "s.toml"), []byte(denyToolFile("from_system")), 0o644)
	var warnings []string
	rules, _ := policyFiles(Options{AdminPolicyPaths: []string{filepath.Join(root, "admin")}}, settings("{}"), home, wd, nil, func(s string) { warnings = append(warnings, s) })
	joined := strings.Join(warnings, "\n")
	if os.Geteuid() == 0 {
		os.Chmod(sys, 0o755)
		if !strings.Contains(joined, "Ignoring --admin-policy because system policies are already defined") {
			t.Errorf("warnings %q", warnings)
		}
		if d, _ := policy.New(policy.Options{Mode: policy.ModeYolo, Rules: rules}).Decide(policy.Call{Name: "from_system"}); d != policy.Deny {
			t.Errorf("system rule not applied: %v", d)
		}
		os.Chmod(sys, 0o777)
		warnings = nil
		rules, _ = policyFiles(Options{}, settings("{}"), home, wd, nil, func(s string) { warnings = append(warnings, s) })
		joined = strings.Join(warnings, "\n")
	}
	if !strings.Contains(joined, "Security Warning: Skipping system policies from "+sys) {
		t.Errorf("warnings %q", warnings)
	}
	if d, _ := policy.New(policy.Options{Mode: policy.ModeYolo, Rules: rules}).Decide(policy.Call{Name: "from_system"}); d != policy.Allow {
		t.Errorf("insecure system folder applied: %v", d)
	}
}

// TestPolicyFileErrorsStopTheSession: a file with one mistake would lose
// rules its author wrote (all of them, for a TOML syntax error), so the
// session does not start: a *ConfigError names the file, line and key.
// --ignore-policy-errors and the setting bring back the warning and the
// rules that could be read; what Castor leaves out by design (a safety
// checker) is only a warning either way.
func TestPolicyFileErrorsStopTheSession(t *testing.T) {
	root := t.TempDir()
	home := config.HomeAt(filepath.Join(root, "user"))
	wd := filepath.Join(root, "ws")
	dir := filepath.Join(home.Dir, "policies")
	os.MkdirAll(dir, 0o755)
	old := systemPoliciesDir
	systemPoliciesDir = filepath.Join(root, "none")
	defer func() { systemPoliciesDir = old }()
	load := func(opts Options, settingsJSON string) ([]policy.Rule, []string, error) {
		t.Helper()
		os.WriteFile(home.SettingsPath(), []byte(settingsJSON), 0o644)
		st, err := config.Load(config.LoadOptions{Workspace: wd, HomeDir: home.UserDir, Env: config.EnvMap(nil), SystemSettingsPath: filepath.Join(root, "none.json"), SystemDefaultsPath: filepath.Join(root, "none2.json")})
		if err != nil {
			t.Fatal(err)
		}
		var warnings []string
		rules, err := policyFiles(opts, st, home, wd, nil, func(s string) { warnings = append(warnings, s) })
		return rules, warnings, err
	}
	good := denyToolFile("kept")
	tests := []struct {
		name, file string
		// want is in the error, and in the warning when errors are ignored.
		want string
		// rules is how many rules load when errors are ignored.
		rules int
	}{
		{"toml syntax", good + "[[rule]]\ntoolName = \"x\"\ndecision = deny\n", "b.toml (line 7): TOML:", 0},
		{"unknown key in a rule", good + "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefx = \"git\"\ndecision = \"allow\"\npriority = 1\n", "b.toml: rule #2 (line 5): commandPrefx: unknown key", 2},
		{"bad value", good + "[[rule]]\ntoolName = \"x\"\ndecision = \"perhaps\"\npriority = 1\n", "b.toml: rule #2 (line 5): decision:", 1},
		{"rules misspelt", "[[rules]]\ntoolName = \"x\"\ndecision = \"deny\"\n", "b.toml: rules: unknown key", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "a.toml"), []byte(good), 0o644)
			os.WriteFile(filepath.Join(dir, "b.toml"), []byte(tt.file), 0o644)
			_, _, err := load(Options{}, "{}")
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), filepath.Join(dir, tt.want)) || !strings.Contains(err.Error(), "--ignore-policy-errors") {
				t.Fatalf("error %v, want a *ConfigError with %q", err, tt.want)
			}
			for _, opts := range []struct {
				o        Options
				settings string
			}{{Options{IgnorePolicyErrors: true}, "{}"}, {Options{}, `{"security": {"ignorePolicyErrors": true}}`}} {
				rules, warnings, err := load(opts.o, opts.settings)
				if err != nil {
					t.Fatalf("ignoring errors (%+v %s): %v", opts.o, opts.settings, err)
				}
				if len(rules) != 1+tt.rules || !strings.Contains(strings.Join(warnings, "\n"), filepath.Join(dir, tt.want)) {
					t.Errorf("ignoring errors: %d rules, warnings %q", len(rules), warnings)
				}
			}
		})
	}

	os.WriteFile(filepath.Join(dir, "b.toml"), []byte(good+"[[safety_checker]]\ntoolName = \"x\"\n"), 0o644)
	rules, warnings, err := load(Options{}, "{}")
	if err != nil || len(rules) != 2 || !strings.Contains(strings.Join(warnings, "\n"), "safety checkers are not supported") {
		t.Errorf("safety checker: %d rules, %v, warnings %q", len(rules), err, warnings)
	}
}
