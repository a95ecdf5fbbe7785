package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/textutil"
)

// Tier is where a policy file comes from. A rule's final priority is its
// tier plus its priority/1000, so every rule of a higher tier outranks
// every rule of a lower one, as in Gemini CLI.
type Tier int

// Tiers, lowest first. Gemini CLI's own default rules are the default
// tier; Castor builds them in (see Engine). The workspace tier is disabled
// in Gemini CLI 0.61 (issue #18186) and Castor does not load it either.
const (
	TierDefault   Tier = 1
	TierExtension Tier = 2
	TierWorkspace Tier = 3
	TierUser      Tier = 4
	TierAdmin     Tier = 5
)

// String names the tier as Gemini CLI's messages do.
func (t Tier) String() string {
	switch t {
	case TierDefault:
		return "default"
	case TierExtension:
		return "extension"
	case TierWorkspace:
		return "workspace"
	case TierUser:
		return "user"
	case TierAdmin:
		return "admin"
	}
	return fmt.Sprintf("tier %d", int(t))
}

// Rule is one [[rule]] of a policy file, ready for Options.Rules.
type Rule struct {
	source    string // file path, for messages
	tier      Tier
	priority  int // tier*1000 + the file's priority (0..999)
	decision  Decision
	toolName  string // as written ("*", a name, mcp_<server>_*), or the server's tool name when mcpName is set
	mcpName   string
	args      *regexp.Regexp
	modes     []Mode
	readOnly  *bool // toolAnnotations.readOnlyHint
	interact  *bool
	allowRedi bool
	denyMsg   string
}

// String describes the rule in one line, for debugging and listings.
func (r Rule) String() string {
	s := fmt.Sprintf("%s %s", r.decision, r.toolName)
	if r.mcpName != "" {
		s += " mcpName=" + r.mcpName
	}
	if r.args != nil {
		s += " args~" + r.args.String()
	}
	return fmt.Sprintf("%s priority=%d.%03d (%s)", s, r.priority/1000, r.priority%1000, r.source)
}

// fileError is one problem in a policy file: its rule (1-based, 0 for the
// whole file), the rule's line and the key at fault.
type fileError struct {
	file string
	kind string // "rule" or "safety_checker"
	idx  int
	line int
	key  string
	msg  string
	// warning marks what Castor leaves out by design (safety checkers,
	// what an extension may not contribute) rather than a mistake that
	// loses rules the user wrote.
	warning bool
}

// IsWarning reports whether err, one of the errors of LoadRules or
// ParseRules, only says what Castor leaves out by design: a safety
// checker, or a rule an extension may not contribute. The other errors are
// mistakes in the file (TOML syntax, an unknown key, a bad value) that
// cost rules its author wrote, which a session should refuse to start
// without.
func IsWarning(err error) bool {
	var fe *fileError
	return errors.As(err, &fe) && fe.warning
}

func (e *fileError) Error() string {
	var b strings.Builder
	b.WriteString("policy file ")
	b.WriteString(e.file)
	if e.idx > 0 {
		fmt.Fprintf(&b, ": %s #%d", e.kind, e.idx)
	}
	if e.line > 0 {
		fmt.Fprintf(&b, " (line %d)", e.line)
	}
	if e.key != "" {
		b.WriteString(": " + e.key)
	}
	b.WriteString(": " + e.msg)
	return b.String()
}

// LoadRules reads the policy files at path: a .toml file, or every .toml
// file of a directory in name order. A missing path has no rules. The
// errors come one per problem, each naming the file, the rule, its line
// and the key; a bad rule is skipped and the rest still load, so a caller
// that must not run with fewer rules than were written refuses the lot
// when any error is not a warning (IsWarning).
func LoadRules(path string, tier Tier) ([]Rule, []error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{&fileError{file: path, msg: err.Error()}}
	}
	var files []string
	if fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, []error{&fileError{file: path, msg: err.Error()}}
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".toml") {
				continue
			}
			// A symlink to a file counts (dotfile managers link them).
			f := filepath.Join(path, e.Name())
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
				files = append(files, f)
			}
		}
	} else if strings.HasSuffix(path, ".toml") {
		files = []string{path}
	} else {
		return nil, []error{&fileError{file: path, msg: "not a .toml file or a directory; ignored"}}
	}
	var rules []Rule
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, &fileError{file: f, msg: err.Error()})
			continue
		}
		r, e := ParseRules(f, data, tier)
		rules = append(rules, r...)
		errs = append(errs, e...)
	}
	return rules, errs
}

