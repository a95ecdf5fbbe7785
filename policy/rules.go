package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/lazy"
)

// Priorities of Castor's built-in decisions, in thousandths, on the scale
// of policy-file rules (tier*1000 + priority): the values Gemini CLI gives
// the same rules, so that a file rule outranks exactly the built-in
// decisions it would outrank there.
const (
	prioNone       = 0    // no rule: the default decision
	prioAutoEdit   = 1015 // write.toml: edits allowed in autoEdit
	prioPlanDeny   = 1040 // plan.toml: everything else refused in plan mode
	prioReadOnly   = 1050 // read-only.toml, agents.toml
	prioYolo       = 1998 // yolo.toml: allow everything
	prioAlways     = 3950 // "always allow" answers
	prioTrusted    = 4200 // mcpServers.*.trust
	prioAllowed    = 4300 // tools.allowed, --allowed-tools
	prioExcluded   = 4400 // tools.exclude
	deniedByPolicy = "Tool execution denied by policy."
)

// sortRules orders rules by priority, highest first; rules of the same
// priority keep their load order, so the one loaded first wins, as with
// Gemini CLI's stable sort.
func sortRules(rules []Rule) []Rule {
	out := slices.Clone(rules)
	sort.SliceStable(out, func(i, j int) bool { return out[i].priority > out[j].priority })
	return out
}

// prefixPattern is the argsPattern a commandPrefix stands for: the
// command argument, in the stable JSON of the arguments, starts with the
// prefix followed by a space, the end of the string or an escaped quote.
func prefixPattern(prefix string) string {
	enc := jsQuote(prefix)
	enc = enc[:len(enc)-1] // an open string: the command may go on
	return regexp.QuoteMeta(`"command":`+enc) + `(?:[\s"]|\\")`
}

// nestedQuantifier is Gemini CLI's heuristic for patterns prone to
// catastrophic backtracking: a quantified group holding a quantifier.
var nestedQuantifier = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\([^)]*[*+?{].*\)[*+?{]`) }}

// jsUnicodeEscape matches JavaScript's \uXXXX escape, which Go's regexp
// spells \x{XXXX}.
var jsUnicodeEscape = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`) }}

// compileArgsPattern compiles a rule's regular expression. Go's RE2 never
// backtracks, but patterns Gemini CLI refuses as unsafe are refused here
// too, so that both load the same rules.
func compileArgsPattern(p string) (*regexp.Regexp, error) {
	if len(p) > 2048 {
		return nil, fmt.Errorf("pattern is longer than 2048 characters")
	}
	if nestedQuantifier.Get().MatchString(p) {
		return nil, fmt.Errorf("pattern %q nests quantifiers (refused as unsafe, as Gemini CLI does)", p)
	}
	re, err := regexp.Compile(jsUnicodeEscape.Get().ReplaceAllString(p, `\x{$1}`))
	if err != nil {
		return nil, fmt.Errorf("pattern %q is not a regular expression Castor can run (Go RE2 has no lookaround or backreferences): %v", p, err)
	}
	return re, nil
}

// stableArgs renders a call's arguments as Gemini CLI's stableStringify
// does before matching argsPattern: JSON with sorted keys and every
// top-level "key":value pair wrapped in NUL characters.
func stableArgs(args map[string]any) string {
	var b strings.Builder
	writeStable(&b, args, true)
	return b.String()
}

func writeStable(b *strings.Builder, v any, top bool) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(jsQuote(v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		b.WriteString(v.String())
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		// encoding/json formats floats as JavaScript does; NaN and
		// infinities, which JSON lacks, become null as in JSON.stringify.
		out, err := json.Marshal(v)
		if err != nil {
			out = []byte("null")
		}
		b.Write(out)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeStable(b, e, false)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if top {
				b.WriteByte(0)
			}
			b.WriteString(jsQuote(k))
			b.WriteByte(':')
			writeStable(b, v[k], false)
			if top {
				b.WriteByte(0)
			}
		}
		b.WriteByte('}')
	default:
		// Anything else goes through JSON to the same shapes.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		var generic any
		if enc.Encode(v) != nil || json.Unmarshal(buf.Bytes(), &generic) != nil {
			b.WriteString("null")
			return
		}
		writeStable(b, generic, top)
	}
}

