package config

import (
	"os"
	"path/filepath"
	"runtime"
)

// GeminiDirName is the name of the per-user and per-project configuration
// directory.
const GeminiDirName = ".gemini"

// Environment variables that relocate Gemini CLI's files.
const (
	// EnvHome replaces the user's home directory for every Gemini CLI
	// purpose (the .gemini directory lives inside it, .env discovery stops
	// at it, GEMINI.md discovery treats it as home).
	EnvHome = "GEMINI_CLI_HOME"
	// EnvSystemSettings overrides the path of the system settings file.
	EnvSystemSettings = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
	// EnvSystemDefaults overrides the path of the system defaults file.
	EnvSystemDefaults = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"
	// EnvTrustedFolders overrides the path of trustedFolders.json.
	EnvTrustedFolders = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"
	// EnvTrustWorkspace forces workspace trust on ("true") or off ("false").
	EnvTrustWorkspace = "GEMINI_CLI_TRUST_WORKSPACE"
)

// LookupFunc looks up an environment variable; it has the signature of
// os.LookupEnv so that a variable set to "" can be told from an unset one.
type LookupFunc func(key string) (string, bool)

// EnvMap returns a LookupFunc over a fixed map, for tests and embedders that
// keep the environment away from the process.
func EnvMap(m map[string]string) LookupFunc {
	return func(key string) (string, bool) {
		v, ok := m[key]
		return v, ok
	}
}

// orOS returns lookup, or os.LookupEnv when lookup is nil.
func orOS(lookup LookupFunc) LookupFunc {
	if lookup == nil {
		return os.LookupEnv
	}
	return lookup
}

// getenv returns the value of key, treating unset and empty alike, which is
// how Gemini CLI tests path overrides (`if (process.env[X])`).
func getenv(lookup LookupFunc, key string) string {
	v, _ := orOS(lookup)(key)
	return v
}

// Home locates Gemini CLI's per-user files.
type Home struct {
	// UserDir is what Gemini CLI treats as the user's home directory:
	// $GEMINI_CLI_HOME when set, else the OS home directory.
	UserDir string
	// Dir is the .gemini directory inside UserDir.
	Dir string
}

// ResolveHome finds the Gemini home the way Gemini CLI does: GEMINI_CLI_HOME,
// when set, stands in for the user's home directory (so the files live in
// $GEMINI_CLI_HOME/.gemini), otherwise the OS home directory is used. When no
// home directory can be found at all, the .gemini directory falls back to the
// system temporary directory, as Gemini CLI's Storage does. A nil lookup
// reads the process environment.
func ResolveHome(lookup LookupFunc) Home {
	if dir := getenv(lookup, EnvHome); dir != "" {
		return HomeAt(dir)
	}
	if dir, err := os.UserHomeDir(); err == nil && dir != "" {
		return HomeAt(dir)
	}
	return Home{Dir: filepath.Join(os.TempDir(), GeminiDirName)}
}

// HomeAt returns the Home whose user directory is userDir.
func HomeAt(userDir string) Home {
	if abs, err := filepath.Abs(userDir); err == nil {
		userDir = abs
	}
	return Home{UserDir: userDir, Dir: filepath.Join(userDir, GeminiDirName)}
}

// SettingsPath returns the user settings file, ~/.gemini/settings.json.
func (h Home) SettingsPath() string { return filepath.Join(h.Dir, "settings.json") }

// MemoryPath returns the global context file with the given name
// (~/.gemini/GEMINI.md by default).
func (h Home) MemoryPath(fileName string) string {
	if fileName == "" {
		fileName = DefaultContextFileName
	}
	return filepath.Join(h.Dir, fileName)
}

// TmpDir returns ~/.gemini/tmp, under which Gemini CLI keeps one directory
// per project (chats, checkpoints, tool outputs).
func (h Home) TmpDir() string { return filepath.Join(h.Dir, "tmp") }

// EnvPath returns ~/.gemini/.env.
func (h Home) EnvPath() string { return filepath.Join(h.Dir, ".env") }

// TrustedFoldersPath returns the trusted-folders file: $GEMINI_CLI_TRUSTED_FOLDERS_PATH
// when set, else ~/.gemini/trustedFolders.json. A nil lookup reads the
// process environment.
func (h Home) TrustedFoldersPath(lookup LookupFunc) string {
	if p := getenv(lookup, EnvTrustedFolders); p != "" {
		return p
	}
	return filepath.Join(h.Dir, "trustedFolders.json")
}

// WorkspaceSettingsPath returns <workspace>/.gemini/settings.json.
func WorkspaceSettingsPath(workspace string) string {
	return filepath.Join(workspace, GeminiDirName, "settings.json")
}

// SystemSettingsPath returns the system override settings file:
// $GEMINI_CLI_SYSTEM_SETTINGS_PATH when set, else the platform's location
// (/etc/gemini-cli/settings.json on Linux). A nil lookup reads the process
// environment.
func SystemSettingsPath(lookup LookupFunc) string {
	if p := getenv(lookup, EnvSystemSettings); p != "" {
		return p
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/settings.json"
	case "windows":
		return `C:\ProgramData\gemini-cli\settings.json`
	default:
		return "/etc/gemini-cli/settings.json"
	}
}

// SystemDefaultsPath returns the system defaults settings file:
// $GEMINI_CLI_SYSTEM_DEFAULTS_PATH when set, else system-defaults.json next
// to the system settings file (so GEMINI_CLI_SYSTEM_SETTINGS_PATH moves both,
// as in Gemini CLI).
func SystemDefaultsPath(lookup LookupFunc) string {
	if p := getenv(lookup, EnvSystemDefaults); p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(SystemSettingsPath(lookup)), "system-defaults.json")
}
