package acp

import (
	"os"
	"path/filepath"
	"testing"
)

func TestKeySearch(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		files map[string]string // under the root: home/..., ws/...
		want  string            // "" for none; otherwise "env" or a file under the root
		read  []string          // files read that set no key
	}{
		{name: "nothing"},
		{name: "environment", env: map[string]string{"GEMINI_API_KEY": "k"}, want: "env"},
		{name: "blank in environment", env: map[string]string{"GEMINI_API_KEY": " "}},
		{name: "GOOGLE_API_KEY", env: map[string]string{"GOOGLE_API_KEY": "k"}, want: "env"},
		{name: "home .env", files: map[string]string{"home/.env": "GEMINI_API_KEY=k\n"}, want: "home/.env"},
		{name: "home .gemini/.env", files: map[string]string{"home/.gemini/.env": "GEMINI_API_KEY=k\n"}, want: "home/.gemini/.env"},
		{name: "project .env", files: map[string]string{"ws/.env": "GEMINI_API_KEY=k\n"}, want: "ws/.env"},
		// A trusted folder would read .gemini/.env first; an untrusted
		// one the plain .env, which has the key: it might work.
		{name: "key only in the file an untrusted folder reads", files: map[string]string{"ws/.gemini/.env": "X=1\n", "ws/.env": "GEMINI_API_KEY=k\n"}, want: "ws/.env"},
		{name: "file without the key", files: map[string]string{"home/.env": "X=1\n"}, read: []string{"home/.env"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
			for _, d := range []string{ws, home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, content := range tt.files {
				p := filepath.Join(root, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ks := keySearch{lookup: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }, home: home, dirs: []string{ws}}
			where, read := ks.find()
			want := tt.want
			switch want {
			case "":
			case "env":
				want = "the environment"
			default:
				want = filepath.Join(root, want)
			}
			if where != want {
				t.Errorf("found in %q, want %q", where, want)
			}
			var wantRead []string
			for _, r := range tt.read {
				wantRead = append(wantRead, filepath.Join(root, r))
			}
			if len(read) != len(wantRead) || (len(read) > 0 && read[0] != wantRead[0]) {
				t.Errorf("read %v, want %v", read, wantRead)
			}
		})
	}
}