// ParseRules parses one policy file in Gemini CLI's TOML format. name is
// the file's path, used in messages. See LoadRules for the errors.
//
// Rules of the extension tier may not allow calls nor apply in yolo mode,
// as in Gemini CLI: such rules are dropped with a warning.
func ParseRules(name string, data []byte, tier Tier) ([]Rule, []error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		fe := &fileError{file: name, msg: "TOML: " + err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			fe.line = pe.Position.Line
			fe.msg = "TOML: " + pe.Message
		}
		return nil, []error{fe}
	}
	p := &fileParser{name: name, tier: tier, lines: tableLines(data)}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := doc[k]
		switch k {
		case "rule":
			tables, ok := tableArray(v)
			if !ok {
				p.warn(&fileError{key: "rule", msg: "must be an array of tables ([[rule]])"})
				continue
			}
			for i, t := range tables {
				p.rule(i+1, t)
			}
		case "safety_checker":
			n := 1
			if tables, ok := tableArray(v); ok {
				n = len(tables)
			}
			for i := range n {
				p.warn(&fileError{kind: "safety_checker", idx: i + 1, line: p.line("safety_checker", i+1), msg: "safety checkers are not supported by Castor; ignored", warning: true})
			}
		default:
			p.warn(&fileError{key: k, msg: "unknown key; ignored"})
		}
	}
	return p.rules, p.errs
}

