package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/castor-dev/castor/internal/fsutil"
)

// TrustLevel is a value in trustedFolders.json.
type TrustLevel string

// The trust levels Gemini CLI writes.
const (
	// TrustFolder trusts the folder and everything below it.
	TrustFolder TrustLevel = "TRUST_FOLDER"
	// TrustParent trusts the folder's parent and everything below it.
	TrustParent TrustLevel = "TRUST_PARENT"
	// DoNotTrust marks the folder and everything below it untrusted.
	DoNotTrust TrustLevel = "DO_NOT_TRUST"
)

// Valid reports whether l is one of the three levels.
func (l TrustLevel) Valid() bool {
	return l == TrustFolder || l == TrustParent || l == DoNotTrust
}

// Trust is the outcome of a trust check.
type Trust int

const (
	// TrustUnknown means no rule covers the folder. Gemini CLI treats it as
	// untrusted for settings, .env and memory, asks in interactive mode and
	// refuses to run headless (see HeadlessTrustError).
	TrustUnknown Trust = iota
	// Trusted means the folder may supply settings, .env and context.
	Trusted
	// Untrusted means the user said not to trust the folder.
	Untrusted
)

// String returns "trusted", "untrusted" or "unknown".
func (t Trust) String() string {
	switch t {
	case Trusted:
		return "trusted"
	case Untrusted:
		return "untrusted"
	default:
		return "unknown"
	}
}

// Where a trust decision came from.
const (
	TrustSourceDisabled = "disabled" // folder trust is off: everything is trusted
	TrustSourceEnv      = "env"      // GEMINI_CLI_TRUST_WORKSPACE
	TrustSourceIDE      = "ide"      // the connected IDE's workspace trust
	TrustSourceFile     = "file"     // a rule in trustedFolders.json
)

// TrustResult is a trust decision and why it was made.
type TrustResult struct {
	State Trust
	// Source is one of the TrustSource constants, or "" when nothing
	// decided (State is TrustUnknown).
	Source string
	// FolderTrustEnabled records security.folderTrust.enabled at the time.
	FolderTrustEnabled bool
}

// IsTrusted reports whether the folder counts as trusted for loading
// workspace settings, .env files and GEMINI.md: only an explicit yes does.
func (r TrustResult) IsTrusted() bool { return r.State == Trusted }

// ErrUntrustedWorkspace is Gemini CLI's message for a headless run in a
// folder that is not trusted while folder trust is on (exit code 55).
var ErrUntrustedWorkspace = errors.New("Castor is not running in a trusted directory. To proceed, either use `--skip-trust`, " +
	"set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory " +
	"(add it as TRUST_FOLDER to ~/.gemini/trustedFolders.json, or run castor in it interactively and choose \"Trust folder\"). " +
	"For more details, see https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments")

// HeadlessTrustError returns ErrUntrustedWorkspace when a non-interactive
// run must refuse the folder: folder trust is enabled and the folder is not
// explicitly trusted (unknown counts as untrusted, since there is nobody to
// ask). It returns nil when folder trust is disabled. This is Gemini CLI's
// behaviour since April 2026; earlier versions let headless runs through.
func (r TrustResult) HeadlessTrustError() error {
	if r.FolderTrustEnabled && r.State != Trusted {
		return ErrUntrustedWorkspace
	}
	return nil
}

// TrustOptions are the inputs of IsTrusted.
type TrustOptions struct {
	// Path is the folder to check (the workspace).
	Path string
	// FolderTrustEnabled is security.folderTrust.enabled (Gemini CLI's
	// default is true). When false every folder is trusted.
	FolderTrustEnabled bool
	// TrustedFoldersPath is the rules file; "" means Home's default
	// (honouring GEMINI_CLI_TRUSTED_FOLDERS_PATH).
	TrustedFoldersPath string
	// Home is used to find the default rules file; zero means ResolveHome.
	Home Home
	// Env is the environment (GEMINI_CLI_TRUST_WORKSPACE); nil reads the
	// process environment.
	Env LookupFunc
	// IDETrust, when not nil, is the trust the connected IDE reports for
	// its workspace; it overrides the rules file.
	IDETrust *bool
}

