package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBuild(t *testing.T) {
	home, ws, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	tests := []struct {
		name      string
		profile   string
		network   bool
		read      []string
		homeCache bool
	}{
		{"default", "", true, []string{"/"}, true},
		{"permissive-closed", PermissiveClosed, false, []string{"/"}, true},
		{"restrictive-open", RestrictiveOpen, true, systemReads, false},
		{"restrictive-closed", RestrictiveClosed, false, systemReads, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Build(Options{Name: tt.profile, Workspace: []string{ws, ws + "/"}, Home: home, Temp: tmp})
			if err != nil {
				t.Fatal(err)
			}
			if p.Network != tt.network {
				t.Errorf("Network = %v", p.Network)
			}
			if p.Method != Landlock {
				t.Errorf("Method = %q", p.Method)
			}
			if !slices.Equal(p.Read, tt.read) {
				t.Errorf("Read = %q, want %q", p.Read, tt.read)
			}
			want := []string{clean(ws), clean(tmp)}
			if tt.homeCache {
				want = append(want, filepath.Join(clean(home), ".cache"), filepath.Join(clean(home), ".npm"))
			}
			if !slices.Equal(p.Write, want) {
				t.Errorf("Write = %q, want %q (once each)", p.Write, want)
			}
			for _, s := range []string{".ssh", ".gnupg", ".aws", ".config/gcloud", ".azure", ".kube", ".docker/config.json", ".netrc",
				".gemini/oauth_creds.json", ".gemini/castor_oauth_creds.json", ".gemini/castor_extension_secrets.json"} {
				if !slices.Contains(p.Deny, filepath.Join(clean(home), s)) {
					t.Errorf("~/%s is not denied", s)
				}
			}
		})
	}
	if _, err := Build(Options{Name: "strict"}); err == nil || !strings.Contains(err.Error(), "permissive-open") {
		t.Errorf("unknown profile: %v", err)
	}
	if p, _ := Build(Options{Name: RestrictiveClosed, Network: true, Home: home}); !p.Network {
		t.Error("tools.sandboxNetworkAccess does not open the network")
	}
}

