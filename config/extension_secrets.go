package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/castor-dev/castor/internal/fsutil"
)

// ExtensionSecretsFileName is where Castor keeps the values of extension
// settings marked "sensitive", in the Gemini home (~/.gemini), readable by
// the user only. Gemini CLI keeps them in the OS keychain; Castor never
// writes them to a .env file, least of all the workspace's, which users
// commit.
const ExtensionSecretsFileName = "castor_extension_secrets.json"

// ExtensionSecrets is the file of sensitive extension settings:
//
//	{"extensions": {"<name>": {"user": {"VAR": "value"},
//	                           "workspaces": {"/abs/ws": {"VAR": "value"}}}}}
//
// A value set for a workspace wins over the user's in that workspace, as
// the workspace's .env wins over the extension's.
type ExtensionSecrets struct {
	// Path is the file (ExtensionSecretsPath).
	Path string
}

// ExtensionSecretsPath is the secrets file of the .gemini directory dir.
func ExtensionSecretsPath(geminiDir string) string {
	return filepath.Join(geminiDir, ExtensionSecretsFileName)
}

type secretsFile struct {
	Extensions map[string]*secretsScopes `json:"extensions"`
}

type secretsScopes struct {
	User       map[string]string            `json:"user,omitempty"`
	Workspaces map[string]map[string]string `json:"workspaces,omitempty"`
}

func (s ExtensionSecrets) read() (*secretsFile, error) {
	f := &secretsFile{}
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, f); err != nil {
			return nil, fmt.Errorf("%s: invalid JSON: %v (the file is left as it is; fix or remove it)", s.Path, err)
		}
	}
	return f, nil
}

// Get returns the values stored for extension name in workspace ("": the
// user's own, for every workspace).
func (s ExtensionSecrets) Get(name, workspace string) (map[string]string, error) {
	f, err := s.read()
	if err != nil || f.Extensions[name] == nil {
		return nil, err
	}
	if workspace == "" {
		return f.Extensions[name].User, nil
	}
	return f.Extensions[name].Workspaces[filepath.Clean(workspace)], nil
}

// Set stores key=value for extension name in workspace ("": the user's).
func (s ExtensionSecrets) Set(name, workspace, key, value string) error {
	return s.update(func(f *secretsFile) bool {
		if f.Extensions == nil {
			f.Extensions = map[string]*secretsScopes{}
		}
		e := f.Extensions[name]
		if e == nil {
			e = &secretsScopes{}
			f.Extensions[name] = e
		}
		if workspace == "" {
			if e.User == nil {
				e.User = map[string]string{}
			}
			e.User[key] = value
			return true
		}
		if e.Workspaces == nil {
			e.Workspaces = map[string]map[string]string{}
		}
		ws := filepath.Clean(workspace)
		if e.Workspaces[ws] == nil {
			e.Workspaces[ws] = map[string]string{}
		}
		e.Workspaces[ws][key] = value
		return true
	})
}

// Remove forgets every value stored for extension name (it was
// uninstalled).
func (s ExtensionSecrets) Remove(name string) error {
	return s.update(func(f *secretsFile) bool {
		if _, ok := f.Extensions[name]; !ok {
			return false
		}
		delete(f.Extensions, name)
		return true
	})
}

// update rewrites the file with change applied (when it reports a
// change) under a lock, whole, mode 0600, so two commands at once both
// keep their change; a file that does not parse is never overwritten.
func (s ExtensionSecrets) update(change func(*secretsFile) bool) error {
	lock, err := fsutil.Lock(s.Path + ".lock")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if !change(f) {
		return nil
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	return fsutil.ReplaceFile(s.Path, append(data, '\n'), 0o600)
}

// RemoveDotEnvValue removes the line (or quoted lines) defining key from
// the .env file at path, keeping every other line; it reports whether
// there was one.
func RemoveDotEnvValue(path, key string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	out, at := withoutKey(lines, key)
	if at < 0 {
		return false, nil
	}
	content := strings.Join(out, "\n")
	if content != "" {
		content += "\n"
	}
	return true, fsutil.WriteFileAtomic(path, []byte(content), 0o600)
}

// extensionEnv gathers the values of extension name's settings: the
// extension's .env, then the user's secrets, then (in a trusted
// workspace) the workspace's .env and the workspace's secrets, later
// ones winning. plain says which values came from the extension's own
// .env, which Castor writes: a project's .env is the project's, and its
// variables may be its own too, so it is neither warned about nor
// rewritten. Problems are returned as notes.
func extensionEnv(name, installDir string, o ExtensionsOptions) (env, plain map[string]string, notes []string) {
	env, plain = map[string]string{}, map[string]string{}
	secrets := ExtensionSecrets{Path: ExtensionSecretsPath(extensionsGeminiDir(installDir, o))}
	layer := func(file, workspace string) {
		for k, v := range readDotEnvFile(file) {
			env[k] = v
			if workspace == "" {
				plain[k] = file
			} else {
				delete(plain, k)
			}
		}
		vals, err := secrets.Get(name, workspace)
		if err != nil {
			notes = append(notes, err.Error())
		}
		for k, v := range vals {
			env[k] = v
			delete(plain, k)
		}
	}
	layer(filepath.Join(installDir, ExtensionSettingsFileName), "")
	if o.Trusted && o.Workspace != "" {
		layer(filepath.Join(o.Workspace, ExtensionSettingsFileName), o.Workspace)
	}
	return env, plain, notes
}

// extensionsGeminiDir is the .gemini directory an installed extension's
// folder belongs to.
func extensionsGeminiDir(installDir string, o ExtensionsOptions) string {
	if o.GeminiDir != "" {
		return o.GeminiDir
	}
	return filepath.Dir(filepath.Dir(installDir))
}

// plainSecretNotes says, once per process and file, that a sensitive
// setting's value is in a plain .env file.
func plainSecretNotes(ext *Extension, plain map[string]string) []string {
	var notes []string
	for _, s := range ext.Settings {
		file, ok := plain[s.EnvVar]
		if !s.Sensitive || !ok {
			continue
		}
		if _, seen := plainWarned.LoadOrStore(file+"\x00"+ext.Name+"\x00"+s.EnvVar, true); seen {
			continue
		}
		notes = append(notes, fmt.Sprintf("extension %q: the sensitive setting %q (%s) is stored in plain text in %s; run \"castor extensions config %s %s\" to move it to %s, readable by you only",
			ext.Name, s.Name, s.EnvVar, file, ext.Name, s.EnvVar, ExtensionSecretsFileName))
	}
	return notes
}

var plainWarned sync.Map
