package headless_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/update/updatetest"
)

// TestUpdate runs `castor update` of a copy of the built binary against a
// release feed served on loopback: a verified release replaces the binary
// (which then runs as the new version); one whose checksum does not
// match is refused and the binary is left as it was.
func TestUpdate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the released binary is a shell script")
	}
	t.Parallel()
	newBin := "#!/bin/sh\necho 99.0.0\n"
	archive := updatetest.TarGz(t, map[string]string{"castor": newBin, "LICENSE": "license"})
	tests := []struct {
		name     string
		checksum string
		wantCode int
		wantOut  string
		replaced bool
	}{
		{"verified", "", 0, "Castor updated from 0.1.0 to 99.0.0", true},
		{"bad checksum refused", strings.Repeat("0", 64), 1, "checksum mismatch for castor_99.0.0_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			feed := updatetest.Feed(t, "v99.0.0", runtime.GOOS, runtime.GOARCH, archive, tt.checksum)
			e.WriteUserSettings(`{"general": {"updateFeedUrl": "` + feed + `"}}`)
			orig, err := os.ReadFile(e2etest.Binary(t))
			if err != nil {
				t.Fatal(err)
			}
			// Copied by cp, not written here: a file this process holds
			// open for writing is inherited by whatever a parallel test
			// forks meanwhile, and executing it then fails with "text
			// file busy" (golang/go#22315).
			exe := filepath.Join(t.TempDir(), "castor")
			if out, err := exec.Command("cp", e2etest.Binary(t), exe).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			check := exec.Command(exe, "update", "--check")
			check.Dir, check.Env = e.WS, e.Environ()
			if out, err := check.Output(); err != nil || !strings.Contains(string(out), "Castor 99.0.0 is available") {
				t.Fatalf("update --check: %v %q", err, out)
			}
			cmd := exec.Command(exe, "update")
			cmd.Dir, cmd.Env = e.WS, e.Environ()
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode || !strings.Contains(stdout.String()+stderr.String(), tt.wantOut) {
				t.Fatalf("castor update: exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
			}
			got, err := os.ReadFile(exe)
			if err != nil {
				t.Fatal(err)
			}
			if tt.replaced {
				if string(got) != newBin {
					t.Fatalf("the binary was not replaced")
				}
				if out, err := exec.Command(exe, "--version").Output(); err != nil || strings.TrimSpace(string(out)) != "99.0.0" {
					t.Errorf("the new binary: %q %v", out, err)
				}
			} else if !bytes.Equal(got, orig) {
				t.Fatalf("a refused update changed the binary")
			}
			if entries, _ := os.ReadDir(filepath.Dir(exe)); len(entries) != 1 {
				t.Errorf("left beside the binary: %v", entries)
			}
		})
	}
}