// IsTrusted decides whether a folder is trusted, in Gemini CLI's order:
// GEMINI_CLI_TRUST_WORKSPACE=true/false first, then "everything is trusted"
// when folder trust is disabled, then the IDE's answer, then the most
// specific rule in trustedFolders.json. A malformed rules file is an error
// (Gemini CLI exits with a configuration error) but only when the file is
// actually consulted.
func IsTrusted(opts TrustOptions) (TrustResult, error) {
	r := TrustResult{FolderTrustEnabled: opts.FolderTrustEnabled}
	switch getenv(opts.Env, EnvTrustWorkspace) {
	case "true":
		r.State, r.Source = Trusted, TrustSourceEnv
		return r, nil
	case "false":
		r.State, r.Source = Untrusted, TrustSourceEnv
		return r, nil
	}
	if !opts.FolderTrustEnabled {
		r.State, r.Source = Trusted, TrustSourceDisabled
		return r, nil
	}
	if opts.IDETrust != nil {
		r.Source = TrustSourceIDE
		r.State = Untrusted
		if *opts.IDETrust {
			r.State = Trusted
		}
		return r, nil
	}
	path := opts.TrustedFoldersPath
	if path == "" {
		home := opts.Home
		if home.Dir == "" {
			home = ResolveHome(opts.Env)
		}
		path = home.TrustedFoldersPath(opts.Env)
	}
	tf, err := LoadTrustedFolders(path)
	if err != nil {
		return r, err
	}
	r.State = tf.Lookup(opts.Path)
	if r.State != TrustUnknown {
		r.Source = TrustSourceFile
	}
	return r, nil
}

// TrustedFolders is the content of trustedFolders.json: folder path → level.
type TrustedFolders struct {
	// Path is the file the rules came from (and are saved to).
	Path string
	// Rules maps normalised absolute folder paths to levels.
	Rules map[string]TrustLevel
}

// LoadTrustedFolders reads a trusted-folders file. A missing file gives an
// empty rule set. Comments are allowed, as in Gemini CLI. Every bad entry is
// reported, in the file's key order, in one *FileError.
func LoadTrustedFolders(path string) (*TrustedFolders, error) {
	tf := &TrustedFolders{Path: path, Rules: map[string]TrustLevel{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return tf, &FileError{Path: path, Err: err}
	}
	v, err := ParseJSONC(data)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.Path = path
			return tf, fe
		}
		return tf, &FileError{Path: path, Err: err}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return tf, &FileError{Path: path, Err: errors.New("Trusted folders file is not a valid JSON object.")}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var bad []string
	for _, k := range keys {
		s, _ := obj[k].(string)
		level := TrustLevel(s)
		if !level.Valid() {
			bad = append(bad, fmt.Sprintf("Invalid trust level %q for path %q. Possible values are: %s, %s, %s.",
				jsString(obj[k]), k, TrustFolder, TrustParent, DoNotTrust))
			continue
		}
		tf.Rules[normalizePath(k)] = level
	}
	if len(bad) > 0 {
		return tf, &FileError{Path: path, Err: errors.New(strings.Join(bad, "\n"))}
	}
	return tf, nil
}

// jsString renders a decoded JSON value the way a JavaScript template
// string would, for messages that quote a bad value.
func jsString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return "null"
	case map[string]any:
		return "[object Object]"
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

// Lookup returns the trust of folder: the rule with the longest path among
// those covering it decides (TRUST_PARENT covers the rule folder's parent).
// Symlinks in both the folder and the rules are resolved first.
func (tf *TrustedFolders) Lookup(folder string) Trust {
	loc := normalizePath(realPathOr(folder))
	best, bestLen := TrustLevel(""), -1
	for rule, level := range tf.Rules {
		eff := rule
		if level == TrustParent {
			eff = filepath.Dir(rule)
		}
		eff = normalizePath(realPathOr(eff))
		if !isSubpath(eff, loc) {
			continue
		}
		// Equally long rules can only tie when one is a TRUST_PARENT; the
		// map has lost the file order Gemini CLI would use, so distrust
		// wins, which is the safe answer.
		if len(rule) > bestLen || (len(rule) == bestLen && level == DoNotTrust) {
			best, bestLen = level, len(rule)
		}
	}
	switch best {
	case DoNotTrust:
		return Untrusted
	case TrustFolder, TrustParent:
		return Trusted
	default:
		return TrustUnknown
	}
}

// Set records level for folder and saves the file atomically with owner-only
// permissions. The file is re-read first so that a rule written by another
// process in the meantime survives.
func (tf *TrustedFolders) Set(folder string, level TrustLevel) error {
	if !level.Valid() {
		return fmt.Errorf("invalid trust level %q", level)
	}
	fresh, err := LoadTrustedFolders(tf.Path)
	if err != nil {
		return fmt.Errorf("cannot update trusted folders because the file is invalid: %w", err)
	}
	fresh.Rules[normalizePath(folder)] = level
	data, err := json.MarshalIndent(fresh.Rules, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(tf.Path, data, 0o600); err != nil {
		return err
	}
	tf.Rules = fresh.Rules
	return nil
}

// normalizePath makes p absolute and clean, with forward slashes, lower-cased
// on the case-insensitive file systems of macOS and Windows; it is a
// comparison key, never shown.
func normalizePath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		p = strings.ToLower(p)
	}
	return p
}

// isSubpath reports whether child is parent or lies below it; both are
// normalised keys.
func isSubpath(parent, child string) bool {
	if parent == child {
		return true
	}
	return strings.HasPrefix(child, strings.TrimSuffix(parent, "/")+"/")
}

// realPathOr resolves symlinks in p, or returns p unchanged when it cannot.
func realPathOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
