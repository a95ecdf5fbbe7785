package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/hooks"
)

// TestNoticeProjectHooks: a trusted workspace's project hooks are
// reported once each, as Gemini CLI 0.61 reports them, in the
// trusted_hooks.json it shares with Castor; user hooks never are.
func TestNoticeProjectHooks(t *testing.T) {
	gem := filepath.Join(t.TempDir(), ".gemini")
	root := "/work/project"
	lint := hooks.Hook{Source: hooks.SourceProject, Command: "./lint.sh"}
	named := hooks.Hook{Source: hooks.SourceProject, Name: "guard", Command: "./guard.sh"}
	user := hooks.Hook{Source: hooks.SourceUser, Command: "./mine.sh"}
	tests := []struct {
		name string
		list []hooks.Hook
		want []string // the hooks named, "" for no notice
	}{
		{"first start", []hooks.Hook{lint, named, user}, []string{"  - ./lint.sh\n  - guard\n"}},
		{"again", []hooks.Hook{lint, named, user}, nil},
		{"one more", []hooks.Hook{lint, named, {Source: hooks.SourceProject, Command: "./new.sh"}}, []string{"detected in this workspace:\n  - ./new.sh\n\n"}},
	}
	for _, tt := range tests {
		var warns []string
		noticeProjectHooks(gem, root, tt.list, func(s string) { warns = append(warns, s) })
		got := strings.Join(warns, "\n")
		if len(tt.want) == 0 && got != "" {
			t.Errorf("%s: warned %q", tt.name, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) || !strings.HasPrefix(got, "The following project-level hooks have been detected in this workspace:") || strings.Contains(got, "mine.sh") {
				t.Errorf("%s: warned %q, want %q in it", tt.name, got, w)
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(gem, trustedHooksFile))
	if err != nil || !strings.Contains(string(data), `":./lint.sh"`) || !strings.Contains(string(data), `"guard:./guard.sh"`) {
		t.Errorf("trusted_hooks.json: %s %v", data, err)
	}
}
