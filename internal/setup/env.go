package setup

import (
	"os"
	"sort"
	"sync"

	"github.com/castor-dev/castor/config"
)

// Env is one session's environment: a base (the process environment
// unless the caller gives another) with the workspace's .env file layered
// on top. Keeping .env values here instead of in the process means two
// agents on two workspaces each see their own keys, and the host program
// sees none of them.
type Env struct {
	base config.LookupFunc

	mu     sync.RWMutex
	dotenv map[string]string
}

// NewEnv returns an environment over base; nil means the process
// environment.
func NewEnv(base config.LookupFunc) *Env {
	if base == nil {
		base = os.LookupEnv
	}
	return &Env{base: base, dotenv: map[string]string{}}
}

// Lookup reports a variable: the base wins, then the .env file (which
// never overrides a variable that is already set, as in Gemini CLI).
func (e *Env) Lookup(k string) (string, bool) {
	if v, ok := e.base(k); ok {
		return v, true
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	v, ok := e.dotenv[k]
	return v, ok
}

// Getenv is Lookup without the found flag.
func (e *Env) Getenv(k string) string {
	v, _ := e.Lookup(k)
	return v
}

// Environ is the environment child processes (shell commands, stdio MCP
// servers) start with: the process environment plus the .env values it
// does not set.
func (e *Env) Environ() []string {
	out := os.Environ()
	e.mu.RLock()
	defer e.mu.RUnlock()
	keys := make([]string, 0, len(e.dotenv))
	for k := range e.dotenv {
		if _, set := os.LookupEnv(k); !set {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+e.dotenv[k])
	}
	return out
}

// LoadDotEnv finds the .env file Gemini CLI would use for the workspace
// and layers its values on this environment only.
func (e *Env) LoadDotEnv(workspace, home string, trusted bool) error {
	return e.LoadDotEnvWith(config.DotEnvOptions{Workspace: workspace, Home: home, Trusted: trusted})
}

// LoadDotEnvWith is LoadDotEnv with the search and exclusions of o (from
// Settings.DotEnv: advanced.ignoreLocalEnv, advanced.excludedEnvVars);
// o's Lookup and Setenv are replaced by this environment's.
func (e *Env) LoadDotEnvWith(o config.DotEnvOptions) error {
	o.Lookup = e.Lookup
	o.Setenv = func(k, v string) {
		e.mu.Lock()
		e.dotenv[k] = v
		e.mu.Unlock()
	}
	_, err := o.Load()
	return err
}

// LoadSessionDotEnv layers the workspace wd's .env on e as a session
// does: searched and filtered per st, and only from a trusted folder's
// own files when folder trust is on. trusted says whether wd is.
func (e *Env) LoadSessionDotEnv(st *config.Settings, wd, userDir string) (trusted bool, err error) {
	trusted = st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled
	return trusted, e.LoadDotEnvWith(st.DotEnv(wd, userDir, trusted))
}
