package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Enablement is ~/.gemini/extensions/extension-enablement.json, in
// Gemini CLI's format: for each extension a list of folder rules,
//
//	{"my-ext": {"overrides": ["!/home/me/*", "/home/me/project/*"]}}
//
// where "!" disables, a trailing "*" covers subfolders, and the last rule
// matching the workspace wins. Extensions are enabled by default.
type Enablement struct {
	// Path is the file.
	Path string
	// Only is -e/--extensions: when set it replaces the rules, and "none"
	// alone disables every extension.
	Only []string
}

type enablementEntry struct {
	Overrides []string `json:"overrides"`
}

// Read returns the rules; a missing file is empty, a malformed one is an
// error naming the file (and the rules are then empty, as in Gemini CLI).
func (e *Enablement) Read() (map[string]enablementEntry, error) {
	data, err := os.ReadFile(e.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return map[string]enablementEntry{}, nil
		}
		return map[string]enablementEntry{}, err
	}
	var m map[string]enablementEntry
	if err := json.Unmarshal(data, &m); err != nil {
		return map[string]enablementEntry{}, fmt.Errorf("%s: invalid extension enablement file: %v", e.Path, err)
	}
	if m == nil {
		m = map[string]enablementEntry{}
	}
	return m, nil
}

// Enabled reports whether the extension name is enabled in folder.
func (e *Enablement) Enabled(name, folder string) bool {
	rules, _ := e.Read()
	return e.enabled(rules, name, folder)
}

func (e *Enablement) enabled(rules map[string]enablementEntry, name, folder string) bool {
	if len(e.Only) == 1 && strings.EqualFold(e.Only[0], "none") {
		return false
	}
	if len(e.Only) > 0 {
		for _, n := range e.Only {
			if strings.EqualFold(n, name) {
				return true
			}
		}
		return false
	}
	enabled := true
	p := slashed(folder)
	for _, r := range rules[name].Overrides {
		o := parseOverride(r)
		if o.matches(p) {
			enabled = !o.disable
		}
	}
	return enabled
}

// SetEnabled records that name is enabled (or disabled) in folder and
// its subfolders, dropping earlier rules it replaces, as Gemini CLI's
// enable and disable do.
func (e *Enablement) SetEnabled(name, folder string, enabled bool) error {
	rules, err := e.Read()
	if err != nil {
		return err
	}
	n := override{base: slashed(folder), disable: !enabled, subdirs: true}
	var kept []string
	for _, r := range rules[name].Overrides {
		o := parseOverride(r)
		if o.base == n.base {
			continue // the same folder: the new rule replaces it
		}
		if n.matches(o.base) {
			continue // a rule for a subfolder the new rule now covers
		}
		kept = append(kept, r)
	}
	rules[name] = enablementEntry{Overrides: append(kept, n.String())}
	return e.write(rules)
}

// Remove forgets the rules of name (on uninstall).
func (e *Enablement) Remove(name string) error {
	rules, err := e.Read()
	if err != nil {
		return err
	}
	if _, ok := rules[name]; !ok {
		return nil
	}
	delete(rules, name)
	return e.write(rules)
}

func (e *Enablement) write(rules map[string]enablementEntry) error {
	if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rules, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(e.Path, data, 0o644)
}

type override struct {
	base    string
	disable bool
	subdirs bool
}

func parseOverride(r string) override {
	o := override{}
	if strings.HasPrefix(r, "!") {
		o.disable, r = true, r[1:]
	}
	if strings.HasSuffix(r, "*") {
		o.subdirs, r = true, r[:len(r)-1]
	}
	o.base = r
	return o
}

func (o override) String() string {
	s := o.base
	if o.disable {
		s = "!" + s
	}
	if o.subdirs {
		s += "*"
	}
	return s
}

// matches applies Gemini CLI's glob to p: the rule's text literally,
// with "*" matching anything and "/*" matching nothing or "/" and
// anything.
func (o override) matches(p string) bool {
	g := o.base
	if o.subdirs {
		g += "*"
	}
	return globMatches(g, p)
}

func globMatches(g, p string) bool {
	// Tokens: a literal byte, "*" (anything) or "/*" (nothing, or "/"
	// then anything). ok[j] says whether the tokens so far can consume
	// exactly p[:j]; each token is applied to the whole set at once, so
	// the cost stays len(g)*len(p).
	ok := make([]bool, len(p)+1)
	ok[0] = true
	for i := 0; i < len(g); i++ {
		next := make([]bool, len(p)+1)
		switch {
		case g[i] == '/' && i+1 < len(g) && g[i+1] == '*':
			i++
			any := false
			for j := 0; j <= len(p); j++ {
				if any {
					next[j] = true
				}
				if ok[j] {
					next[j] = true
					if j < len(p) && p[j] == '/' {
						any = true
					}
				}
			}
		case g[i] == '*':
			any := false
			for j := 0; j <= len(p); j++ {
				any = any || ok[j]
				next[j] = any
			}
		default:
			for j := 0; j < len(p); j++ {
				next[j+1] = ok[j] && p[j] == g[i]
			}
		}
		ok = next
	}
	return ok[len(p)]
}

// slashed is a folder with forward slashes and a leading and trailing
// slash, the form rules are written in.
func slashed(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}
