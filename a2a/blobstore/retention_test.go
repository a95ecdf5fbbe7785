package blobstore_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/a2asession"
	"github.com/castor-dev/castor/internal/cli"
	"github.com/castor-dev/castor/internal/setup"
)

// TestServerRetentionOnDisk: a server over a file:// store deletes the
// files of a task idle past the retention when it starts, and leaves a
// younger one alone.
func TestServerRetentionOnDisk(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, mustFileURL(t, dir))
	// The clock is two months ahead of the files' real write times.
	now := time.Now().Add(60 * 24 * time.Hour)
	for id, ts := range map[string]time.Time{"old": now.Add(-31 * 24 * time.Hour), "young": now.Add(-29 * 24 * time.Hour)} {
		if err := s.Save(t.Context(), sampleTask(id, 2)); err != nil {
			t.Fatal(err)
		}
		st, _ := s.Load(t.Context(), id)
		st.Timestamp = ts.UTC()
		if err := s.Save(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := a2a.NewServer(a2a.Config{AllowedRoot: t.TempDir(), Store: s, Now: func() time.Time { return now },
		NewSession: a2asession.Factory(setup.Options{Env: func(string) (string, bool) { return "", false }})})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	deadline := time.Now().Add(20 * time.Second) // a hang, not a speed check
	for {
		// Its directory goes too, or every task ever deleted would leave
		// one behind.
		if _, err := os.Stat(filepath.Join(dir, "tasks", "old")); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the expired task is still there: %v", listFiles(t, filepath.Join(dir, "tasks", "old")))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "tasks", "young", "state.json")); err != nil {
		t.Errorf("the young task: %v", err)
	}
}

// TestCLIRetention: castor a2a-server --retention reaches the server: a
// task idle for two hours goes with --retention 1h, stays with 0 (keep
// forever); a negative retention is refused.
func TestCLIRetention(t *testing.T) {
	for _, tt := range []struct {
		name    string
		flag    string
		deleted bool
	}{
		{"one hour", "1h", true},
		{"forever", "0", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, ws := cliEnv(t, "")
			dir := filepath.Join(root, "d")
			s := mustOpen(t, mustFileURL(t, dir))
			st := sampleTask("idle", 1)
			st.Timestamp = time.Now().Add(-2 * time.Hour).UTC()
			if err := s.Save(t.Context(), st); err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(dir, "tasks", "idle", "state.json")
			// The store only reads tasks whose state was written before
			// the cutoff; this one was written just now.
			old := time.Now().Add(-2 * time.Hour)
			if err := os.Chtimes(state, old, old); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			pr, pw := io.Pipe()
			var stderr bytes.Buffer
			done := make(chan int, 1)
			args := []string{"a2a-server", "--port", "0", "--workspace", ws, "--allowed-root", root, "--store-dir", dir, "--retention", tt.flag}
			go func() {
				done <- cli.Run(ctx, args, cli.IO{Stdout: pw, Stderr: &stderr})
				pw.Close()
			}()
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil || !strings.Contains(line, "listening on") {
				<-done
				t.Fatalf("server did not start: %q %v; stderr %s", line, err, stderr.String())
			}
			go io.Copy(io.Discard, pr)
			if tt.deleted {
				deadline := time.Now().Add(20 * time.Second) // a hang, not a speed check
				for _, err := os.Stat(state); err == nil; _, err = os.Stat(state) {
					if time.Now().After(deadline) {
						t.Fatal("the expired task was not deleted")
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("exit %d: %s", code, stderr.String())
			}
			if _, err := os.Stat(state); !tt.deleted && err != nil {
				t.Errorf("the task was deleted: %v", err)
			}
		})
	}
	t.Run("negative", func(t *testing.T) {
		_, ws := cliEnv(t, "")
		var stderr bytes.Buffer
		code := cli.Run(t.Context(), []string{"a2a-server", "--port", "0", "--workspace", ws, "--memory-store", "--retention", "-1h"}, cli.IO{Stdout: io.Discard, Stderr: &stderr})
		if msg := stderr.String(); code == 0 || !strings.Contains(msg, "--retention -1h0m0s: must not be negative") {
			t.Errorf("exit %d, stderr %q", code, msg)
		}
	})
}
