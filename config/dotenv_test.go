package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestParseDotEnvGolden compares with the output of the Node dotenv
// parser Gemini CLI uses, recorded in testdata/dotenv/want.json.
func TestParseDotEnvGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "dotenv", "input.env"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "dotenv", "want.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want [][2]string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if got := ParseDotEnv(in); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestLoadDotEnv(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string // under the temp root; home is "home", workspace "home/proj/sub"
		trusted  bool
		ignore   bool
		env      map[string]string
		wantFile string // relative to root; "" for none
		wantSet  map[string]string
	}{
		{
			name:     "nearest .env wins",
			files:    map[string]string{"home/proj/.env": "A=proj", "home/.env": "A=home"},
			trusted:  true,
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"A": "proj"},
		},
		{
			name:     ".gemini/.env preferred in the same directory",
			files:    map[string]string{"home/proj/sub/.env": "A=plain", "home/proj/sub/.gemini/.env": "A=gemini"},
			trusted:  true,
			wantFile: "home/proj/sub/.gemini/.env",
			wantSet:  map[string]string{"A": "gemini"},
		},
		{
			name:     "home .gemini/.env when the walk finds nothing",
			files:    map[string]string{"home/.gemini/.env": "A=hg", "home/.env": "A=h"},
			trusted:  true,
			wantFile: "home/.gemini/.env",
			wantSet:  map[string]string{"A": "hg"},
		},
		{
			name:     "already set variables are kept",
			files:    map[string]string{"home/proj/.env": "A=file\nB=file"},
			trusted:  true,
			env:      map[string]string{"A": "shell"},
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"B": "file"},
		},
		{
			name:     "project file cannot set excluded variables",
			files:    map[string]string{"home/proj/.env": "DEBUG=1\nGEMINI_CLI_IDE_SERVER_STDIO_COMMAND=evil\nOK=1"},
			trusted:  true,
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"OK": "1"},
		},
		{
			name:     ".gemini/.env may set them",
			files:    map[string]string{"home/proj/.gemini/.env": "DEBUG=1"},
			trusted:  true,
			wantFile: "home/proj/.gemini/.env",
			wantSet:  map[string]string{"DEBUG": "1"},
		},
		{
			name:     "untrusted: only plain .env, only auth variables, sanitised",
			files:    map[string]string{"home/proj/.gemini/.env": "GEMINI_API_KEY=g", "home/proj/.env": "GEMINI_API_KEY=k$(rm -rf)ey\nPATH=/evil"},
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"GEMINI_API_KEY": "krm-rfey"},
		},
		{
			name:     "untrusted skips home .gemini/.env",
			files:    map[string]string{"home/.gemini/.env": "GEMINI_API_KEY=g"},
			wantFile: "",
			wantSet:  map[string]string{},
		},
		{
			name:     "ignoreLocalEnv keeps only the home .env",
			files:    map[string]string{"home/proj/.env": "A=proj", "home/.env": "A=home"},
			trusted:  true,
			ignore:   true,
			wantFile: "home/.env",
			wantSet:  map[string]string{"A": "home"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := realTempDir(t)
			files := map[string]string{"home/proj/sub/": ""}
			for k, v := range tt.files {
				files[k] = v
			}
			writeTree(t, root, files)
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			set := map[string]string{}
			got, err := DotEnvOptions{
				Workspace:   filepath.Join(root, "home", "proj", "sub"),
				Home:        filepath.Join(root, "home"),
				Trusted:     tt.trusted,
				IgnoreLocal: tt.ignore,
				Lookup:      EnvMap(env),
				Setenv:      func(k, v string) { set[k] = v },
			}.Load()
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.wantFile != "" {
				want = filepath.Join(root, filepath.FromSlash(tt.wantFile))
			}
			if got != want {
				t.Errorf("file = %q, want %q", got, want)
			}
			if !reflect.DeepEqual(set, tt.wantSet) {
				t.Errorf("set %v, want %v", set, tt.wantSet)
			}
		})
	}
}

func TestLoadDotEnvUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	root := realTempDir(t)
	writeTree(t, root, map[string]string{"ws/.env": "A=1"})
	if err := os.Chmod(filepath.Join(root, "ws", ".env"), 0); err != nil {
		t.Fatal(err)
	}
	path, err := LoadDotEnv(filepath.Join(root, "ws"), filepath.Join(root, "home"), true, func(k, v string) { t.Errorf("set %s", k) })
	if err == nil || path != filepath.Join(root, "ws", ".env") {
		t.Errorf("path %q err %v", path, err)
	}
}
