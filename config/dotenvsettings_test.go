package config

import (
	"path/filepath"
	"testing"
)

// TestSettingsDotEnv loads a .env file the way the settings ask: the
// workspace is home/proj, whose .env is a project file.
func TestSettingsDotEnv(t *testing.T) {
	tests := []struct {
		name     string
		settings string // ~/.gemini/settings.json
		wantFile string // relative to root; "" for none
		wantSet  map[string]string
	}{
		{
			name:     "defaults: DEBUG and the IDE command stay out, the rest loads",
			settings: `{}`,
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"A": "proj", "MY_VAR": "x"},
		},
		{
			name:     "excludedEnvVars adds to the defaults",
			settings: `{"advanced": {"excludedEnvVars": ["MY_VAR"]}}`,
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"A": "proj"},
		},
		{
			name:     "an empty list cannot drop the defaults",
			settings: `{"advanced": {"excludedEnvVars": []}}`,
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"A": "proj", "MY_VAR": "x"},
		},
		{
			name:     "ignoreLocalEnv skips the project .env for the home one",
			settings: `{"advanced": {"ignoreLocalEnv": true}}`,
			wantFile: "home/.env",
			// ~/.env counts as a project file too: its path has no .gemini.
			wantSet: map[string]string{"A": "home"},
		},
		{
			name:     "ignoreLocalEnv false is the default",
			settings: `{"advanced": {"ignoreLocalEnv": false}}`,
			wantFile: "home/proj/.env",
			wantSet:  map[string]string{"A": "proj", "MY_VAR": "x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := realTempDir(t)
			writeTree(t, root, map[string]string{
				"home/.gemini/settings.json": tt.settings,
				"home/.env":                  "A=home\nDEBUG=1\n",
				"home/proj/.env":             "A=proj\nDEBUG=1\nDEBUG_MODE=1\nMY_VAR=x\nGEMINI_CLI_IDE_SERVER_STDIO_COMMAND=evil\n",
			})
			home := filepath.Join(root, "home")
			ws := filepath.Join(home, "proj")
			st, err := Load(LoadOptions{Workspace: ws, HomeDir: home, Env: EnvMap(map[string]string{EnvTrustWorkspace: "true"})})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			o := st.DotEnv(ws, home, true)
			o.Lookup = EnvMap(nil)
			o.Setenv = func(k, v string) { got[k] = v }
			file, err := o.Load()
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(root, filepath.FromSlash(tt.wantFile)); file != want {
				t.Errorf("file %q, want %q", file, want)
			}
			if len(got) != len(tt.wantSet) {
				t.Errorf("set %v, want %v", got, tt.wantSet)
			}
			for k, v := range tt.wantSet {
				if got[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}

func TestSettingsDotEnvNil(t *testing.T) {
	var s *Settings
	o := s.DotEnv("ws", "home", true)
	if o.IgnoreLocal || o.Excluded != nil || o.Workspace != "ws" || o.Home != "home" || !o.Trusted {
		t.Errorf("nil settings: %+v", o)
	}
}
