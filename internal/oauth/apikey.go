package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// APIKeyFileName is where Castor keeps a Gemini API key entered in the
// terminal's auth dialog, in the Gemini home directory beside its OAuth
// credentials: owner-only, written atomically. Gemini CLI keeps the key
// it is given in the system keychain; Castor has no keychain access, so
// it keeps it as it keeps its other credentials.
const APIKeyFileName = "castor_api_key.json"

// apiKeyFile is the file's content.
type apiKeyFile struct {
	APIKey    string `json:"apiKey"`
	UpdatedAt int64  `json:"updatedAt"`
}

// APIKeyPath returns the path of castor_api_key.json.
func (s *Store) APIKeyPath() string { return filepath.Join(s.Dir, APIKeyFileName) }

// LoadAPIKey returns the stored API key, "" when none is stored.
func (s *Store) LoadAPIKey() (string, error) {
	data, err := os.ReadFile(s.APIKeyPath())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var f apiKeyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return "", fmt.Errorf("%s: %v", s.APIKeyPath(), err)
	}
	return strings.TrimSpace(f.APIKey), nil
}

// SaveAPIKey stores key; an empty key removes the file.
func (s *Store) SaveAPIKey(key string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		err := os.Remove(s.APIKeyPath())
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		return err
	}
	data, err := json.MarshalIndent(apiKeyFile{APIKey: key, UpdatedAt: time.Now().UnixMilli()}, "", "  ")
	if err != nil {
		return err
	}
	return writePrivateFile(s.APIKeyPath(), append(data, '\n'))
}

// WithStoredAPIKey returns getenv with GEMINI_API_KEY answered from the
// stored key when the environment gives no credentials of its own and
// the auth type (selected, "" for none) is the Gemini API key's: a key
// in the environment, Vertex AI or a sign-in always win.
func WithStoredAPIKey(getenv func(string) string, selected string, s *Store) func(string) string {
	if selected != "" && selected != string(GeminiAPIKey) {
		return getenv
	}
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "CLOUD_SHELL", "GEMINI_CLI_USE_COMPUTE_ADC"} {
		if getenv(k) != "" {
			return getenv
		}
	}
	key, err := s.LoadAPIKey()
	if err != nil || key == "" {
		return getenv
	}
	return func(k string) string {
		if k == "GEMINI_API_KEY" {
			return key
		}
		return getenv(k)
	}
}