func TestChoose(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name      string
		env       string
		flag      *bool
		setting   any
		byDefault bool
		want      Choice
		err       string
	}{
		{"nothing", "", nil, nil, false, Choice{}, ""},
		{"default on", "", nil, nil, true, Choice{Method: Landlock, Source: "default", Auto: true}, ""},
		{"flag", "", &yes, nil, false, Choice{Method: Landlock, Asked: true, Source: "--sandbox", Auto: true}, ""},
		{"flag false beats default", "", &no, nil, true, Choice{Source: "--sandbox"}, ""},
		{"flag beats setting", "", &no, true, false, Choice{Source: "--sandbox"}, ""},
		{"env beats flag", "true", &no, nil, false, Choice{Method: Landlock, Asked: true, Source: "GEMINI_SANDBOX", Auto: true}, ""},
		{"env 0", "0", &yes, nil, true, Choice{Source: "GEMINI_SANDBOX"}, ""},
		{"env method", " BWRAP ", nil, nil, false, Choice{Method: Bwrap, Asked: true, Source: "GEMINI_SANDBOX"}, ""},
		{"setting false beats default", "", nil, false, true, Choice{Source: "tools.sandbox"}, ""},
		{"setting method", "", nil, "landlock", false, Choice{Method: Landlock, Asked: true, Source: "tools.sandbox"}, ""},
		{"setting object", "", nil, map[string]any{"enabled": true, "command": "bwrap"}, false, Choice{Method: Bwrap, Asked: true, Source: "tools.sandbox"}, ""},
		{"setting object off", "", nil, map[string]any{"enabled": false, "command": "bwrap"}, true, Choice{Source: "tools.sandbox"}, ""},
		{"docker", "docker", nil, nil, false, Choice{Method: Docker, Asked: true, Source: "GEMINI_SANDBOX"}, ""},
		{"sandbox-exec", "", nil, "sandbox-exec", false, Choice{Method: SandboxExec, Asked: true, Source: "tools.sandbox"}, ""},
		{"podman object", "", nil, map[string]any{"enabled": true, "command": "podman", "image": "x"}, false, Choice{Method: Podman, Asked: true, Source: "tools.sandbox"}, ""},
		{"lxc", "lxc", nil, nil, false, Choice{}, "does not drive lxc"},
		{"unknown", "chroot", nil, nil, false, Choice{}, `invalid sandbox command "chroot"`},
		{"not a value", "", nil, 3.0, false, Choice{}, "invalid tools.sandbox value 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Choose(tt.env, tt.flag, tt.setting, tt.byDefault)
			if tt.err != "" {
				var ue *UnavailableError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want an UnavailableError naming %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Choose = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestPlan: an allow-list reaches every entry of a root but the secrets,
// whose directories stay listable only.
func TestPlan(t *testing.T) {
	home := clean(t.TempDir())
	for _, f := range []string{".ssh/id_ed25519", ".gemini/oauth_creds.json", ".gemini/settings.json", "notes.txt", "src/a.go"} {
		path := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys")); err != nil {
		t.Fatal(err)
	}
	p := Profile{Name: PermissiveOpen, Read: []string{home}, Write: []string{filepath.Join(home, "src")}, Deny: []string{
		filepath.Join(home, ".ssh"), filepath.Join(home, ".gemini", "oauth_creds.json"), filepath.Join(home, ".aws")}}
	var got []string
	for _, g := range plan(p) {
		if !beneath(g.Path, home) {
			continue // devices
		}
		kind := "ro"
		switch {
		case g.List:
			kind = "list"
		case g.Write:
			kind = "rw"
		}
		got = append(got, strings.TrimPrefix(strings.TrimPrefix(g.Path, home), "/")+" "+kind)
	}
	slices.Sort(got)
	want := []string{" list", ".gemini list", ".gemini/settings.json ro", "notes.txt ro", "src ro", "src rw"}
	if !slices.Equal(got, want) {
		t.Errorf("plan = %q\nwant %q", got, want)
	}
}

func TestDenials(t *testing.T) {
	home, ws := clean(t.TempDir()), clean(t.TempDir())
	p, err := Build(Options{Name: PermissiveClosed, Workspace: []string{ws}, Home: home, Temp: ws})
	if err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{Profile: p}
	key := filepath.Join(home, ".ssh", "id_ed25519")
	out := strings.Join([]string{
		"/usr/bin/bash: line 1: /etc/passwd-x: Permission denied", // the program's path is not the denied one
		"PermissionError: [Errno 13] Permission denied: '/opt/py'",
		"touch: cannot touch '/usr/x': Read-only file system",
		"cat: " + key + ": Permission denied",
		"bash: " + ws + "/mine: Permission denied", // the workspace: not the sandbox's doing
		"bash: connect: Permission denied",
		"bash: line 1: /dev/tcp/127.0.0.1/22: Permission denied", // bash's name for a socket, not a file
		"ls: /etc/passwd-x: Permission denied",                   // once
	}, "\n")
	want := strings.Join([]string{
		"sandbox: write to /etc/passwd-x denied (outside the workspace; profile permissive-closed)",
		"sandbox: write to /opt/py denied (outside the workspace; profile permissive-closed)",
		"sandbox: write to /usr/x denied (outside the workspace; profile permissive-closed)",
		"sandbox: access to " + key + " denied (a credential file; profile permissive-closed)",
		"sandbox: network connections denied (profile permissive-closed has no network)",
	}, "\n")
	if got := s.Denials(out); got != want {
		t.Errorf("Denials =\n%s\nwant\n%s", got, want)
	}
	if got := s.Denials("all fine\n"); got != "" {
		t.Errorf("Denials of clean output = %q", got)
	}
}

// TestStartUnfound: a command whose program is missing fails to start
// as it would without a sandbox, naming the program.
func TestStartUnfound(t *testing.T) {
	s := &Sandbox{Profile: Profile{Method: Landlock}}
	err := s.Start(exec.Command("no-such-program-anywhere"))
	if err == nil || !strings.Contains(err.Error(), "no-such-program-anywhere") {
		t.Errorf("Start = %v", err)
	}
}

// The resolver Build uses answers as clean does, one path after another
// in one resolver: links (absolute, relative, chained, to links), missing
// paths, a file where a directory should be.
func TestResolverAgreesWithClean(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Skip("symlinks unavailable:", err)
		}
	}
	mk("a/b/c")
	mk("home/.config")
	if err := os.WriteFile(filepath.Join(root, "a/file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join(root, "a/b"), "abs") // absolute
	link("a/b/c", "rel")                    // relative
	link("rel", "chain")                    // to a link
	link("../home", "a/up")                 // out of its folder
	link(filepath.Join(root, "nowhere"), "dangling")
	paths := []string{
		"a/b/c", "abs", "abs/c", "rel", "chain", "chain/x", "a/up/.config",
		"a/up/.ssh", "home/.config/gcloud", "dangling", "dangling/x",
		"a/file", "a/file/x", "missing/deeper", "a/b/../b/c", "a/./b/",
		"", ".",
	}
	r := resolver{}
	for _, rel := range paths {
		p := filepath.Join(root, rel)
		if got, want := r.clean(p), clean(p); got != want {
			t.Errorf("resolver.clean(%s) = %s, clean = %s", rel, got, want)
		}
	}
	if got, want := r.clean("relative/path"), clean("relative/path"); got != want {
		t.Errorf("resolver.clean(relative/path) = %s, clean = %s", got, want)
	}
}
