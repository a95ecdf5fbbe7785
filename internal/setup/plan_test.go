package setup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/tool/builtin"
)

// general.plan.directory: relative to the project root and inside it; else
// an active extension's plan.directory (one outside the root warned about
// and passed over); else the session's folder under the project's
// temporary directory.
func TestPlansDir(t *testing.T) {
	tests := []struct {
		name, setting string
		ext           string // an extension's plan.directory
		inactive      bool   // the extension is disabled
		want          string // relative to the root; "TMP/s1/plans" under the temp dir
		err, warn     string
	}{
		{name: "default", want: "TMP/s1/plans"},
		{name: "relative", setting: "docs/plans", want: "docs/plans"},
		{name: "root itself", setting: ".", want: "."},
		{name: "outside the root", setting: "../elsewhere", err: "general.plan.directory: custom plans directory '../elsewhere' resolves to"},
		{name: "extension", ext: ".gemini/plans", want: ".gemini/plans"},
		{name: "settings before the extension", setting: "docs/plans", ext: ".gemini/plans", want: "docs/plans"},
		{name: "disabled extension", ext: ".gemini/plans", inactive: true, want: "TMP/s1/plans"},
		{name: "extension outside the root", ext: "../elsewhere", want: "TMP/s1/plans",
			warn: `gemini-extension.json: key "plan.directory": custom plans directory '../elsewhere' resolves to`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, root := t.TempDir(), t.TempDir()
			body := `{}`
			if tt.setting != "" {
				body = `{"general":{"plan":{"directory":"` + tt.setting + `"}}}`
			}
			if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := config.Load(config.LoadOptions{Workspace: root, HomeDir: home, Env: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatal(err)
			}
			var exts []*config.Extension
			if tt.ext != "" {
				exts = append(exts, &config.Extension{Name: "off", Path: "/x/off", Active: false, PlanDirectory: "never"},
					&config.Extension{Name: "planner", Path: "/x/planner", Active: !tt.inactive, PlanDirectory: tt.ext})
			}
			var warned []string
			got, err := plansDir(st, exts, root, "TMP", "s1", func(s string) { warned = append(warned, s) })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			want := filepath.Join(root, tt.want)
			if strings.HasPrefix(tt.want, "TMP") {
				want = filepath.FromSlash(tt.want)
			}
			if err != nil || got != want {
				t.Errorf("plansDir = %q, %v; want %q", got, err, want)
			}
			if w := strings.Join(warned, "\n"); (tt.warn == "") != (w == "") || !strings.Contains(w, tt.warn) {
				t.Errorf("warnings %q, want %q", w, tt.warn)
			}
		})
	}
}

// TestPlanCopyWithoutPlan: /plan copy before any plan is approved says so
// (the copy itself is e2e: TestTUIPlanApproveExecute).
func TestPlanCopyWithoutPlan(t *testing.T) {
	res, err := planCopyCommand(&builtin.Plan{}).Execute(context.Background(), &command.Invocation{})
	if err != nil || res.Kind != command.ResultMessage || res.Content != "No approved plan found to copy." {
		t.Errorf("/plan copy = %+v, %v", res, err)
	}
}
