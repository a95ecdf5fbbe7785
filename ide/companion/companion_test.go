package companion

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/ide"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// guard bounds waits so that a broken test fails instead of hanging.
const guard = 20 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv("CASTOR_COMPANION_HELPER") != "" {
		helperProcess()
		return
	}
	os.Exit(m.Run())
}

// helperProcess runs a companion until a signal stops it: the test of
// SIGTERM handling runs it in a child process.
func helperProcess() {
	s := New(Options{Workspaces: []string{os.Getenv("CASTOR_COMPANION_WS")}, TempDir: os.Getenv("CASTOR_COMPANION_TMP"), PID: 77})
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	for s.DiscoveryFile() == "" {
		time.Sleep(time.Millisecond)
	}
	fmt.Println(s.DiscoveryFile())
	if err := <-done; err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// recordingEditor is an Editor that remembers what it was asked.
type recordingEditor struct {
	mu      sync.Mutex
	opened  []string
	content map[string]string
	fail    error
}

func (e *recordingEditor) OpenDiff(ctx context.Context, path, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail != nil {
		return e.fail
	}
	e.opened = append(e.opened, path)
	if e.content == nil {
		e.content = map[string]string{}
	}
	e.content[path] = content
	return nil
}

func (e *recordingEditor) CloseDiff(ctx context.Context, path string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.content[path] + "(edited)", nil
}

func startServer(t *testing.T, ed Editor) (*Server, string) {
	t.Helper()
	tmp := t.TempDir()
	s := New(Options{Workspaces: []string{"/ws/a", "/ws/b"}, TempDir: tmp, PID: 99, Editor: ed, IDE: ide.IDEInfo{Name: "neovim", DisplayName: "Neovim"}})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s, tmp
}

func TestDiscoveryFile(t *testing.T) {
	s, tmp := startServer(t, nil)
	path := s.DiscoveryFile()
	if want := filepath.Join(tmp, "gemini", "ide", fmt.Sprintf("gemini-ide-server-99-%d.json", s.Port())); path != want {
		t.Errorf("file %s, want %s", path, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v: the token must not be readable by others", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"port":          float64(s.Port()),
		"workspacePath": "/ws/a" + string(os.PathListSeparator) + "/ws/b",
		"authToken":     s.Token(),
		"ideInfo":       map[string]any{"name": "neovim", "displayName": "Neovim"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries", len(entries))
	}

	s.Stop(context.Background())
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file left after Stop: %v", err)
	}
}

func TestTokensDiffer(t *testing.T) {
	a, _ := startServer(t, nil)
	b, _ := startServer(t, nil)
	if a.Token() == b.Token() || len(a.Token()) < 20 {
		t.Errorf("tokens %q and %q", a.Token(), b.Token())
	}
}

func TestRequestChecks(t *testing.T) {
	s, _ := startServer(t, nil)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", s.Port())
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	tests := []struct {
		name     string
		method   string
		path     string
		header   map[string]string
		host     string
		wantCode int
		wantBody string
	}{
		{"no token", "POST", "/mcp", nil, "", 401, "Unauthorized\n"},
		{"wrong token", "POST", "/mcp", map[string]string{"Authorization": "Bearer nope"}, "", 401, "Unauthorized\n"},
		{"token without Bearer", "POST", "/mcp", map[string]string{"Authorization": s.Token()}, "", 401, "Unauthorized\n"},
		{"token prefix", "POST", "/mcp", map[string]string{"Authorization": "Bearer " + s.Token()[:10]}, "", 401, "Unauthorized\n"},
		{"no token on another path", "GET", "/", nil, "", 401, "Unauthorized\n"},
		{"no token on a GET stream", "GET", "/mcp", map[string]string{"Mcp-Session-Id": "x", "Accept": "text/event-stream"}, "", 401, "Unauthorized\n"},
		{"from a browser", "POST", "/mcp", map[string]string{"Authorization": "Bearer " + s.Token(), "Origin": "http://evil.example"}, "", 403, `{"error":"Request denied by CORS policy."}` + "\n"},
		{"dns rebinding", "POST", "/mcp", map[string]string{"Authorization": "Bearer " + s.Token()}, "evil.example:80", 403, `{"error":"Invalid Host header"}` + "\n"},
		{"right token", "POST", "/mcp", map[string]string{"Authorization": "Bearer " + s.Token()}, "", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, strings.TrimSuffix(url, "/mcp")+tt.path, strings.NewReader(init))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, tt.wantCode, body)
			}
			if tt.wantBody != "" && string(body) != tt.wantBody {
				t.Errorf("body %q, want %q", body, tt.wantBody)
			}
		})
	}
}

func TestStopOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CASTOR_COMPANION_HELPER=1", "CASTOR_COMPANION_TMP="+tmp, "CASTOR_COMPANION_WS="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimSpace(line)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("discovery file: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("companion exited with %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("discovery file left after SIGTERM: %v", err)
	}
}
