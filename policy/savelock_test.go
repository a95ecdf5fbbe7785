package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// saveChildEnv, when set, makes TestSaveConcurrent a child process that
// saves its share of rules into the file named ("path;process number").
const saveChildEnv = "CASTOR_POLICY_SAVE_CHILD"

const (
	saveProcs      = 4  // child processes
	saveGoroutines = 8  // per process
	savesEach      = 10 // per goroutine
)

// saveShare saves the distinct rules of one process: every goroutine
// writes its own tools, each with its own engine-free savedRule, so
// nothing but the file lock serialises them.
func saveShare(t *testing.T, path string, proc int) {
	var wg sync.WaitGroup
	for g := range saveGoroutines {
		wg.Go(func() {
			for i := range savesEach {
				r := savedRule{toolName: fmt.Sprintf("tool_p%d_g%d_%d", proc, g, i), modes: []Mode{ModeDefault}}
				if err := r.save(path); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

// TestSaveConcurrent: several processes, each with many goroutines,
// saving different "allow always and save" rules into one
// auto-saved.toml at once lose none of them.
func TestSaveConcurrent(t *testing.T) {
	if v := os.Getenv(saveChildEnv); v != "" {
		i := strings.LastIndex(v, ";")
		proc, err := strconv.Atoi(v[i+1:])
		if err != nil {
			t.Fatalf("%s=%q", saveChildEnv, v)
		}
		saveShare(t, v[:i], proc)
		return
	}
	path := filepath.Join(t.TempDir(), "policies", AutoSavedFile)
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot re-execute the test binary:", err)
	}
	cmds := make([]*exec.Cmd, saveProcs)
	for p := range cmds {
		c := exec.Command(exe, "-test.run=^TestSaveConcurrent$", "-test.count=1")
		c.Env = append(os.Environ(), fmt.Sprintf("%s=%s;%d", saveChildEnv, path, p+1))
		var out strings.Builder
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[p] = c
	}
	// This process saves its share (process 0) meanwhile.
	saveShare(t, path, 0)
	for p, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", p+1, err, c.Stdout)
		}
	}

	rules, errs := LoadRules(filepath.Dir(path), TierUser)
	for _, err := range errs {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, r := range rules {
		have[r.toolName]++
	}
	missing := 0
	for p := range saveProcs + 1 {
		for g := range saveGoroutines {
			for i := range savesEach {
				name := fmt.Sprintf("tool_p%d_g%d_%d", p, g, i)
				if have[name] != 1 {
					missing++
					if missing < 5 {
						t.Errorf("%s: %d rules in the file, want 1", name, have[name])
					}
				}
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d rules lost or doubled", missing, (saveProcs+1)*saveGoroutines*savesEach)
	}
}
