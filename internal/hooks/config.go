// Package hooks runs Gemini CLI hooks: it reads their definitions from
// settings layers and extensions' hooks/hooks.json, runs command hooks
// (JSON on stdin, exit code and JSON or text on stdout) and in-process
// ones, and merges their outputs per event as Gemini CLI does. A System
// is the engine's agent.Hooks.
package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/castor-dev/castor/agent"
)

// Source says where a hook was configured; it orders hooks (lowest
// first) as Gemini CLI does: project, user, system, extensions.
type Source int

// Hook sources.
const (
	SourceRuntime Source = iota
	SourceProject
	SourceUser
	SourceSystem
	SourceExtension
)

func (s Source) String() string {
	switch s {
	case SourceRuntime:
		return "runtime"
	case SourceProject:
		return "project"
	case SourceUser:
		return "user"
	case SourceSystem:
		return "system"
	}
	return "extension"
}

// DefaultTimeout is a hook's timeout when its definition names none.
const DefaultTimeout = 60 * time.Second

// Func is an in-process hook.
type Func func(ctx context.Context, in *agent.HookInput) (*agent.HookOutput, error)

// Hook is one configured hook.
type Hook struct {
	Event      agent.HookEvent
	Matcher    string
	Sequential bool
	// Command is the shell command of a command hook; Func the function
	// of an in-process one.
	Command string
	Func    Func
	Name    string
	// Description is shown in listings.
	Description string
	Timeout     time.Duration
	Env         map[string]string
	Source      Source
	// Origin names the file and key that defined the hook, for errors:
	// "/home/me/.gemini/settings.json: hooks.BeforeTool[0].hooks[1]".
	Origin string
	// Extension is the extension that brought the hook, if any.
	Extension string
}

// ID is what hooksConfig.disabled names a hook by: its name, else its
// command.
func (h *Hook) ID() string {
	if h.Name != "" {
		return h.Name
	}
	return h.Command
}

// key identifies identical command hooks of one event across layers.
func (h *Hook) key() string {
	return string(h.Event) + ":" + h.Name + ":" + h.Command
}

// configFields are members of hooks that are not events.
var configFields = []string{"enabled", "disabled", "notifications"}

// Parse reads a settings "hooks" object (or a hooks.json's) defined at
// origin ("<file>: hooks"). Definitions it cannot use are reported in the
// returned errors, each naming the file and key, and left out; the rest
// is returned.
func Parse(raw any, source Source, origin string) ([]Hook, []error) {
	if raw == nil {
		return nil, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, []error{fmt.Errorf("%s: must be an object of events, not %s", origin, kind(raw))}
	}
	var hooks []Hook
	var errs []error
	events := make([]string, 0, len(obj))
	for k := range obj {
		events = append(events, k)
	}
	// Map order is random; hooks of different events never interact, but
	// errors read better in a stable order.
	slices.Sort(events)
	for _, name := range events {
		defs := obj[name]
		if slices.Contains(configFields, name) {
			continue
		}
		ev, ok := eventByName(name)
		if !ok {
			errs = append(errs, fmt.Errorf("%s.%s: unknown hook event (known: %s)", origin, name, eventList()))
			continue
		}
		list, ok := defs.([]any)
		if !ok {
			errs = append(errs, fmt.Errorf("%s.%s: must be a list of hook definitions, not %s", origin, name, kind(defs)))
			continue
		}
		for i, d := range list {
			at := fmt.Sprintf("%s.%s[%d]", origin, name, i)
			def, ok := d.(map[string]any)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: must be an object with \"hooks\", not %s", at, kind(d)))
				continue
			}
			matcher, err := optString(def, "matcher", at)
			if err != nil {
				errs = append(errs, err)
			}
			if err := checkMatcher(ev, matcher); err != nil {
				errs = append(errs, fmt.Errorf("%s.matcher: %w", at, err))
			}
			seq, _ := def["sequential"].(bool)
			if v, ok := def["sequential"]; ok && v != nil {
				if _, isBool := v.(bool); !isBool {
					errs = append(errs, fmt.Errorf("%s.sequential: must be true or false", at))
				}
			}
			inner, ok := def["hooks"].([]any)
			if !ok {
				errs = append(errs, fmt.Errorf("%s.hooks: missing or not a list of hooks", at))
				continue
			}
			for j, hc := range inner {
				hat := fmt.Sprintf("%s.hooks[%d]", at, j)
				h, err := parseHook(hc, hat)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				h.Event, h.Matcher, h.Sequential, h.Source, h.Origin = ev, matcher, seq, source, hat
				hooks = append(hooks, h)
			}
		}
	}
	return hooks, errs
}

