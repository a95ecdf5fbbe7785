package policy

import (
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestDecide(t *testing.T) {
	shell := func(cmd string) Call {
		return Call{Name: "run_shell_command", DisplayName: "Shell", Kind: tool.KindExecute, Args: map[string]any{"command": cmd}}
	}
	write := Call{Name: "write_file", DisplayName: "WriteFile", Kind: tool.KindEdit}
	read := Call{Name: "read_file", DisplayName: "ReadFile", Kind: tool.KindRead}
	tests := []struct {
		name string
		opts Options
		call Call
		want Decision
	}{
		{"read allowed headless", Options{}, read, Allow},
		{"write denied headless", Options{}, write, Deny},
		{"write asks interactive", Options{Interactive: true}, write, Ask},
		{"write allowed auto_edit", Options{Mode: ModeAutoEdit}, write, Allow},
		{"shell not auto_edit", Options{Mode: ModeAutoEdit}, shell("ls"), Deny},
		{"fetch allowed auto_edit", Options{Mode: ModeAutoEdit}, Call{Name: "web_fetch", Kind: tool.KindFetch}, Allow},
		{"fetch denied headless", Options{}, Call{Name: "web_fetch", Kind: tool.KindFetch}, Deny},
		{"yolo allows shell", Options{Mode: ModeYolo}, shell("rm -rf x"), Allow},
		{"plan refuses write even in interactive", Options{Mode: ModePlan, Interactive: true}, write, Deny},
		{"plan allows read", Options{Mode: ModePlan}, read, Allow},
		{"allowed tool headless", Options{Allowed: []string{"write_file"}}, write, Allow},
		{"allowed by display name", Options{Allowed: []string{"WriteFile"}}, write, Allow},
		{"allowed shell prefix", Options{Allowed: []string{"run_shell_command(git status)"}}, shell("git status --short"), Allow},
		{"shell prefix is a word prefix", Options{Allowed: []string{"run_shell_command(git status)"}}, shell("git statusx"), Deny},
		{"shell prefix cannot chain", Options{Allowed: []string{"run_shell_command(git status)"}}, shell("git status && rm -rf /"), Deny},
		{"shell prefix cannot substitute", Options{Allowed: []string{"ShellTool(echo)"}}, shell("echo $(id)"), Deny},
		{"ask kinds may ask headless", Options{AskKinds: []tool.Kind{tool.KindEdit}}, write, Ask},
		{"other kinds still refused", Options{AskKinds: []tool.Kind{tool.KindEdit}}, shell("ls"), Deny},
		{"excluded beats yolo", Options{Mode: ModeYolo, Excluded: []string{"write_file"}}, write, Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := New(tt.opts).Decide(tt.call)
			if got != tt.want {
				t.Errorf("Decide = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRememberAlways(t *testing.T) {
	e := New(Options{Interactive: true})
	c := Call{Name: "run_shell_command", Kind: tool.KindExecute, RootCommands: []string{"git"}, Args: map[string]any{"command": "git commit -m wip"}}
	if d, _ := e.Decide(c); d != Ask {
		t.Fatalf("before: %v", d)
	}
	e.Remember(c, tool.ProceedAlways)
	if d, _ := e.Decide(c); d != Allow {
		t.Fatalf("after: %v", d)
	}
	other := shellCall("git commit -m wip && rm x")
	other.Kind = tool.KindExecute
	if d, _ := e.Decide(other); d != Ask {
		t.Fatalf("a chain with an unapproved root command must still ask, got %v", d)
	}
	mcp := Call{Name: "srv__t", Kind: tool.KindOther, ServerName: "srv"}
	e.Remember(mcp, tool.ProceedAlwaysServer)
	if d, _ := e.Decide(Call{Name: "srv__u", Kind: tool.KindOther, ServerName: "srv"}); d != Allow {
		t.Fatalf("server allowance: %v", d)
	}
}

func TestVisible(t *testing.T) {
	tests := []struct {
		opts Options
		kind tool.Kind
		want bool
	}{
		{Options{}, tool.KindEdit, false},
		{Options{}, tool.KindRead, true},
		{Options{Interactive: true}, tool.KindEdit, true},
		{Options{Mode: ModeYolo}, tool.KindExecute, true},
		{Options{Allowed: []string{"run_shell_command(git)"}}, tool.KindExecute, true},
		{Options{Mode: ModePlan, Interactive: true}, tool.KindEdit, false},
		{Options{AskKinds: []tool.Kind{tool.KindEdit}}, tool.KindEdit, true},
		{Options{AskKinds: []tool.Kind{tool.KindEdit}}, tool.KindExecute, false},
	}
	for i, tt := range tests {
		name := map[tool.Kind]string{tool.KindEdit: "write_file", tool.KindRead: "read_file", tool.KindExecute: "run_shell_command"}[tt.kind]
		if got := New(tt.opts).Visible(stub{name: name, kind: tt.kind}); got != tt.want {
			t.Errorf("%d: Visible(%s) = %v, want %v", i, name, got, tt.want)
		}
	}
}

type stub struct {
	tool.Tool
	name string
	kind tool.Kind
}

func (s stub) Name() string        { return s.name }
func (s stub) DisplayName() string { return s.name }
func (s stub) Kind() tool.Kind     { return s.kind }

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeDefault, "autoEdit": ModeAutoEdit, "auto_edit": ModeAutoEdit, "YOLO": ModeYolo, "plan": ModePlan} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("want error")
	}
}

// mcpStub is an MCP tool as policy sees it: a bare name, Gemini CLI's
// mcp_<server>_<tool> alias and its server.
type mcpStub struct {
	stub
	server string
}

func (s mcpStub) Aliases() []string      { return []string{"mcp_" + s.server + "_" + s.name} }
func (s mcpStub) ServerName() string     { return s.server }
func (s mcpStub) ServerToolName() string { return s.name }

func TestMCPNames(t *testing.T) {
	echo := mcpStub{stub{name: "echo", kind: tool.KindOther}, "srv"}
	other := mcpStub{stub{name: "echo", kind: tool.KindOther}, "other"}
	lookup := func(t tool.Tool) func(string) (tool.Tool, bool) {
		return func(string) (tool.Tool, bool) { return t, true }
	}
	tests := []struct {
		name              string
		allowed, excluded []string
		tool              mcpStub
		want              Decision
	}{
		{"exclude by gemini name", nil, []string{"mcp_srv_echo"}, echo, Deny},
		{"exclude by server wildcard", nil, []string{"mcp_srv_*"}, echo, Deny},
		{"wildcard of another server", nil, []string{"mcp_srv_*"}, other, Deny}, // headless default: not allowed either
		{"allow by gemini name", []string{"mcp_srv_echo"}, nil, echo, Allow},
		{"allow by wildcard", []string{"mcp_srv_*"}, nil, echo, Allow},
		{"allow by bare name", []string{"echo"}, nil, echo, Allow},
		{"allow other server's name", []string{"mcp_other_echo"}, nil, echo, Deny},
	}
	for _, tt := range tests {
		e := New(Options{Allowed: tt.allowed, Excluded: tt.excluded, Lookup: lookup(tt.tool)})
		if d, _ := e.Decide(Call{Name: tt.tool.Name(), Kind: tool.KindOther}); d != tt.want {
			t.Errorf("%s: Decide = %v, want %v", tt.name, d, tt.want)
		}
		if got := e.Visible(tt.tool); got != (tt.want == Allow) {
			t.Errorf("%s: Visible = %v", tt.name, got)
		}
	}
}

func TestModeAtMost(t *testing.T) {
	for _, tt := range []struct {
		m, ceiling, want Mode
		capped           bool
	}{
		{ModeYolo, ModeDefault, ModeDefault, true},
		{ModeYolo, "", "", true},
		{ModeYolo, ModeAutoEdit, ModeAutoEdit, true},
		{ModeYolo, ModeYolo, ModeYolo, false},
		{ModeAutoEdit, ModeDefault, ModeDefault, true},
		{ModePlan, ModeDefault, ModePlan, false},
		{ModeDefault, ModePlan, ModePlan, true},
		{"", ModeDefault, "", false},
	} {
		if got, capped := tt.m.AtMost(tt.ceiling); got != tt.want || capped != tt.capped {
			t.Errorf("%q.AtMost(%q) = %q, %v; want %q, %v", tt.m, tt.ceiling, got, capped, tt.want, tt.capped)
		}
	}
}
