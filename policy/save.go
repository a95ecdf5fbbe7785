package policy

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// AutoSavedFile is the name of the policy file Gemini CLI writes "allow
// always and save" answers to, in the user's policies folder
// (~/.gemini/policies/auto-saved.toml).
const AutoSavedFile = "auto-saved.toml"

// alwaysPriority is the priority Gemini CLI writes in an auto-saved rule:
// the "always allow" fraction of a tier (950/1000), so that at the user
// tier it outranks the settings' allow and exclude lists, as there.
const alwaysPriority = 950

// savedRule is what an "allow always and save" answer writes: one
// [[rule]] of Gemini CLI's auto-saved.toml.
type savedRule struct {
	toolName      string
	mcpName       string
	commandPrefix []string // shell: the root commands, or the line itself
	argsPattern   string   // edits: the file
	redirect      bool     // allowRedirection = true (absent otherwise, as Gemini CLI writes it)
	modes         []Mode
}

// permissiveness orders the modes as Gemini CLI's MODES_BY_PERMISSIVENESS:
// an answer given in one mode holds in it and in the more permissive ones.
var permissiveness = []Mode{ModePlan, ModeDefault, ModeAutoEdit, ModeYolo}

// modeName is a mode as policy files spell it.
func modeName(m Mode) string {
	if m == ModeAutoEdit {
		return "autoEdit"
	}
	return string(m)
}

// savedRuleFor is the rule an "allow always and save" answer about c
// writes in mode, as Gemini CLI builds it: a shell call allows the
// commands the line runs (commandPrefix, with allowRedirection when it
// redirected, the facts always.go keeps for a session), an MCP call the
// tool on its server (mcpName and the server's own tool name), an edit
// the file it named, anything else the tool. ok is false for a call of a
// tool Gemini CLI only allows narrowed (a shell call without a command,
// an edit without a file), which is remembered for the session only.
func savedRuleFor(c Call, mode Mode) (savedRule, bool) {
	r := savedRule{toolName: c.Name}
	if i := slices.Index(permissiveness, mode); i >= 0 {
		r.modes = permissiveness[i:]
	}
	if cmd, ok := isShell(c); ok {
		// The commands as a session answer keeps them ("git add", not
		// "git"); a line running a command that cannot be known makes
		// no rule (and the answer counts as once).
		l := scanShell(strings.TrimSpace(cmd))
		keys, ok := lineKeys(&l)
		if !ok {
			return r, false
		}
		for _, k := range keys {
			if !slices.Contains(r.commandPrefix, k) {
				r.commandPrefix = append(r.commandPrefix, k)
			}
		}
		r.redirect = lineRedirects(cmd)
		return r, true
	}
	if isShellName(c.Name) {
		return r, false
	}
	if c.ServerName != "" {
		r.mcpName = c.ServerName
		switch {
		case c.serverTool != "":
			r.toolName = c.serverTool
		case strings.HasPrefix(c.Name, "mcp_"+c.ServerName+"_"):
			r.toolName = c.Name[len("mcp_"+c.ServerName+"_"):]
		}
		return r, true
	}
	if c.Kind == tool.KindEdit || narrowed.Get()[c.Name] {
		p, _ := c.Args["file_path"].(string)
		if p == "" {
			return r, false
		}
		r.argsPattern = filePathPattern(p)
	}
	return r, true
}

// narrowed are the edit tools Gemini CLI never allows whole from an
// answer: the rule names the file.
var narrowed = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"replace": true, "write_file": true}
}}

// filePathPattern matches calls whose file_path argument is exactly p,
// as a top-level argument of the stable JSON (stableArgs), where every
// top-level pair sits between NUL characters. Gemini CLI writes the NULs
// as `\\0` (a backslash and a zero to a regular expression), which never
// matches its own arguments, so its saved edit rules never apply; Castor
// writes `\0`, the NUL in both JavaScript's and Go's syntax, so that the
// rule allows the file in Castor and in Gemini CLI alike.
func filePathPattern(p string) string {
	return `\0` + regexp.QuoteMeta(`"file_path":`+jsQuote(p)) + `\0`
}

