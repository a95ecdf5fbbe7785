package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestUpdateFileGolden(t *testing.T) {
	server := map[string]any{"command": "node", "args": []string{"server.js", "--port=<p>"}, "env": map[string]string{"TOKEN": "$GH_TOKEN"}}
	tests := []struct {
		name  string // testdata/update/<name>.in.json → <name>.golden.json
		keys  []string
		value any
	}{
		{"comments", []string{"mcpServers", "github"}, server},
		{"nested", []string{"mcpServers", "github"}, server},
		{"replace", []string{"general", "vimMode"}, false},
		{"empty", []string{"model", "name"}, "gemini-2.5-flash"},
		{"tabs", []string{"ui", "hideBanner"}, true},
		{"compact", []string{"mcpServers", "a.b"}, map[string]any{"url": "http://x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "update", tt.name+".in.json"))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(p, in, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := UpdateFilePath(p, tt.keys, tt.value); err != nil {
				t.Fatal(err)
			}
			out, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "update/"+tt.name+".golden.json", string(out), "")

			// The result reads back with the new value in place.
			v, err := ParseJSONC(out)
			if err != nil {
				t.Fatalf("result does not parse: %v", err)
			}
			got, _ := lookupPathOK(v.(map[string]any), tt.keys)
			want := roundTrip(t, tt.value)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("value = %#v, want %#v", got, want)
			}
			// Standard JSON in, standard JSON out: Gemini CLI rejects
			// trailing commas.
			if json.Valid(in) && !json.Valid(out) {
				t.Errorf("output is no longer standard JSON:\n%s", out)
			}
			// The file keeps its mode.
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
				t.Errorf("mode = %v", fi.Mode())
			}
		})
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestUpdateFileCreates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new", ".gemini", "settings.json")
	if err := UpdateFile(p, "security.auth.selectedType", "gemini-api-key"); err != nil {
		t.Fatal(err)
	}
	if err := UpdateFile(p, "model.name", "m"); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(p)
	want := "{\n  \"security\": {\n    \"auth\": {\n      \"selectedType\": \"gemini-api-key\"\n    }\n  },\n  \"model\": {\n    \"name\": \"m\"\n  }\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode = %v, want 0600", fi.Mode())
	}
}

func TestUpdateFileErrors(t *testing.T) {
	tests := []struct {
		name, content, key, want string
	}{
		{"malformed", "{\n  \"a\": \n}", "a", "line 3, column 1"},
		{"not an object", `[]`, "a", "not a valid JSON object"},
		{"value in the way", `{"tools": "x"}`, "tools.core", "tools is not an object"},
		{"empty key element", `{}`, "a..b", "empty element"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := UpdateFile(p, tt.key, 1)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want mention of %q", err, tt.want)
			}
			if got, _ := os.ReadFile(p); string(got) != tt.content {
				t.Errorf("file changed on error: %q", got)
			}
		})
	}
}

func TestUpdateFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	writeTree(t, dir, map[string]string{"dotfiles/settings.json": "{}\n"})
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if err := UpdateFile(link, "a", 1); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(real); !strings.Contains(string(got), `"a": 1`) {
		t.Errorf("target = %q", got)
	}
}

func TestUpdateFileKeepsCRLF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, []byte("{\r\n  \"a\": 1\r\n}\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateFile(p, "b.c", []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := "{\r\n  \"a\": 1,\r\n  \"b\": {\r\n    \"c\": [\r\n      1,\r\n      2\r\n    ]\r\n  }\r\n}\r\n"
	if string(got) != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
