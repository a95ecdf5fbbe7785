package setup

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
)

// discoverScript is a discovery command declaring two tools.
const discoverScript = `echo '[{"name": "a", "description": "A."}, {"functionDeclarations": [{"name": "b"}]}]'`

// TestDiscoveredTools checks the assembled session's discovered tools:
// registered after the built-in ones, subject to tools.exclude, asked
// about or refused as Gemini CLI's discovered_tool_* policy has it, and
// problems said in one line while start-up goes on.
func TestDiscoveredTools(t *testing.T) {
	const cmds = `"discoveryCommand": "sh discover.sh", "callCommand": "sh call.sh"`
	tests := []struct {
		name     string
		settings string
		script   string
		untrust  bool
		want     []string
		warning  string
	}{
		{name: "declared", settings: `{"tools": {` + cmds + `}}`, script: discoverScript, want: []string{"discovered_tool_a", "discovered_tool_b"}},
		{name: "excluded by name", settings: `{"tools": {` + cmds + `, "exclude": ["discovered_tool_a"]}}`, script: discoverScript, want: []string{"discovered_tool_b"}},
		{name: "excluded by class", settings: `{"tools": {` + cmds + `, "exclude": ["DiscoveredTool"]}}`, script: discoverScript},
		{name: "unset", settings: `{}`, script: discoverScript},
		{name: "failing", settings: `{"tools": {` + cmds + `}}`, script: "echo 'no luck' >&2; exit 4",
			warning: `tools.discoveryCommand "sh discover.sh" failed with exit code 4: no luck`},
		{name: "bad JSON", settings: `{"tools": {` + cmds + `}}`, script: "echo '[{'",
			warning: `tools.discoveryCommand "sh discover.sh" printed invalid JSON: unexpected end of JSON input`},
		{name: "malformed declaration", settings: `{"tools": {` + cmds + `}}`, script: `echo '[{"name": "a b"}, {"name": "c"}]'`,
			want: []string{"discovered_tool_c"}, warning: `tools.discoveryCommand: tool "a b" (item 1) skipped: its name may only hold letters, digits, '_', '.', ':' and '-'`},
		{name: "untrusted", settings: `{"security": {"folderTrust": {"enabled": true}}, "tools": {` + cmds + `}}`, script: discoverScript, untrust: true,
			warning: "tools.discoveryCommand is not run: this folder is not trusted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlace(t, map[string]string{
				"home/.gemini/settings.json": tt.settings,
				"ws/discover.sh":             tt.script,
				"ws/call.sh":                 "cat",
			})
			env := map[string]string{"PATH": os.Getenv("PATH"), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
			if tt.untrust {
				delete(env, "GEMINI_CLI_TRUST_WORKSPACE")
				tf, _ := json.Marshal(map[string]string{p.ws: "DO_NOT_TRUST"})
				os.WriteFile(filepath.Join(p.home, ".gemini", "trustedFolders.json"), tf, 0o644)
			}
			var warnings []string
			a, err := New(context.Background(), Options{
				WorkDir: p.ws, HomeDir: p.home, Client: fake.Script(), DisableRecording: true,
				Env:  config.EnvMap(env),
				Warn: func(s string) { warnings = append(warnings, s) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			names := a.Session.Tools().Names()
			var got []string
			first := -1
			for i, n := range names {
				if strings.HasPrefix(n, "discovered_tool_") {
					got = append(got, n)
					if first < 0 {
						first = i
					}
				} else if first >= 0 {
					t.Errorf("%s registered after the discovered tools: %q", n, names)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("discovered tools %q, want %q", got, tt.want)
			}
			if tt.warning != "" && !slices.Contains(warnings, tt.warning) {
				t.Errorf("warnings %q lack %q", warnings, tt.warning)
			}
			for _, w := range warnings {
				if strings.Contains(w, "discovery") && w != tt.warning {
					t.Errorf("unexpected warning %q", w)
				}
			}
		})
	}
}

// TestDiscoveredToolPolicy: a discovered tool is asked about in an
// interactive session and refused (and hidden) in a headless one unless
// yolo or tools.allowed lets it run, as Gemini CLI's policy has it.
func TestDiscoveredToolPolicy(t *testing.T) {
	tests := []struct {
		name        string
		allowed     string
		mode        policy.Mode
		interactive bool
		want        policy.Decision
	}{
		{name: "headless", want: policy.Deny},
		{name: "interactive", interactive: true, want: policy.Ask},
		{name: "yolo", mode: policy.ModeYolo, want: policy.Allow},
		{name: "allowed", allowed: `, "allowed": ["discovered_tool_a"]`, want: policy.Allow},
		{name: "plan", mode: policy.ModePlan, interactive: true, want: policy.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlace(t, map[string]string{
				"home/.gemini/settings.json": `{"tools": {"discoveryCommand": "sh discover.sh", "callCommand": "sh call.sh"` + tt.allowed + `}}`,
				"ws/discover.sh":             discoverScript,
			})
			a := p.agent(t, Options{
				Env:          config.EnvMap(map[string]string{"PATH": os.Getenv("PATH"), "GEMINI_CLI_TRUST_WORKSPACE": "true"}),
				ApprovalMode: tt.mode,
				Interactive:  tt.interactive,
			})
			tl, ok := a.Session.Tools().Get("discovered_tool_a")
			if !ok {
				t.Fatal("discovered_tool_a missing")
			}
			c := policy.Call{Name: tl.Name(), DisplayName: tl.DisplayName(), Kind: tl.Kind(), Args: map[string]any{}}
			if got, _ := a.Policy.Decide(c); got != tt.want {
				t.Errorf("decision %v, want %v", got, tt.want)
			}
			if visible := a.Policy.Visible(tl); visible != (tt.want != policy.Deny) {
				t.Errorf("visible %v", visible)
			}
		})
	}
}
