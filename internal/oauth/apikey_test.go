package oauth

import (
	"os"
	"testing"
)

func TestAPIKeyStore(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	if k, err := s.LoadAPIKey(); k != "" || err != nil {
		t.Fatalf("empty store: %q, %v", k, err)
	}
	if err := s.SaveAPIKey(" key-1 \n"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.APIKeyPath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stored key file: %v, mode %v", err, fi.Mode())
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name, selected string
		env            map[string]string
		want           string
	}{
		{"nothing else", "", nil, "key-1"},
		{"api key selected", "gemini-api-key", nil, "key-1"},
		{"the environment's key wins", "", map[string]string{"GEMINI_API_KEY": "env"}, "env"},
		{"vertex is not given the key", "", map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true"}, ""},
		{"a sign-in is not given the key", "oauth-personal", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(env)
			for k, v := range tt.env {
				env[k] = v
			}
			if got := WithStoredAPIKey(getenv, tt.selected, s)("GEMINI_API_KEY"); got != tt.want {
				t.Errorf("GEMINI_API_KEY = %q, want %q", got, tt.want)
			}
		})
	}
	if err := s.SaveAPIKey(""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.APIKeyPath()); !os.IsNotExist(err) {
		t.Errorf("an empty key left the file: %v", err)
	}
}
