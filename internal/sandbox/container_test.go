package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestContainerArgs: the engine's arguments for one command: removed
// when done, the writable roots at their own paths, .git read-only, no
// network when closed, variables by name only, the image, the command.
func TestContainerArgs(t *testing.T) {
	ws := clean(t.TempDir())
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SANDBOX_FLAGS", `--memory 1g --label "team=a b"`)
	t.Setenv("SANDBOX_SET_UID_GID", "")
	for _, tt := range []struct {
		method, profile string
		want            []string
	}{
		{Docker, PermissiveClosed, []string{"--network", "none"}},
		{Docker, PermissiveOpen, []string{"--add-host", "host.docker.internal:host-gateway"}},
		{Runsc, RestrictiveClosed, []string{"--runtime=runsc", "--network", "none"}},
		{Podman, PermissiveClosed, []string{"--network", "none"}},
	} {
		t.Run(tt.method+" "+tt.profile, func(t *testing.T) {
			p, err := Build(Options{Name: tt.profile, Method: tt.method, Workspace: []string{ws}, Home: "/nonexistent-home", Temp: ws, Image: "example.com/img:1"})
			if err != nil {
				t.Fatal(err)
			}
			got := p.containerArgs(ws+"/src", []string{"bash", "-c", "make test"}, []string{"PATH=/host/bin", "GEMINI_API_KEY=secret", "LANG=C", "HOME=/h"}, "castor-sandbox-1-1")
			want := []string{"run", "-i", "--rm", "--init", "--entrypoint", "", "--name", "castor-sandbox-1-1", "--workdir", ws + "/src"}
			want = append(want, tt.want...)
			if runtime.GOOS == "linux" {
				if tt.method == Podman {
					want = append(want, "--userns=keep-id")
				} else {
					want = append(want, "--user", strconv.Itoa(os.Getuid())+":"+strconv.Itoa(os.Getgid()))
				}
			}
			want = append(want, "--volume", ws+":"+ws, "--volume", ws+"/.git:"+ws+"/.git:ro",
				"--memory", "1g", "--label", "team=a b",
				"--env", "GEMINI_API_KEY", "--env", "LANG", "--env", "SANDBOX=castor-sandbox-1-1",
				"example.com/img:1", "bash", "-c", "make test")
			if !slices.Equal(got, want) {
				t.Errorf("args\n%q\nwant\n%q", got, want)
			}
			if strings.Contains(strings.Join(got, " "), "secret") {
				t.Error("a variable's value is in the arguments")
			}
		})
	}
	if p, _ := Build(Options{Method: Docker, Workspace: []string{ws}}); p.Image != DefaultImage {
		t.Errorf("default image %q", p.Image)
	}
}

// TestContainerFailsClosed: a container sandbox whose engine is missing,
// does not answer, or lacks the image (and cannot pull it) is
// unavailable, saying which; an engine that answers and has the image
// is used.
func TestContainerFailsClosed(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	answers := func(fail ...string) func(string, ...string) ([]byte, error) {
		return func(_ string, args ...string) ([]byte, error) {
			if slices.Contains(fail, args[0]) {
				return []byte("\nCannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"), errors.New("exit status 1")
			}
			return nil, nil
		}
	}
	for _, tt := range []struct {
		name, method, image string
		fail                []string
		err                 string
	}{
		{"no engine", Docker, "img", []string{"info"}, "docker is installed but its engine does not answer (docker info: exit status 1: Cannot connect to the Docker daemon"},
		{"no image", Docker, "img", []string{"image", "pull"}, "sandbox image img is missing and could not be pulled"},
		{"image pulled", Docker, "img", []string{"image"}, ""},
		{"podman missing", Podman, "img", nil, "podman not found on PATH"},
		{"bad image", Docker, "img; rm -rf /", nil, `invalid sandbox image name "img; rm -rf /"`},
		{"works", Runsc, "img", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Sandbox{Profile: Profile{Method: tt.method, Image: tt.image}}
			err := s.checkContainer(answers(tt.fail...))
			if tt.err == "" {
				if err != nil || s.engine != filepath.Join(bin, "docker") {
					t.Errorf("checkContainer = %v, engine %q", err, s.engine)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("checkContainer = %v, want %q", err, tt.err)
			}
		})
	}
}