// tableArray reads an array of tables, written [[rule]] or inline as
// rule = [{...}].
func tableArray(v any) ([]map[string]any, bool) {
	switch v := v.(type) {
	case []map[string]any:
		return v, true
	case []any:
		out := make([]map[string]any, 0, len(v))
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	return nil, false
}

type fileParser struct {
	name  string
	tier  Tier
	lines map[string][]int
	rules []Rule
	errs  []error
}

func (p *fileParser) warn(e *fileError) {
	e.file = p.name
	if e.kind == "" {
		e.kind = "rule"
	}
	p.errs = append(p.errs, e)
}

// line is the line of the n-th [[table]] header of the file, or 0.
func (p *fileParser) line(table string, n int) int {
	if ls := p.lines[table]; n >= 1 && n <= len(ls) {
		return ls[n-1]
	}
	return 0
}

// tableHeader matches an array-of-tables header line such as [[rule]].
var tableHeader = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\[\s*([A-Za-z0-9_-]+)\s*\]\]`) }}

// tableLines finds the line of every [[name]] header, so that a warning
// can point at the rule it is about.
func tableLines(data []byte) map[string][]int {
	out := map[string][]int{}
	for i, l := range strings.Split(string(data), "\n") {
		if m := tableHeader.Get().FindStringSubmatch(l); m != nil {
			out[m[1]] = append(out[m[1]], i+1)
		}
	}
	return out
}

// ruleKeys are the keys of a [[rule]] Castor knows, with how it reads
// them.
var ruleKeys = []string{
	"toolName", "mcpName", "argsPattern", "commandPrefix", "commandRegex", "decision", "priority",
	"modes", "interactive", "denyMessage", "deny_message", "allowRedirection", "allow_redirection",
	"toolAnnotations", "name", "subagent", "safety_checker",
}

// rule reads the i-th [[rule]] table and appends the rules it stands for
// (one per tool name and command prefix).
func (p *fileParser) rule(i int, t map[string]any) {
	line := p.line("rule", i)
	bad := func(key, format string, a ...any) {
		p.warn(&fileError{idx: i, line: line, key: key, msg: fmt.Sprintf(format, a...)})
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(ruleKeys, k) {
			bad(k, "unknown key; ignored")
		}
	}
	ok := true
	str := func(key string) (string, bool) {
		v, present := t[key]
		if !present {
			return "", false
		}
		s, isStr := v.(string)
		if !isStr {
			bad(key, "must be a string, not %s", tomlType(v))
			ok = false
			return "", false
		}
		return s, true
	}
	strs := func(key string) ([]string, bool) {
		v, present := t[key]
		if !present {
			return nil, false
		}
		switch v := v.(type) {
		case string:
			return []string{v}, true
		case []any:
			out := make([]string, 0, len(v))
			for _, e := range v {
				s, isStr := e.(string)
				if !isStr {
					bad(key, "must be a string or an array of strings, found %s in the array", tomlType(e))
					ok = false
					return nil, false
				}
				out = append(out, s)
			}
			return out, true
		}
		bad(key, "must be a string or an array of strings, not %s", tomlType(v))
		ok = false
		return nil, false
	}
	boolean := func(keys ...string) *bool {
		for _, key := range keys {
			if v, present := t[key]; present {
				b, isBool := v.(bool)
				if !isBool {
					bad(key, "must be a boolean, not %s", tomlType(v))
					ok = false
					return nil
				}
				return &b
			}
		}
		return nil
	}

	r := Rule{source: p.name, tier: p.tier}
	decision, hasDecision := str("decision")
	switch {
	case !hasDecision && ok:
		bad("decision", "is required (allow, deny or ask_user)")
		ok = false
	case !hasDecision:
	case decision == "allow":
		r.decision = Allow
	case decision == "deny":
		r.decision = Deny
	case decision == "ask_user":
		r.decision = Ask
	default:
		bad("decision", "unknown decision %q: use allow, deny or ask_user", decision)
		ok = false
	}
	switch v, present := t["priority"]; {
	case !present:
		bad("priority", "is required (an integer from 0 to 999)")
		ok = false
	default:
		switch n := v.(type) {
		case int64:
			if n < 0 || n > 999 {
				bad("priority", "%d is out of range: use 0 to 999 (1000 would reach the next tier)", n)
				ok = false
			} else {
				r.priority = int(p.tier)*1000 + int(n)
			}
		default:
			bad("priority", "must be an integer from 0 to 999, not %s", tomlType(v))
			ok = false
		}
	}
	names, hasNames := strs("toolName")
	r.mcpName, _ = str("mcpName")
	if _, present := t["mcpName"]; present && r.mcpName == "" && ok {
		bad("mcpName", "must not be empty")
		ok = false
	}
	argsPattern, hasArgs := str("argsPattern")
	prefixes, hasPrefix := strs("commandPrefix")
	cmdRegex, hasRegex := str("commandRegex")
	if hasPrefix || hasRegex {
		switch {
		case hasArgs:
			bad("argsPattern", "cannot be combined with commandPrefix or commandRegex")
			ok = false
		case hasPrefix && hasRegex:
			bad("commandRegex", "cannot be combined with commandPrefix")
			ok = false
		case !hasNames:
			names, hasNames = []string{"run_shell_command"}, true
		case len(names) != 1 || names[0] != "run_shell_command":
			// Gemini CLI reports this and still loads the rule.
			bad("toolName", "commandPrefix and commandRegex are for toolName = \"run_shell_command\"; the rule applies them to %q", names)
		}
		if hasPrefix && len(prefixes) == 0 {
			bad("commandPrefix", "must not be an empty array")
			ok = false
		}
	}
	if !hasNames {
		if r.mcpName != "" {
			names = []string{"*"}
		} else if ok {
			bad("toolName", "is required (use \"*\" for every tool)")
			ok = false
		}
	}
	if slices.Contains(names, "") {
		bad("toolName", "must not be empty (use \"*\" for every tool)")
		ok = false
	}
	for _, n := range names {
		if strings.ContainsAny(n, "()") {
			// The tool(args) form of tools.allowed is not a policy file's:
			// Gemini CLI takes it as a name no tool has.
			bad("toolName", "%q: a policy rule's tool name has no parentheses; for a command write toolName = \"run_shell_command\" with commandPrefix", n)
		} else if strings.Contains(n, "__") && r.mcpName == "" {
			bad("toolName", "%q: the \"__\" form of MCP tool names is deprecated; use mcpName or mcp_<server>_<tool>", n)
		} else if s := typoOf(n); s != "" && r.mcpName == "" {
			bad("toolName", "unrecognized tool name %q; did you mean %q?", n, s)
		}
	}
	if modes, present := strs("modes"); present {
		for _, m := range modes {
			mode, err := parseRuleMode(m)
			if err != nil {
				bad("modes", "%v", err)
				ok = false
				continue
			}
			r.modes = append(r.modes, mode)
		}
	}
	r.interact = boolean("interactive")
	if b := boolean("allowRedirection", "allow_redirection"); b != nil {
		r.allowRedi = *b
	}
	if m, present := str("denyMessage"); present {
		r.denyMsg = m
	} else if m, present := str("deny_message"); present {
		r.denyMsg = m
	}
	str("name") // a label, as in Gemini CLI's default policies
	if v, present := t["toolAnnotations"]; present {
		ann, isTable := v.(map[string]any)
		if !isTable {
			bad("toolAnnotations", "must be a table, not %s", tomlType(v))
			ok = false
		}
		for k, av := range ann {
			b, isBool := av.(bool)
			if k != "readOnlyHint" || !isBool {
				bad("toolAnnotations."+k, "only readOnlyHint = true|false is supported; rule skipped")
				ok = false
				continue
			}
			r.readOnly = &b
		}
	}
	if _, present := t["subagent"]; present {
		bad("subagent", "rules for a subagent's own calls are not supported; rule skipped")
		ok = false
	}
	if _, present := t["safety_checker"]; present {
		bad("safety_checker", "safety checkers are not supported; rule skipped")
		ok = false
	}
	if p.tier == TierExtension && ok {
		if r.decision == Allow {
			p.warn(&fileError{idx: i, line: line, key: "decision", msg: "an extension may not allow tool calls; rule ignored", warning: true})
			ok = false
		} else if slices.Contains(r.modes, ModeYolo) {
			p.warn(&fileError{idx: i, line: line, key: "modes", msg: "an extension may not contribute yolo-mode rules; rule ignored", warning: true})
			ok = false
		}
	}
	if !ok {
		return
	}
	if r.decision != Deny && r.denyMsg != "" {
		r.denyMsg = ""
	}

	var patterns []string
	switch {
	case hasPrefix:
		for _, pre := range prefixes {
			patterns = append(patterns, prefixPattern(pre))
		}
	case hasRegex:
		patterns = []string{`"command":"` + cmdRegex}
	case hasArgs:
		patterns = []string{argsPattern}
	default:
		patterns = []string{""}
	}
	key := "argsPattern"
	if hasRegex {
		key = "commandRegex"
	}
	var compiled []*regexp.Regexp
	for _, pat := range patterns {
		if pat == "" {
			compiled = append(compiled, nil)
			continue
		}
		re, err := compileArgsPattern(pat)
		if err != nil {
			bad(key, "%v; rule skipped", err)
			return
		}
		compiled = append(compiled, re)
	}
	for _, re := range compiled {
		for _, n := range names {
			rr := r
			rr.toolName = n
			rr.args = re
			p.rules = append(p.rules, rr)
		}
	}
}

