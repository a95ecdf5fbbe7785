package companion

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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

// guard bounds waits so that a broken test fails instead of hanging.
const guard = 20 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv("CASTOR_COMPANION_HELPER") != "" {
		helperProcess()
		return
	}
	os.Exit(m.Run())
}

// helperProcess runs a companion in a child process, for the tests of
// signal handling and of write failures. CASTOR_COMPANION_HELPER says how:
// "run" (Server.Run) and "stdio" (ServeStdio, what castor ide serve runs)
// print the discovery file's path and serve until a signal stops them;
// "start" only starts, then prints Start's error or "ok".
func helperProcess() {
	o := Options{Workspaces: []string{os.Getenv("CASTOR_COMPANION_WS")}, TempDir: os.Getenv("CASTOR_COMPANION_TMP"), PID: 77}
	switch os.Getenv("CASTOR_COMPANION_HELPER") {
	case "start":
		if err := New(o).Start(); err != nil {
			fmt.Println(err)
		} else {
			fmt.Println("ok")
		}
		os.Exit(0)
	case "stdio":
		// The ready message, first on stdout, names the file.
		if err := ServeStdio(context.Background(), os.Stdin, os.Stdout, StdioOptions{Server: o}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	s := New(o)
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

// TestStopOnSignal: a companion stopped by SIGTERM, SIGINT or SIGHUP (an
// editor quitting, a terminal closing) deletes its discovery file, which
// holds the token, both under Server.Run and under ServeStdio.
func TestStopOnSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX signals on Windows")
	}
	for _, mode := range []string{"run", "stdio"} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			t.Run(mode+"/"+sig.String(), func(t *testing.T) {
				tmp := t.TempDir()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "CASTOR_COMPANION_HELPER="+mode, "CASTOR_COMPANION_TMP="+tmp, "CASTOR_COMPANION_WS="+tmp)
				// The stdio companion also stops at the end of its input:
				// keep it open so that only the signal can stop it.
				stdin, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
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
				if mode == "stdio" {
					var m Message
					if err := json.Unmarshal([]byte(line), &m); err != nil || m.Type != MessageReady {
						t.Fatalf("first line %q: %v", line, err)
					}
					path = m.DiscoveryFile
				}
				if _, err := os.Stat(path); err != nil {
					t.Fatalf("discovery file: %v", err)
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					t.Fatalf("companion exited with %v", err)
				}
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("discovery file left after %v: %v", sig, err)
				}
			})
		}
	}
}

// TestDiscoveryWriteFails: when the discovery file cannot be written, Start
// fails saying so and publishes nothing, neither the file nor a partial or
// temporary one.
func TestDiscoveryWriteFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs POSIX permissions and ulimit")
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) []string // the command to run the helper with
	}{
		{"read-only directory", func(t *testing.T, dir string) []string {
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			if f, err := os.CreateTemp(dir, "probe"); err == nil {
				f.Close()
				os.Remove(f.Name())
				t.Skip("the directory stays writable (running as root); the file size case covers this")
			}
			return []string{os.Args[0], "-test.run=^$"}
		}},
		// Root writes anywhere; a file size limit of zero makes the write
		// itself fail (EFBIG; Go ignores SIGXFSZ) after the temporary file
		// was created, the case a half-written file would come from.
		{"file size limit", func(t *testing.T, dir string) []string {
			return []string{"/bin/sh", "-c", `ulimit -f 0 && exec "$0" -test.run='^$'`, os.Args[0]}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := ide.DiscoveryDir(tmp)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			args := tt.setup(t, dir)
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env = append(os.Environ(), "CASTOR_COMPANION_HELPER=start", "CASTOR_COMPANION_TMP="+tmp, "CASTOR_COMPANION_WS="+tmp)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, "writing the discovery file: ") {
				t.Errorf("Start = %q, want an error writing the discovery file", got)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("%s left in the discovery directory", e.Name())
			}
		})
	}
}
