package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtensionSecrets(t *testing.T) {
	s := ExtensionSecrets{Path: filepath.Join(t.TempDir(), "g", ExtensionSecretsFileName)}
	if v, err := s.Get("x", ""); v != nil || err != nil {
		t.Fatalf("missing file: %v %v", v, err)
	}
	for _, c := range []struct{ ext, ws, k, v string }{
		{"x", "", "A", "user"}, {"x", "/ws/", "A", "ws"}, {"y", "", "B", "other"}, {"x", "", "A", "user2"},
	} {
		if err := s.Set(c.ext, c.ws, c.k, c.v); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := s.Get("x", ""); v["A"] != "user2" {
		t.Errorf("user: %v", v)
	}
	if v, _ := s.Get("x", "/ws"); v["A"] != "ws" {
		t.Errorf("workspace: %v", v)
	}
	if v, _ := s.Get("y", "/ws"); v != nil {
		t.Errorf("y in /ws: %v", v)
	}
	if fi, err := os.Stat(s.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", fi, err)
	}
	if err := s.Remove("x"); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("x", "/ws"); v != nil {
		t.Errorf("x after Remove: %v", v)
	}
	if v, _ := s.Get("y", ""); v["B"] != "other" {
		t.Errorf("y after removing x: %v", v)
	}
	// A file that does not parse is reported with its name, never
	// overwritten.
	os.WriteFile(s.Path, []byte("{oops"), 0o600)
	if _, err := s.Get("x", ""); err == nil || !strings.Contains(err.Error(), s.Path) {
		t.Errorf("Get: %v", err)
	}
	if err := s.Set("x", "", "A", "v"); err == nil {
		t.Error("Set over a malformed file")
	}
	if data, _ := os.ReadFile(s.Path); string(data) != "{oops" {
		t.Errorf("overwritten: %q", data)
	}
}

func TestRemoveDotEnvValue(t *testing.T) {
	tests := []struct {
		name, in, key, want string
		removed             bool
	}{
		{"only line", "A=1\n", "A", "", true},
		{"keeps others", "# c\nB=2\nA=1\nC=3\n", "A", "# c\nB=2\nC=3\n", true},
		{"export and multi-line quote", "export A=\"x\ny\"\nB=2\n", "A", "B=2\n", true},
		{"absent", "B=2\n", "A", "B=2\n", false},
		{"every definition", "A=1\nA=2\n", "A", "", true},
		// An unclosed quote is a one-line value to ParseDotEnv: the
		// lines after it are other keys, not its continuation.
		{"unclosed quote", "A=\"abc\nB=2\nC='3\n", "A", "B=2\nC='3\n", true},
		{"quote closed by a later key", "A=\"x\nB=\"y\"\n", "A", "B=\"y\"\n", true},
		{"blank line after a multi-line value", "A='x\ny'\n\nB=1\n", "A", "\nB=1\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), ".env")
			os.WriteFile(p, []byte(tt.in), 0o644)
			removed, err := RemoveDotEnvValue(p, tt.key)
			if err != nil || removed != tt.removed {
				t.Fatalf("removed %t, err %v", removed, err)
			}
			if data, _ := os.ReadFile(p); string(data) != tt.want {
				t.Errorf("got %q, want %q", data, tt.want)
			}
		})
	}
	if removed, err := RemoveDotEnvValue(filepath.Join(t.TempDir(), "none"), "A"); removed || err != nil {
		t.Errorf("missing file: %t %v", removed, err)
	}
}

// FuzzRemoveDotEnvValue: whatever the .env holds, removing a key leaves
// no value for it and every other key's value as it was.
func FuzzRemoveDotEnvValue(f *testing.F) {
	f.Add("A=1\nB=\"x\ny\"\n", "A")
	f.Add("export A='q'\n#A=2\nC=3", "C")
	f.Fuzz(func(t *testing.T, content, key string) {
		if !dotenvKey.Get().MatchString(key) {
			return
		}
		p := filepath.Join(t.TempDir(), ".env")
		os.WriteFile(p, []byte(content), 0o600)
		before := map[string]string{}
		for _, kv := range ParseDotEnv([]byte(content)) {
			before[kv[0]] = kv[1]
		}
		if _, err := RemoveDotEnvValue(p, key); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		after := map[string]string{}
		for _, kv := range ParseDotEnv(data) {
			after[kv[0]] = kv[1]
		}
		if _, ok := after[key]; ok {
			t.Fatalf("%q still defined in %q", key, data)
		}
		for k, v := range before {
			if k != key && after[k] != v {
				t.Fatalf("%q changed from %q to %q removing %q from %q", k, v, after[k], key, content)
			}
		}
	})
}

// FuzzExtensionSecrets: whatever the secrets file holds, reading it never
// panics, and a file that does not parse is named in the error and left
// as it is by Set.
func FuzzExtensionSecrets(f *testing.F) {
	f.Add([]byte(`{"extensions": {"x": {"user": {"A": "1"}, "workspaces": {"/w": {"B": "2"}}}}}`))
	f.Add([]byte(`{"extensions": {"x": null}}`))
	f.Add([]byte(`{"extensions": {"x": {"user": 3}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ExtensionSecrets{Path: filepath.Join(t.TempDir(), ExtensionSecretsFileName)}
		os.WriteFile(s.Path, data, 0o600)
		_, err := s.Get("x", "/w")
		if err != nil && !strings.Contains(err.Error(), s.Path) {
			t.Fatalf("error without the file's name: %v", err)
		}
		if setErr := s.Set("x", "/w", "C", "3"); (setErr != nil) != (err != nil) {
			t.Fatalf("Get error %v, Set error %v", err, setErr)
		}
		if err != nil {
			if got, _ := os.ReadFile(s.Path); string(got) != string(data) {
				t.Fatal("a file that does not parse was overwritten")
			}
			return
		}
		if v, err := s.Get("x", "/w"); err != nil || v["C"] != "3" {
			t.Fatalf("after Set: %v %v", v, err)
		}
	})
}