// parseRuleMode reads a mode as policy files spell it (autoEdit) or as
// the CLI does (auto_edit).
func parseRuleMode(s string) (Mode, error) {
	switch s {
	case "default", "autoEdit", "auto_edit", "yolo", "plan":
		return ParseMode(s)
	}
	return "", fmt.Errorf("unknown mode %q: use default, autoEdit, yolo or plan", s)
}

// tomlType names a decoded TOML value's type for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// builtinNames are Gemini CLI's built-in tool names, against which a
// rule's tool name is checked for typos.
var builtinNames = []string{
	"glob", "write_todos", "write_file", "google_web_search", "web_fetch", "replace",
	"run_shell_command", "grep_search", "read_many_files", "read_file", "list_directory",
	"activate_skill", "ask_user", "enter_plan_mode", "exit_plan_mode", "invoke_agent",
	"save_memory", "search_file_content", "codebase_investigator", "cli_help",
}

// typoOf returns the built-in name n is likely a typo of (at most three
// edits away, as Gemini CLI warns), or "" for a built-in name or one too
// far from all of them to be a typo (an MCP or agent tool).
func typoOf(n string) string {
	if n == "*" || strings.HasPrefix(n, "mcp_") || strings.HasPrefix(n, "discovered_tool_") || slices.Contains(builtinNames, n) {
		return ""
	}
	best, bestD := "", 4
	for _, b := range builtinNames {
		if d := textutil.EditDistance(n, b); d < bestD {
			best, bestD = b, d
		}
	}
	return best
}