// jsQuote quotes s as JavaScript's JSON.stringify does (which, unlike
// encoding/json, leaves <, >, & and U+2028/9 alone).
func jsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// matches reports whether r applies to c in the given mode. With
// ignoreArgs the rule's argument pattern is not looked at (to find the
// tools a rule refuses whatever their arguments).
func (r *Rule) matches(c Call, mode Mode, interactive bool, args func() string, ignoreArgs bool) bool {
	if len(r.modes) > 0 && !slices.Contains(r.modes, mode) {
		return false
	}
	if r.interact != nil && *r.interact != interactive {
		return false
	}
	if r.mcpName != "" {
		if c.ServerName == "" || (r.mcpName != "*" && r.mcpName != c.ServerName) {
			return false
		}
	}
	if !r.nameMatches(c) && !r.agentMatches(c) {
		return false
	}
	if r.readOnly != nil && (c.readOnlyHint == nil || *c.readOnlyHint != *r.readOnly) {
		return false
	}
	if r.args != nil && !ignoreArgs {
		if c.unknown != "" {
			// A command that cannot be known before it runs may be
			// anything: every deny and ask rule applies, and an allow
			// rule only when it allows the command that runs it.
			if r.decision != Allow || c.owner == "" {
				return r.decision != Allow
			}
			return r.args.MatchString(stableArgs(map[string]any{"command": c.owner}))
		}
		if c.Args == nil || !r.args.MatchString(args()) {
			return false
		}
	}
	return true
}

func (r *Rule) nameMatches(c Call) bool {
	n := r.toolName
	switch {
	case n == "*":
		return true
	case r.mcpName != "" && c.serverTool != "" && n == c.serverTool:
		// mcpName + the server's own tool name.
		return true
	case n == "mcp_*":
		return c.ServerName != ""
	case strings.HasPrefix(n, "mcp_*_"):
		// One tool name on every server, as Gemini CLI's docs describe.
		return c.ServerName != "" && c.serverTool == n[len("mcp_*_"):]
	}
	return rule{name: n}.nameMatches(c)
}

// agentMatches lets a rule name a subagent as if it were a tool: a call
// of invoke_agent answers to its agent_name too, as in Gemini CLI.
func (r *Rule) agentMatches(c Call) bool {
	if c.Name != "invoke_agent" {
		return false
	}
	name, _ := c.Args["agent_name"].(string)
	return name != "" && name == r.toolName
}

// isShell reports whether c is a call of the shell tool with a command.
func isShell(c Call) (string, bool) {
	if !isShellName(c.Name) {
		return "", false
	}
	cmd, _ := c.Args["command"].(string)
	return cmd, strings.TrimSpace(cmd) != ""
}

// decideFilesLocked decides c with the policy-file rules in the game (and
// every shell call, with or without them): the built-in decision, adjusted
// by the shell heuristics, unless a file rule of at least its priority
// matches; then, for a shell line, every command it runs (shell.go) is
// decided the same way on its resolved words, and one refusal refuses the
// whole line (one that needs approval makes the line need approval), as
// in Gemini CLI for compound commands. A refusal that comes from a
// command the line spells otherwise says which command it is.
func (e *Engine) decideFilesLocked(c Call) (Decision, string) {
	if cmd, ok := isShell(c); ok {
		c.scan = lineOf(c, cmd)
	}
	d, msg := e.decideAtomicLocked(c, true)
	why := "" // an unknown command that made the line ask
	if cmd, ok := isShell(c); ok && d != Deny {
		whole := strings.TrimSpace(cmd)
		l := c.scan
		var raw shellCmd
		rawD, rawKnown := Allow, false
		for _, p := range l.cmds {
			if p.raw {
				raw, rawKnown = p, false
			}
			if p.unknown == "" && p.text == whole && p.plain == whole {
				continue
			}
			sd, smsg := e.decideCommandLocked(c, p, whole)
			switch {
			case p.raw:
				rawD, rawKnown = sd, true
			case p.variant:
				// The command as the line spells it was decided (or is
				// the line): its resolved form counts where a rule reads
				// it otherwise, not for the lack of one.
				if !rawKnown {
					rawD, _ = e.decideCommandLocked(c, raw, whole)
					rawKnown = true
				}
				if !stricter(sd, rawD) {
					continue
				}
			}
			if sd == Deny {
				return Deny, smsg
			}
			if sd == Ask && d == Allow {
				d = Ask
			}
			if sd == Ask && why == "" {
				why = p.unknown
			}
		}
	}
	if d == Ask && !e.canAskLocked(c) && !e.selfConfirm[c.Name] {
		if why != "" {
			return Deny, deniedByPolicy + " " + why
		}
		return Deny, deniedByPolicy
	}
	return d, msg
}

