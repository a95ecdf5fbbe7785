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

	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/internal/cli"
)

// cliEnv isolates `castor a2a-server` from the machine's settings and
// returns a workspace.
func cliEnv(t *testing.T, gcsBucket string) (root, ws string) {
	t.Helper()
	root = t.TempDir()
	ws = filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(root, "home"))
	t.Setenv("GEMINI_API_KEY", "k")
	t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
	t.Setenv("CODER_AGENT_AUTH_TOKEN", "")
	t.Setenv("GCS_BUCKET_NAME", gcsBucket)
	return root, ws
}

// TestCLIStoreRefused: store choices the server refuses before it
// listens, each with one line saying why.
func TestCLIStoreRefused(t *testing.T) {
	for _, tt := range []struct {
		name, gcs string
		args      []string
		want      []string
		cloud     bool // the refusal is for binaries without cloud drivers
	}{
		{name: "unknown scheme", args: []string{"--store", "ftp://host/x"}, want: []string{`task store "ftp://host/x": unknown scheme "ftp"; use file, mem, gs or s3`}},
		{name: "bare path", args: []string{"--store", "tasks"}, want: []string{`task store "tasks": not a URL`}},
		{name: "relative file URL", args: []string{"--store", "file://tasks"}, want: []string{"file URLs take an absolute path"}},
		{name: "no bucket", args: []string{"--store", "s3://"}, want: []string{"no bucket; use s3://bucket[/prefix]"}},
		{name: "two stores", args: []string{"--store", "mem://", "--memory-store"}, want: []string{"store", "memory-store"}},
		{name: "store and dir", args: []string{"--store", "mem://", "--store-dir", "x"}, want: []string{"store", "store-dir"}},
		{name: "gs without driver", args: []string{"--store", "gs://b/p"}, want: []string{blobstore.BuildHint}, cloud: true},
		{name: "s3 without driver", args: []string{"--store", "s3://b"}, want: []string{blobstore.BuildHint}, cloud: true},
		{name: "GCS_BUCKET_NAME without driver", gcs: "team-bucket", want: []string{`"gs://team-bucket"`, blobstore.BuildHint, "GCS_BUCKET_NAME is set"}, cloud: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cloud && cloudLinked {
				t.Skip("this binary links the cloud drivers; opening a bucket would need credentials and the network")
			}
			_, ws := cliEnv(t, tt.gcs)
			var stderr bytes.Buffer
			args := append([]string{"a2a-server", "--port", "0", "--workspace", ws}, tt.args...)
			code := cli.Run(t.Context(), args, cli.IO{Stdout: io.Discard, Stderr: &stderr})
			msg := strings.TrimSpace(stderr.String())
			if code == 0 {
				t.Fatalf("exit 0, stderr %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
			if strings.Count(msg, "\n") > 0 {
				t.Errorf("error spans lines: %q", msg)
			}
		})
	}
}

// TestCLIStoreChoice starts the server with each way of choosing a store
// and checks where the store went: an explicit store beats
// GCS_BUCKET_NAME, which beats the default directory.
func TestCLIStoreChoice(t *testing.T) {
	for _, tt := range []struct {
		name, gcs string
		args      func(root string) []string
		dir       string // under root, created by opening the store; "" for none
	}{
		{name: "default", args: func(string) []string { return nil }, dir: "home/.gemini/a2a"},
		{name: "store-dir", args: func(root string) []string { return []string{"--store-dir", filepath.Join(root, "d")} }, dir: "d"},
		{name: "file URL", args: func(root string) []string { return []string{"--store", fileURLUnder(root, "u")} }, dir: "u"},
		{name: "mem URL", args: func(string) []string { return []string{"--store", "mem://"} }},
		{name: "memory-store", args: func(string) []string { return []string{"--memory-store"} }},
		// Flags win over GCS_BUCKET_NAME, so no gs:// is opened here.
		{name: "store-dir over GCS_BUCKET_NAME", gcs: "b", args: func(root string) []string { return []string{"--store-dir", filepath.Join(root, "d")} }, dir: "d"},
		{name: "memory over GCS_BUCKET_NAME", gcs: "b", args: func(string) []string { return []string{"--memory-store"} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, ws := cliEnv(t, tt.gcs)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			pr, pw := io.Pipe()
			var stderr bytes.Buffer
			done := make(chan int, 1)
			args := append([]string{"a2a-server", "--port", "0", "--workspace", ws, "--allowed-root", root}, tt.args(root)...)
			go func() {
				done <- cli.Run(ctx, args, cli.IO{Stdout: pw, Stderr: &stderr})
				pw.Close()
			}()
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil || !strings.Contains(line, "listening on http://127.0.0.1:") {
				<-done
				t.Fatalf("server did not start: %q %v; stderr %s", line, err, stderr.String())
			}
			go io.Copy(io.Discard, pr)
			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("exit %d: %s", code, stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("server did not stop")
			}
			for _, d := range []string{"home/.gemini/a2a", "d", "u"} {
				_, err := os.Stat(filepath.Join(root, d))
				if exists := err == nil; exists != (d == tt.dir) {
					t.Errorf("%s exists: %v", d, exists)
				}
			}
		})
	}
}

// fileURLUnder is mustFileURL for table literals, which have no *testing.T.
func fileURLUnder(root, dir string) string {
	u, err := blobstore.FileURL(filepath.Join(root, dir))
	if err != nil {
		panic(err)
	}
	return u
}
