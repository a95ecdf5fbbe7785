package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// DefaultExcludedEnvVars are variables a project .env file may not set
// (they would switch on debugging, or point the IDE client at a command of
// the project's choosing). The user can extend the list with
// advanced.excludedEnvVars.
var DefaultExcludedEnvVars = []string{
	"DEBUG",
	"DEBUG_MODE",
	"GEMINI_CLI_IDE_SERVER_STDIO_COMMAND",
	"GEMINI_CLI_IDE_SERVER_STDIO_ARGS",
}

// untrustedEnvVars are the only variables a .env file can set when the
// workspace is not trusted: enough to authenticate, nothing that changes
// behaviour.
var untrustedEnvVars = []string{
	"GEMINI_API_KEY",
	"GOOGLE_API_KEY",
	"GOOGLE_CLOUD_PROJECT",
	"GOOGLE_CLOUD_LOCATION",
}

// DotEnvOptions are the inputs of a .env load.
type DotEnvOptions struct {
	// Workspace is where the upward search starts.
	Workspace string
	// Home is the user's home directory (Home.UserDir); "" means ResolveHome.
	Home string
	// Trusted is the workspace trust. An untrusted workspace still gets a
	// .env file, but never one under a .gemini directory, and only the
	// authentication variables from it, stripped to [A-Za-z0-9-_./].
	Trusted bool
	// IgnoreLocal is advanced.ignoreLocalEnv: skip every plain .env file
	// except the one in the home directory.
	IgnoreLocal bool
	// Excluded lists variables a project .env file (one not under a .gemini
	// directory) may not set; nil means DefaultExcludedEnvVars.
	Excluded []string
	// Lookup reports variables already set, which are never overridden;
	// nil means os.LookupEnv.
	Lookup LookupFunc
	// Setenv sets a variable; nil means os.Setenv.
	Setenv func(key, value string)
}

// LoadDotEnv loads the .env file Gemini CLI would use for workspace into
// the process environment (through setenv, or os.Setenv when nil), never
// overriding a variable that is already set. It returns the file used, or
// "" when there was none. See DotEnvOptions.Load for the search order.
func LoadDotEnv(workspace, home string, trusted bool, setenv func(k, v string)) (string, error) {
	return DotEnvOptions{Workspace: workspace, Home: home, Trusted: trusted, Setenv: setenv}.Load()
}

// Load finds and applies one .env file. The search goes from the workspace
// up to the file-system root; in each directory .gemini/.env is preferred
// to .env. Past the root it falls back to ~/.gemini/.env, then ~/.env.
// Only the first file found is read (files are not layered), which is
// Gemini CLI's rule. A file that exists but cannot be read is returned with
// the error; nothing is set from it.
func (o DotEnvOptions) Load() (string, error) {
	home := o.Home
	if home == "" {
		home = ResolveHome(o.Lookup).UserDir
	} else if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	path := findEnvFile(o.Workspace, home, o.Trusted, o.IgnoreLocal)
	if path == "" {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return path, err
	}
	lookup := orOS(o.Lookup)
	setenv := o.Setenv
	if setenv == nil {
		setenv = func(k, v string) { os.Setenv(k, v) }
	}
	excluded := o.Excluded
	if excluded == nil {
		excluded = DefaultExcludedEnvVars
	}
	// Gemini CLI's test for "a project file": the path does not mention
	// .gemini anywhere.
	project := !strings.Contains(path, GeminiDirName)
	vars := ParseDotEnv(data)
	for _, kv := range vars {
		k, v := kv[0], kv[1]
		if !o.Trusted {
			if !slices.Contains(untrustedEnvVars, k) {
				continue
			}
			v = sanitizeEnvValue(v)
		}
		if project && slices.Contains(excluded, k) {
			continue
		}
		if _, set := lookup(k); set {
			continue
		}
		setenv(k, v)
	}
	return path, nil
}

// findEnvFile returns the .env file to load, or "".
func findEnvFile(start, home string, trusted, ignoreLocal bool) string {
	dir, err := filepath.Abs(start)
	if err != nil {
		dir = filepath.Clean(start)
	}
	for {
		if trusted {
			if p := filepath.Join(dir, GeminiDirName, ".env"); isFile(p) {
				return p
			}
		}
		if p := filepath.Join(dir, ".env"); isFile(p) && (!ignoreLocal || dir == home) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if home == "" {
		return ""
	}
	if trusted {
		if p := filepath.Join(home, GeminiDirName, ".env"); isFile(p) {
			return p
		}
	}
	if p := filepath.Join(home, ".env"); isFile(p) {
		return p
	}
	return ""
}

// isFile reports whether p exists and is not a directory.
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// unsafeEnvChars matches what an untrusted .env value may not contain.
var unsafeEnvChars = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9\-_./]`) }}

// sanitizeEnvValue strips characters that could matter to a shell.
func sanitizeEnvValue(v string) string {
	return unsafeEnvChars.Get().ReplaceAllString(v, "")
}

// dotenvLine is the grammar of the Node "dotenv" package that Gemini CLI
// uses: KEY=value or KEY: value, optional "export ", values single-, double-
// or back-quoted (possibly spanning lines) or bare up to a comment.
var dotenvLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*` + "`(?:\\\\`|[^`])*`" + `|[^#\r\n]+)?\s*(?:#.*)?$`)
}}

// ParseDotEnv parses .env content into key/value pairs, keys in order of
// first appearance, the last value of a repeated key winning. Values are trimmed and
// unquoted; double-quoted values turn \n and \r into newlines and carriage
// returns. Nothing is expanded: "$X" stays "$X", as in Gemini CLI.
func ParseDotEnv(data []byte) [][2]string {
	src := strings.ReplaceAll(string(data), "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	var out [][2]string
	index := map[string]int{}
	for _, m := range dotenvLine.Get().FindAllStringSubmatch(src, -1) {
		key, value := m[1], strings.TrimSpace(m[2])
		quote := byte(0)
		if value != "" {
			quote = value[0]
		}
		if len(value) >= 2 && (quote == '\'' || quote == '"' || quote == '`') && value[len(value)-1] == quote {
			value = value[1 : len(value)-1]
		}
		if quote == '"' {
			value = strings.ReplaceAll(value, `\n`, "\n")
			value = strings.ReplaceAll(value, `\r`, "\r")
		}
		if i, ok := index[key]; ok {
			out[i][1] = value
			continue
		}
		index[key] = len(out)
		out = append(out, [2]string{key, value})
	}
	return out
}
