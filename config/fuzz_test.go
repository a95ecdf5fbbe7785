package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseDotEnv feeds arbitrary .env files (outside input from any
// checked-out project) to the parser: it must not panic, and every key it
// returns must be a plausible variable name.
func FuzzParseDotEnv(f *testing.F) {
	for _, s := range []string{
		"A=1\nB='two'\nexport C=\"th\\nree\"\n",
		"# comment\nKEY = value # trailing\n",
		"MULTI=\"line1\nline2\"\n",
		"=novalue\nNOEQUALS\n\xff\xfe=bad\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kv := range ParseDotEnv(data) {
			if kv[0] == "" || strings.ContainsAny(kv[0], "=\n\r ") {
				t.Errorf("implausible key %q", kv[0])
			}
		}
	})
}

// FuzzLoadTrustedFolders feeds arbitrary trustedFolders.json contents to
// the loader: a bad file is an error, never a panic, and a good one can be
// asked about any folder.
func FuzzLoadTrustedFolders(f *testing.F) {
	for _, s := range []string{
		`{"/work": "TRUST_FOLDER", "/work/x": "DO_NOT_TRUST"}`,
		`{"/a": "TRUST_PARENT",}`,
		`{"/a": 3}`,
		`[]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "trustedFolders.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		tf, err := LoadTrustedFolders(path)
		if err != nil || tf == nil {
			return
		}
		tf.Lookup("/work/x/y")
		tf.Lookup("/")
	})
}
