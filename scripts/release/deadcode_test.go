package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseKeepsMethodDeadCode links castor as the release does and
// fails when a reachable function calls reflect.Value.Method or
// MethodByName (the linker marks it <ReflectMethod>): one such call makes
// the linker keep every exported method of every type, 6.6 MB of the
// linux/amd64 binary. text/template is the usual carrier (cobra's
// SetVersionTemplate, golang.org/x/net/trace's handlers under gRPC without
// the grpcnotrace tag). The failure names the marked functions; the
// chain that reaches one is in the -dumpdep output ("A -> B" edges).
func TestReleaseKeepsMethodDeadCode(t *testing.T) {
	if testing.Short() {
		t.Skip("links the whole binary")
	}
	bin := filepath.Join(t.TempDir(), "castor")
	cmd := exec.Command("go", "build", "-trimpath", "-tags", buildTags, "-ldflags", "-s -w -dumpdep", "-o", bin, "./cmd/castor")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	var deps bytes.Buffer
	cmd.Stderr = &deps
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v\n%s", err, tail(deps.String(), 2000))
	}
	marked := map[string]bool{}
	sc := bufio.NewScanner(&deps)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		from, _, ok := strings.Cut(sc.Text(), " -> ")
		if ok && strings.HasSuffix(from, " <ReflectMethod>") {
			marked[strings.TrimSuffix(from, " <ReflectMethod>")] = true
		}
	}
	if len(marked) > 0 {
		names := make([]string, 0, len(marked))
		for n := range marked {
			names = append(names, n)
		}
		t.Errorf("reachable functions call reflect's Method/MethodByName, so the linker keeps every exported method: %s", strings.Join(names, ", "))
	}
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
