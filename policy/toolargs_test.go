package policy

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// TestArgsOfNonShellTools: settings and --allowed-tools rules that give
// arguments to a tool other than the shell do what the same text does in
// Gemini CLI. Its createPolicyEngineConfig
// (packages/core/src/policy/config.ts) turns a tools.allowed entry
// matching ^([a-zA-Z0-9_-]+)\((.*)\)$ into command-prefix rules for the
// shell tool and, "for non-shell tools, ... allow the tool itself but
// ignore args"; a tools.exclude entry becomes a DENY rule whose toolName
// is the whole text, which no tool has (and the registry's exclusion
// compares whole names too). Before, Castor compared the text in
// parentheses with a "command" argument, so write_file(notes.md) allowed
// nothing, and an MCP tool's exclude rule could refuse calls Gemini CLI
// runs.
func TestArgsOfNonShellTools(t *testing.T) {
	write := Call{Name: "write_file", DisplayName: "WriteFile", Kind: tool.KindEdit, Args: map[string]any{"file_path": "/w/other.md", "content": "x"}}
	shell := Call{Name: "run_shell_command", DisplayName: "Shell", Kind: tool.KindExecute, Args: map[string]any{"command": "rm -rf build"}}
	mcpExec := Call{Name: "exec", Kind: tool.KindOther, ServerName: "srv", Args: map[string]any{"command": "rm -rf build"}}
	tests := []struct {
		name              string
		mode              Mode
		allowed, excluded []string
		call              Call
		want              Decision // headless, so "ask" reads deny
	}{
		// Gemini CLI: ALLOW rule {toolName: "write_file"}, no argsPattern.
		{"allowed write_file(args) allows every call", "", []string{"write_file(notes.md)"}, nil, write, Allow},
		{"allowed by display name with args", "", []string{"WriteFile(notes.md)"}, nil, write, Allow},
		{"allowed MCP tool with args", "", []string{"mcp_srv_exec(git)"}, nil, mcpExec, Allow},
		// The shell keeps its command prefixes.
		{"allowed shell prefix still a prefix", "", []string{"run_shell_command(git)"}, nil, shell, Deny},
		// Gemini CLI: DENY rule {toolName: "write_file(notes.md)"}: no match.
		{"excluded write_file(args) excludes nothing", ModeYolo, nil, []string{"write_file(notes.md)"}, write, Allow},
		{"excluded MCP tool with args excludes nothing", ModeYolo, nil, []string{"mcp_srv_exec(rm)"}, mcpExec, Allow},
		// Castor keeps refusing shell commands by prefix, as Gemini CLI's
		// documentation (docs/tools/shell.md) describes.
		{"excluded shell prefix refuses", ModeYolo, nil, []string{"run_shell_command(rm)"}, shell, Deny},
		{"excluded whole tool refuses", ModeYolo, nil, []string{"write_file"}, write, Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exec := mcpStub{stub{name: "exec", kind: tool.KindOther}, "srv"}
			lookup := func(name string) (tool.Tool, bool) { return exec, name == "exec" }
			e := New(Options{Mode: tt.mode, Allowed: tt.allowed, Excluded: tt.excluded, Lookup: lookup})
			if d, _ := e.Decide(tt.call); d != tt.want {
				t.Errorf("Decide = %v, want %v", d, tt.want)
			}
		})
	}
}

func TestIgnoredArgs(t *testing.T) {
	tests := []struct {
		rule    string
		exclude bool
		want    string // a fragment; "" for no note
	}{
		{"write_file(notes.md)", false, "allows every call of write_file, as in Gemini CLI"},
		{"write_file(notes.md)", true, "excludes nothing, as in Gemini CLI; write write_file alone"},
		{"mcp_srv_exec(git)", false, "allows every call of mcp_srv_exec"},
		{"run_shell_command(git)", false, ""},
		{"ShellTool(git)", true, ""},
		{"write_file", false, ""},
		{"write_file()", false, ""}, // malformed: CheckRule says it
		{"write_file(", true, ""},
	}
	for _, tt := range tests {
		got := IgnoredArgs(tt.rule, tt.exclude)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("IgnoredArgs(%q, %v) = %q, want %q", tt.rule, tt.exclude, got, tt.want)
		}
	}
}