// table is the rule as a TOML table, keyed as Gemini CLI writes it.
func (r savedRule) table() map[string]any {
	t := map[string]any{
		"decision": "allow",
		"priority": int64(alwaysPriority),
		"toolName": r.toolName,
	}
	if r.mcpName != "" {
		t["mcpName"] = r.mcpName
	}
	if len(r.commandPrefix) > 0 {
		t["commandPrefix"] = r.commandPrefix
	} else if r.argsPattern != "" {
		t["argsPattern"] = r.argsPattern
	}
	if r.redirect {
		t["allowRedirection"] = true
	}
	if len(r.modes) > 0 {
		t["modes"] = r.modeNames()
	}
	return t
}

func (r savedRule) modeNames() []string {
	out := make([]string, len(r.modes))
	for i, m := range r.modes {
		out[i] = modeName(m)
	}
	return out
}

// rules reads the rule back through the policy-file parser, as the next
// session will read it from path: the session applies exactly what it
// saved.
func (r savedRule) rules(path string) ([]Rule, error) {
	data, err := encodeTOML(map[string]any{"rule": []map[string]any{r.table()}})
	if err != nil {
		return nil, err
	}
	// Warnings (a tool name close to a built-in one) do not keep a rule
	// out; only a rule the parser drops fails.
	rules, errs := ParseRules(path, data, TierUser)
	if len(rules) == 0 {
		return nil, errors.Join(errs...)
	}
	return rules, nil
}

// sameRule reports whether the table t of an existing file is the rule r
// would add, as Gemini CLI matches them: the same tool, server, command
// prefixes and arguments pattern. Such a rule is updated in place.
// Unlike Gemini CLI, a rule that does not allow (a user's deny rule for
// the same commands) is never taken for it.
func (r savedRule) sameRule(t map[string]any) bool {
	str := func(k string) string { s, _ := t[k].(string); return s }
	if str("decision") != "allow" || str("toolName") != r.toolName || str("mcpName") != r.mcpName || str("argsPattern") != r.argsPattern {
		return false
	}
	var prefixes []string
	switch v := t["commandPrefix"].(type) {
	case string:
		// Gemini CLI compares the JSON: a lone string is not a list of one.
		if len(r.commandPrefix) > 0 {
			return false
		}
		prefixes = []string{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return false
			}
			prefixes = append(prefixes, s)
		}
	}
	return slices.Equal(prefixes, r.commandPrefix)
}

// SaveError is a failure to write an "allow always and save" answer to
// its policy file. The answer still holds for the session.
type SaveError struct {
	// File is the policy file.
	File string
	// Err is what went wrong.
	Err error
}

func (e *SaveError) Error() string {
	return fmt.Sprintf("could not save the rule to policy file %s: %v", e.File, e.Err)
}

func (e *SaveError) Unwrap() error { return e.Err }

// save adds r to the policy file at path (editFile), keeping the file's
// other rules and keys: a rule for the same tool, server and command or
// file is updated (its allowRedirection and modes) rather than added
// twice.
func (r savedRule) save(path string) error {
	err := editFile(path, func(tables []map[string]any) ([]map[string]any, error) {
		for _, t := range tables {
			if !r.sameRule(t) {
				continue
			}
			if r.redirect {
				t["allowRedirection"] = true
			}
			if len(r.modes) > 0 {
				t["modes"] = r.modeNames()
			}
			return tables, nil
		}
		return append(tables, r.table()), nil
	})
	if err != nil {
		return &SaveError{File: path, Err: err}
	}
	return nil
}

// lockPath is the sidecar file save locks: hidden, beside the file, and
// not a .toml file, so no policy loader reads it.
func lockPath(path string) string {
	dir, name := filepath.Split(path)
	return filepath.Join(dir, "."+name+".lock")
}

// encodeTOML writes doc as plain TOML without indentation, which
// Gemini CLI's TOML reader and Castor's both read.
func encodeTOML(doc map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
