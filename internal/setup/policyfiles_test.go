package setup

import (
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
			rules := policyFiles(tt.opts, settings(tt.settings), home, wd, exts, func(s string) { warnings = append(warnings, s) })
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
	rules := policyFiles(Options{AdminPolicyPaths: []string{filepath.Join(root, "admin")}}, settings("{}"), home, wd, nil, func(s string) { warnings = append(warnings, s) })
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
		rules = policyFiles(Options{}, settings("{}"), home, wd, nil, func(s string) { warnings = append(warnings, s) })
		joined = strings.Join(warnings, "\n")
	}
	if !strings.Contains(joined, "Security Warning: Skipping system policies from "+sys) {
		t.Errorf("warnings %q", warnings)
	}
	if d, _ := policy.New(policy.Options{Mode: policy.ModeYolo, Rules: rules}).Decide(policy.Call{Name: "from_system"}); d != policy.Allow {
		t.Errorf("insecure system folder applied: %v", d)
	}
}
