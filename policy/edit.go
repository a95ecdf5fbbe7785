package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/castor-dev/castor/internal/fsutil"
)

// The terminal's /policies add and remove: rules written to, and taken
// out of, the user's policy files in Gemini CLI's TOML format, and the
// running session's rules replaced by what the file now holds.

// NewRule is a rule /policies add writes.
type NewRule struct {
	// Decision is allow, deny or ask_user, as policy files spell it.
	Decision string
	// ToolName is the tool ("run_shell_command", "mcp_server_*", "*").
	ToolName string
	// CommandPrefix, for the shell tool, narrows the rule to commands
	// starting so.
	CommandPrefix string
	// Priority is the rule's priority in its tier (0–999).
	Priority int
}

// FileRule is one [[rule]] table of a policy file.
type FileRule struct {
	// File is the policy file and Index the table's place in it
	// (0-based), which RemoveFileRule takes.
	File  string
	Index int
	// Summary is the table in one line, its keys in name order.
	Summary string
}

// FileRules lists the [[rule]] tables of the policy files at path (a
// .toml file, or every .toml file of a directory in name order).
func FileRules(path string) ([]FileRule, error) {
	files := []string{path}
	if fi, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	} else if fi.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*.toml"))
		sort.Strings(files)
	}
	var out []FileRule
	for _, f := range files {
		var doc map[string]any
		if _, err := toml.DecodeFile(f, &doc); err != nil {
			return out, fmt.Errorf("%s: %v", f, err)
		}
		tables, _ := tableArray(doc["rule"])
		for i, t := range tables {
			out = append(out, FileRule{File: f, Index: i, Summary: summarize(t)})
		}
	}
	return out, nil
}

// summarize writes a rule table as key=value pairs, the decision and
// tool first.
func summarize(t map[string]any) string {
	parts := []string{fmt.Sprint(t["decision"]), fmt.Sprint(t["toolName"])}
	keys := make([]string, 0, len(t))
	for k := range t {
		if k != "decision" && k != "toolName" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, t[k]))
	}
	return strings.Join(parts, " ")
}

// AddFileRule appends r to the policy file at path, created when
// missing. The rule is read back through the policy-file parser first:
// one it would refuse (an unknown decision, a bad priority) is not
// written, and the error names the file and the key.
func AddFileRule(path string, r NewRule) error {
	t := map[string]any{
		"decision": r.Decision,
		"toolName": r.ToolName,
		"priority": int64(r.Priority),
	}
	if r.CommandPrefix != "" {
		t["commandPrefix"] = r.CommandPrefix
	}
	data, err := encodeTOML(map[string]any{"rule": []map[string]any{t}})
	if err != nil {
		return err
	}
	if rules, errs := ParseRules(path, data, TierUser); len(rules) == 0 || hasError(errs) {
		return errors.Join(errs...)
	}
	err = editFile(path, func(tables []map[string]any) ([]map[string]any, error) {
		return append(tables, t), nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// RemoveFileRule takes the [[rule]] table of index i (0-based) out of the
// policy file at path.
func RemoveFileRule(path string, i int) error {
	err := editFile(path, func(tables []map[string]any) ([]map[string]any, error) {
		if i < 0 || i >= len(tables) {
			return nil, fmt.Errorf("no rule %d", i+1)
		}
		return append(tables[:i:i], tables[i+1:]...), nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// hasError reports whether errs holds more than warnings.
func hasError(errs []error) bool {
	for _, e := range errs {
		if !IsWarning(e) {
			return true
		}
	}
	return false
}

// editFile changes the [[rule]] tables of the policy file at path under
// its lock (a sidecar file, so that two sessions editing at once each
// keep the other's change), keeping its other keys, and replaces the file
// atomically, so a reader sees the old or the new rules. A file that is
// not valid TOML, or whose rule key is not an array of tables, is left
// as it is and the error says why: unlike Gemini CLI, which moves such a
// file to .bak and starts afresh, Castor never drops rules a user may
// have written by hand. Where the file system offers no locks the edit
// goes on unlocked. The errors do not name the file: callers do.
func editFile(path string, change func([]map[string]any) ([]map[string]any, error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock, err := fsutil.Lock(lockPath(path))
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	defer lock.Unlock()
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if _, err := toml.Decode(string(data), &doc); err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				return fmt.Errorf("line %d: not valid TOML (%s); the file is left as it is", pe.Position.Line, pe.Message)
			}
			return fmt.Errorf("not valid TOML (%v); the file is left as it is", err)
		}
	}
	var tables []map[string]any
	if v, ok := doc["rule"]; ok {
		if tables, ok = tableArray(v); !ok {
			return errors.New("key rule: must be an array of tables ([[rule]]); the file is left as it is")
		}
	}
	if tables, err = change(tables); err != nil {
		return err
	}
	doc["rule"] = tables
	out, err := encodeTOML(doc)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, out, 0o644)
}

// ReplaceRules swaps the session's rules read from the file at path for
// rules (LoadRules of that file again), so that a file /policies changed
// applies at once.
func (e *Engine) ReplaceRules(path string, rules []Rule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	kept := e.rules[:0:0]
	for _, r := range e.rules {
		if r.source != path {
			kept = append(kept, r)
		}
	}
	if e.noAlways {
		rules = withoutAlwaysRules(rules)
	}
	e.rules = sortRules(append(kept, rules...))
}
