package a2a_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/cli"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestCLIServer runs `castor a2a-server` as a user would: it prints its
// URL, serves a turn against the model the environment names, and shuts
// down on the signal context.
func TestCLIServer(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	fake := fakegemini.Start(t, fakegemini.Text("hello from the cli"))
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(root, "home"))
	srv := startCLIServer(t, fake.URL, ws, root)
	url := srv.url
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL %q", url)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": userMessage("hi", nil, "")})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	evs := readSSE(t, resp)
	resp.Body.Close()
	if !strings.Contains(summary(evs), "hello from the cli") {
		t.Errorf("stream:\n%s", summary(evs))
	}
	if code := srv.stop(); code != 0 {
		t.Errorf("exit %d: %s", code, srv.stderr.String())
	}
	// The task was saved under ~/.gemini/a2a.
	if entries, _ := os.ReadDir(filepath.Join(root, "home", ".gemini", "a2a", "tasks")); len(entries) != 1 {
		t.Errorf("stored tasks: %v", entries)
	}
}

func TestCLIRefusesPublicBindWithoutToken(t *testing.T) {
	t.Setenv("CODER_AGENT_AUTH_TOKEN", "")
	var stderr bytes.Buffer
	code := cli.Run(context.Background(), []string{"a2a-server", "--host", "0.0.0.0", "--port", "0"}, cli.IO{Stdout: io.Discard, Stderr: &stderr})
	if code == 0 || !strings.Contains(stderr.String(), "without an auth token") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// cliServer is `castor a2a-server` run in-process by cli.Run, as a user
// would start it.
type cliServer struct {
	url    string
	stderr *bytes.Buffer
	stop   func() int // ends the server and returns its exit code
}

// startCLIServer starts `castor a2a-server` on a free loopback port for
// the workspace ws under root, against the model at modelURL, and waits
// for the URL it prints. GEMINI_CLI_HOME is the caller's to set.
func startCLIServer(t *testing.T, modelURL, ws, root string) *cliServer {
	t.Helper()
	t.Setenv("GEMINI_API_KEY", "k")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", modelURL)
	t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
	t.Setenv("CODER_AGENT_AUTH_TOKEN", "")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	srv := &cliServer{stderr: &bytes.Buffer{}}
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"a2a-server", "--port", "0", "--workspace", ws, "--allowed-root", root}, cli.IO{Stdout: pw, Stderr: srv.stderr})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v (stderr %s)", err, srv.stderr.String())
	}
	srv.url = strings.TrimSpace(line[strings.Index(line, "http://"):])
	go io.Copy(io.Discard, pr)
	srv.stop = func() int {
		cancel()
		return <-done
	}
	return srv
}
