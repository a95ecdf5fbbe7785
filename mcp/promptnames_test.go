package mcp

import (
	"slices"
	"testing"
)

// TestPromptCommandNames: prompt commands are named as Gemini CLI's
// SlashCommandResolver names MCP prompts (packages/cli/src/services/
// SlashCommandResolver.ts): a built-in keeps its name and the prompt
// becomes <server>.<name>; when two servers offer the same name, both are
// prefixed; a prefixed name already in use gets a number.
func TestPromptCommandNames(t *testing.T) {
	p := func(server, cmd string) Prompt { return Prompt{Server: server, Name: cmd, Command: cmd} }
	builtins := func(n string) bool { return n == "help" || n == "memory" || n == "b.x" }
	tests := []struct {
		name    string
		prompts []Prompt
		taken   func(string) bool
		want    []string
	}{
		{"no conflict", []Prompt{p("a", "x"), p("b", "y")}, builtins, []string{"x", "y"}},
		{"built-in keeps its name", []Prompt{p("a", "help"), p("a", "memory")}, builtins, []string{"a.help", "a.memory"}},
		{"two servers: both prefixed", []Prompt{p("a", "x"), p("b", "y"), p("c", "x")}, nil, []string{"a.x", "y", "c.x"}},
		{"three servers", []Prompt{p("a", "x"), p("b", "x"), p("c", "x")}, nil, []string{"a.x", "b.x", "c.x"}},
		{"prefixed name taken: numbered", []Prompt{p("a", "x"), p("b", "x")}, builtins, []string{"a.x", "b.x1"}},
		{"same server twice", []Prompt{p("a", "x"), p("a", "x")}, nil, []string{"a.x1", "a.x"}},
		// A prompt named like an earlier prompt's new name does not take
		// it over: two commands of one name would hide one prompt.
		{"named like a renaming", []Prompt{p("a", "x"), p("b", "x"), p("c", "a.x")}, nil, []string{"a.x", "b.x", "c.a.x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PromptCommandNames(tt.prompts, tt.taken); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCommandsOfTwoServers: two servers offering the same prompt both
// keep a command, and each runs its own server's prompt. Before, the
// second server's command replaced the first's.
func TestCommandsOfTwoServers(t *testing.T) {
	m, d := startManager(t, Options{Servers: []*ServerConfig{helperConfig(t, "one", "everything"), helperConfig(t, "two", "everything")}})
	var names []string
	for _, c := range m.Commands() {
		names = append(names, c.Name)
	}
	for _, want := range []string{"one.greet", "two.greet", "one.no-args", "two.no-args"} {
		if !slices.Contains(names, want) {
			t.Errorf("no /%s among %q\n%s", want, names, d)
		}
	}
	if slices.Contains(names, "greet") {
		t.Errorf("/greet is still there: %q", names)
	}
}
