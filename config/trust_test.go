package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsTrusted(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name       string
		rules      string // trustedFolders.json; $ROOT is the temp root; "" = no file
		path       string // relative to root
		enabled    bool
		env        map[string]string
		ide        *bool
		want       Trust
		wantSource string
	}{
		{name: "disabled trusts everything", path: "a", want: Trusted, wantSource: TrustSourceDisabled},
		{name: "no rules", path: "a", enabled: true, want: TrustUnknown},
		{name: "env true", path: "a", enabled: true, env: map[string]string{EnvTrustWorkspace: "true"}, want: Trusted, wantSource: TrustSourceEnv},
		{name: "env false beats disabled", path: "a", env: map[string]string{EnvTrustWorkspace: "false"}, want: Untrusted, wantSource: TrustSourceEnv},
		{name: "env other value ignored", path: "a", enabled: true, env: map[string]string{EnvTrustWorkspace: "1"}, want: TrustUnknown},
		{name: "ide says yes", path: "a", enabled: true, ide: &yes, want: Trusted, wantSource: TrustSourceIDE},
		{name: "ide says no", path: "a", enabled: true, ide: &no, rules: `{"$ROOT/a": "TRUST_FOLDER"}`, want: Untrusted, wantSource: TrustSourceIDE},
		{name: "trust folder covers below", rules: `{"$ROOT/a": "TRUST_FOLDER"}`, path: "a/b/c", enabled: true, want: Trusted, wantSource: TrustSourceFile},
		{name: "trust folder does not cover siblings", rules: `{"$ROOT/a": "TRUST_FOLDER"}`, path: "ab", enabled: true, want: TrustUnknown},
		{name: "trust parent", rules: `{"$ROOT/a/b": "TRUST_PARENT"}`, path: "a/x", enabled: true, want: Trusted, wantSource: TrustSourceFile},
		{name: "longest rule wins", rules: `{"$ROOT/a": "TRUST_FOLDER", "$ROOT/a/secret": "DO_NOT_TRUST"}`, path: "a/secret/x", enabled: true, want: Untrusted, wantSource: TrustSourceFile},
		{name: "longest rule wins the other way", rules: `{"$ROOT/a": "DO_NOT_TRUST", "$ROOT/a/ok": "TRUST_FOLDER"}`, path: "a/ok", enabled: true, want: Trusted, wantSource: TrustSourceFile},
		{name: "comments allowed", rules: "// mine\n{\"$ROOT\": \"TRUST_FOLDER\"}", path: "a", enabled: true, want: Trusted, wantSource: TrustSourceFile},
		{name: "bad file ignored when trust is disabled", rules: `nope`, path: "a", want: Trusted, wantSource: TrustSourceDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := realTempDir(t)
			writeTree(t, root, map[string]string{"a/b/c/": "", "a/secret/x/": "", "a/ok/": "", "ab/": "", "a/x/": ""})
			rules := filepath.Join(root, "trustedFolders.json")
			if tt.rules != "" {
				writeTree(t, root, map[string]string{"trustedFolders.json": strings.ReplaceAll(tt.rules, "$ROOT", root)})
			}
			r, err := IsTrusted(TrustOptions{
				Path:               filepath.Join(root, filepath.FromSlash(tt.path)),
				FolderTrustEnabled: tt.enabled,
				TrustedFoldersPath: rules,
				Env:                EnvMap(tt.env),
				IDETrust:           tt.ide,
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.State != tt.want || r.Source != tt.wantSource {
				t.Errorf("got %v from %q, want %v from %q", r.State, r.Source, tt.want, tt.wantSource)
			}
		})
	}
}

func TestTrustedFoldersErrors(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"syntax", "{\n\"a\" \"TRUST_FOLDER\"}", "line 2, column 5"},
		{"not an object", `["/a"]`, "Trusted folders file is not a valid JSON object."},
		{"bad level", `{"/a": "TRUST_ME", "/b": 3}`, `Invalid trust level "TRUST_ME" for path "/a". Possible values are: TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST.` + "\n" + `Invalid trust level "3" for path "/b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "trustedFolders.json")
			if err := os.WriteFile(p, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := IsTrusted(TrustOptions{Path: "/x", FolderTrustEnabled: true, TrustedFoldersPath: p, Env: EnvMap(nil)})
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != p || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want *FileError mentioning %q", err, tt.want)
			}
		})
	}
}

func TestTrustedFoldersSet(t *testing.T) {
	dir := realTempDir(t)
	p := filepath.Join(dir, "cfg", "trustedFolders.json")
	tf, err := LoadTrustedFolders(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := tf.Set(filepath.Join(dir, "proj"), TrustFolder); err != nil {
		t.Fatal(err)
	}
	if err := tf.Set(filepath.Join(dir, "proj", "vendor"), DoNotTrust); err != nil {
		t.Fatal(err)
	}
	if err := tf.Set(dir, "MAYBE"); err == nil {
		t.Error("invalid level accepted")
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat = %v, %v", fi, err)
	}
	again, err := LoadTrustedFolders(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Lookup(filepath.Join(dir, "proj", "src")); got != Trusted {
		t.Errorf("proj/src = %v", got)
	}
	if got := again.Lookup(filepath.Join(dir, "proj", "vendor", "x")); got != Untrusted {
		t.Errorf("proj/vendor/x = %v", got)
	}
}

func TestHeadlessTrustError(t *testing.T) {
	tests := []struct {
		r    TrustResult
		fail bool
	}{
		{TrustResult{State: Trusted, FolderTrustEnabled: true}, false},
		{TrustResult{State: TrustUnknown, FolderTrustEnabled: true}, true},
		{TrustResult{State: Untrusted, FolderTrustEnabled: true}, true},
		{TrustResult{State: Trusted, Source: TrustSourceDisabled}, false},
		{TrustResult{State: Untrusted, Source: TrustSourceEnv}, false},
	}
	for _, tt := range tests {
		if err := tt.r.HeadlessTrustError(); (err != nil) != tt.fail {
			t.Errorf("%+v: err = %v", tt.r, err)
		}
	}
}