// decideCommandLocked decides one command p of the shell line whole that
// c runs: the stricter of its two spellings (words quoted, words joined),
// or, for a command that cannot be known, as one that matches every deny
// rule and no allow rule.
func (e *Engine) decideCommandLocked(c Call, p shellCmd, whole string) (Decision, string) {
	sub := c
	sub.RootCommands = nil
	sub.scan = nil
	if p.raw && p.text == whole {
		sub.scan = c.scan
	}
	sub.Args = map[string]any{"command": p.text}
	for _, k := range []string{"dir_path", "directory"} {
		if dir, ok := c.Args[k]; ok {
			sub.Args[k] = dir
		}
	}
	if p.unknown != "" {
		sub.unknown, sub.owner = p.unknown, p.owner
		sub.Args["command"] = whole
		d, msg := e.decideAtomicLocked(sub, false)
		if d == Deny {
			msg += " " + p.unknown
		}
		return d, msg
	}
	if p.root != "" {
		sub.RootCommands = []string{p.root}
	}
	sub.resolved = !p.raw
	d, msg := e.decideAtomicLocked(sub, false)
	if d != Deny && p.plain != p.text {
		sub.Args = maps.Clone(sub.Args)
		sub.Args["command"] = p.plain
		// The joined words are not shell (`rm 'a b'` reads `rm a b`): a
		// rule refusing them counts, nothing else read from them.
		if pd, pmsg := e.decideAtomicLocked(sub, false); pd == Deny {
			d, msg = pd, pmsg
			p.text = p.plain
		}
	}
	if d == Deny && whole != "" && !strings.Contains(whole, p.text) {
		msg += " The line runs `" + p.text + "`."
	}
	return d, msg
}

// stricter reports whether a is stricter than b: deny, then ask, then allow.
func stricter(a, b Decision) bool {
	rank := func(d Decision) int {
		switch d {
		case Deny:
			return 2
		case Ask:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

// decideAtomicLocked decides one call, without splitting shell lines.
// whole is true for the call as made, false for one command of a
// compound shell line: Gemini CLI's shell heuristics (safe.go) look at
// the whole line only.
func (e *Engine) decideAtomicLocked(c Call, whole bool) (Decision, string) {
	d, prio := e.builtinLocked(c)
	traits := e.builtinShellTraitsLocked(c, d, prio)
	var args string
	argsFn := func() string {
		if args == "" {
			args = stableArgs(c.Args)
		}
		return args
	}
	msg := ""
	builtinMsg := ""
	if d == Deny {
		if m := e.denyMessageLocked(c); m != deniedByPolicy {
			builtinMsg = m
		}
	}
	for i := range e.rules {
		r := &e.rules[i]
		if r.priority < prio {
			break
		}
		if !r.matches(c, e.mode, e.interactive, argsFn, false) {
			continue
		}
		d, msg, builtinMsg = r.decision, r.denyMsg, ""
		traits = shellTraits{heuristics: r.args == nil, allowRedirect: r.allowRedi, patterned: r.args != nil}
		break
	}
	if cmd, ok := isShell(c); ok && !traits.unchecked && !c.resolved {
		if whole && traits.heuristics {
			d = e.shellHeuristicLocked(c, cmd, d)
		}
		if d == Allow {
			l := lineOf(c, cmd)
			switch {
			case !l.ok && e.mode == ModeYolo && traits.patterned:
				// The arguments a pattern allowed cannot be checked.
				d = Deny
			case !l.ok && e.mode != ModeYolo:
				d = Ask
			case l.redirects && !traits.allowRedirect && e.mode != ModeAutoEdit && e.mode != ModeYolo:
				d = Ask
			case l.substitutes && traits.askSubstitution && e.mode != ModeYolo:
				d = Ask
			}
		}
	}
	if d == Deny {
		if builtinMsg != "" {
			return Deny, builtinMsg
		}
		if msg != "" {
			return Deny, deniedByPolicy + " " + msg
		}
		return Deny, deniedByPolicy
	}
	return d, ""
}

// builtinLocked is the decision without policy files, with its priority.
func (e *Engine) builtinLocked(c Call) (Decision, int) {
	for _, r := range e.excluded {
		if r.matches(c, true) {
			return Deny, prioExcluded
		}
	}
	return e.decideLocked(c)
}

// visibleFilesLocked applies the file rules to a tool before any call:
// decided is false when no rule outranks the built-in decision. A rule
// refusing the tool whatever its arguments hides it; a rule allowing or
// asking about some calls keeps it, as Gemini CLI's excluded-tools list.
func (e *Engine) visibleFilesLocked(c Call) (visible, decided bool) {
	_, prio := e.builtinLocked(c)
	for i := range e.rules {
		r := &e.rules[i]
		if r.priority < prio {
			break
		}
		if !r.matches(c, e.mode, e.interactive, nil, true) {
			continue
		}
		if r.args != nil {
			if r.decision != Deny {
				return true, true
			}
			continue
		}
		return r.decision != Deny, true
	}
	return false, false
}
