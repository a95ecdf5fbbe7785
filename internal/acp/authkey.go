package acp

import (
	"fmt"
	"os"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/config"
)

// apiKeyVars are where a session reads a Gemini API key from, in order
// (model/gemini falls back to GOOGLE_API_KEY).
var apiKeyVars = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}

// keySearch is what authenticate can know of where a later session would
// find its Gemini API key: the environment sessions start from, the
// user's home, and the directories sessions may run in (the process's
// working directory, the cwds of the sessions open now). A session's own
// cwd comes with session/new, after authenticate, so a .env found only
// from there is not seen; nor are the trust and advanced.ignoreLocalEnv
// of a workspace not yet named. The search is therefore generous: a .env
// counts whether its folder ends up trusted or not, so a key that might
// work never fails authenticate; one that then does not is still
// reported by session/new.
type keySearch struct {
	lookup config.LookupFunc
	home   string
	dirs   []string
}

// find returns where a key would come from ("the environment" or a .env
// file), or "" and the .env files it read that set none.
func (k keySearch) find() (string, []string) {
	for _, v := range apiKeyVars {
		if s, ok := k.lookup(v); ok && strings.TrimSpace(s) != "" {
			return "the environment", nil
		}
	}
	var read []string
	for _, dir := range k.dirs {
		for _, trusted := range []bool{true, false} {
			var found bool
			path, err := config.DotEnvOptions{
				Workspace: dir, Home: k.home, Trusted: trusted,
				// Every value counts, as if nothing were set yet.
				Lookup: func(string) (string, bool) { return "", false },
				Setenv: func(key, v string) {
					if slices.Contains(apiKeyVars, key) && strings.TrimSpace(v) != "" {
						found = true
					}
				},
			}.Load()
			if path == "" {
				continue
			}
			if found && err == nil {
				return path, nil
			}
			if !slices.Contains(read, path) {
				read = append(read, path)
			}
		}
	}
	return "", read
}

// missingKeyError is authenticate's answer when no key can be found:
// Gemini CLI's words for it, then what was searched.
func (k keySearch) missingKeyError(read []string) error {
	where := "no .env file was found"
	if len(read) > 0 {
		where = "none in " + strings.Join(read, ", ")
	}
	msg := fmt.Sprintf("Gemini API key is missing or not configured: GEMINI_API_KEY is not set in Castor's environment, and %s (searched from %s up, then %s/.gemini/.env and %s/.env). Set GEMINI_API_KEY, put it in a .env file, or pass the key in _meta[\"api-key\"].",
		where, strings.Join(k.dirs, ", "), k.home, k.home)
	return &sdk.RequestError{Code: -32000, Message: msg}
}

// keySearch is the search for a Gemini API key that sessions opened now
// would make; see keySearch.
func (s *Server) keySearch() keySearch {
	lookup := s.Options.Env
	if lookup == nil {
		lookup = os.LookupEnv
	}
	home := s.Options.HomeDir
	if home == "" {
		home = config.ResolveHome(lookup).UserDir
	}
	var dirs []string
	add := func(d string) {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	add(s.Options.WorkDir)
	if wd, err := os.Getwd(); err == nil {
		add(wd)
	}
	var roots []string
	s.mu.Lock()
	for _, ss := range s.sessions {
		roots = append(roots, ss.root)
	}
	s.mu.Unlock()
	slices.Sort(roots) // a stable order for the message
	for _, r := range roots {
		add(r)
	}
	return keySearch{lookup: lookup, home: home, dirs: dirs}
}