func parseHook(v any, at string) (Hook, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Hook{}, fmt.Errorf("%s: must be an object with \"type\" and \"command\", not %s", at, kind(v))
	}
	typ, _ := m["type"].(string)
	if typ == "" {
		typ = "command"
		if _, has := m["type"]; has {
			return Hook{}, fmt.Errorf("%s.type: must be \"command\"", at)
		}
	}
	if typ != "command" {
		return Hook{}, fmt.Errorf("%s.type: %q hooks are not supported (only \"command\")", at, typ)
	}
	cmd, _ := m["command"].(string)
	if strings.TrimSpace(cmd) == "" {
		return Hook{}, fmt.Errorf("%s.command: missing; a command hook needs a command", at)
	}
	h := Hook{Command: cmd, Timeout: DefaultTimeout}
	var err error
	if h.Name, err = optString(m, "name", at); err != nil {
		return Hook{}, err
	}
	if h.Description, err = optString(m, "description", at); err != nil {
		return Hook{}, err
	}
	if t, ok := m["timeout"]; ok && t != nil {
		ms, isNum := t.(float64)
		if !isNum || ms <= 0 || ms > float64(24*time.Hour/time.Millisecond) {
			return Hook{}, fmt.Errorf("%s.timeout: must be a positive number of milliseconds", at)
		}
		h.Timeout = time.Duration(ms * float64(time.Millisecond))
	}
	if e, ok := m["env"].(map[string]any); ok {
		h.Env = map[string]string{}
		for k, v := range e {
			if s, ok := v.(string); ok {
				h.Env[k] = s
			}
		}
	}
	return h, nil
}

func optString(m map[string]any, key, at string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s.%s: must be a string, not %s", at, key, kind(v))
	}
	return s, nil
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func eventByName(name string) (agent.HookEvent, bool) {
	for _, e := range agent.HookEvents {
		if string(e) == name {
			return e, true
		}
	}
	return "", false
}

func eventList() string {
	names := make([]string, len(agent.HookEvents))
	for i, e := range agent.HookEvents {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// LoadExtension reads <root>/hooks/hooks.json, whose "hooks" object has
// the settings' format, substituting ${extensionPath}, ${workspacePath}
// and ${/} in commands as Gemini CLI does. A missing file is no error.
func LoadExtension(root, workspace string) ([]Hook, []error) {
	path := filepath.Join(root, "hooks", "hooks.json")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, []error{fmt.Errorf("%s: invalid JSON: %v", path, err)}
	}
	raw, ok := doc["hooks"]
	if !ok {
		return nil, nil
	}
	hooks, errs := Parse(raw, SourceExtension, path+": hooks")
	name := filepath.Base(root)
	r := strings.NewReplacer("${extensionPath}", root, "${workspacePath}", workspace, "${/}", string(filepath.Separator), "${pathSeparator}", string(filepath.Separator))
	for i := range hooks {
		hooks[i].Command = r.Replace(hooks[i].Command)
		hooks[i].Extension = name
	}
	return hooks, errs
}

// checkMatcher reports a tool event's matcher that is not a regular
// expression Go can compile (a typo, or JavaScript-only syntax such as a
// lookahead). The hook is kept and, as in Gemini CLI, the matcher then
// matches the tool name literally; without the warning it would silently
// match nothing.
func checkMatcher(ev agent.HookEvent, matcher string) error {
	m := strings.TrimSpace(matcher)
	if m == "" || m == "*" || (ev != agent.HookBeforeTool && ev != agent.HookAfterTool) {
		return nil
	}
	if _, err := regexp.Compile(m); err != nil {
		return fmt.Errorf("%q is not a valid regular expression (%v); it matches only the tool named exactly %q", m, err, m)
	}
	return nil
}
