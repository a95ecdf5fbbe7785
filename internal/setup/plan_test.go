package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

// general.plan.directory: relative to the project root and inside it, or
// the session's folder under the project's temporary directory.
func TestPlansDir(t *testing.T) {
	tests := []struct {
		name, setting string
		want          string // relative to the root; "tmp/s1/plans" under the temp dir
		err           string
	}{
		{"default", "", "TMP/s1/plans", ""},
		{"relative", "docs/plans", "docs/plans", ""},
		{"root itself", ".", ".", ""},
		{"outside the root", "../elsewhere", "", "general.plan.directory: custom plans directory '../elsewhere' resolves to"},
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
			got, err := plansDir(st, root, "TMP", "s1")
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
		})
	}
}
