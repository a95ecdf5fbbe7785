package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/nettest"
)

// TestFailureReports checks that each kind of broken server is reported
// with its name, its command or URL, the problem in plain words and its
// last stderr lines, rather than "write |1: broken pipe" or "invalid
// character 'h'".
func TestFailureReports(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "server.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := "http://" + nettest.RefusedAddr(t) + "/mcp"
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(unauthorized.Close)
	notFound := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no MCP\x1b[2J here", http.StatusNotFound)
	}))
	t.Cleanup(notFound.Close)
	htmlError := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body>Bad gateway</body></html>"))
	}))
	t.Cleanup(htmlError.Close)
	plain := httptest.NewServer(startHTTPHandler())
	t.Cleanup(plain.Close)
	httpsURL := strings.Replace(plain.URL, "http://", "https://", 1) + "/mcp"

	chatty := helperConfig(t, "chatty", "chatty")
	chatty.Timeout = 500 * time.Millisecond
	badCwd := helperConfig(t, "badcwd", "everything")
	badCwd.Cwd = filepath.Join(t.TempDir(), "gone")
	tests := []struct {
		cfg     *ServerConfig
		target  string
		problem []string
		stderr  []string
	}{
		{cfg: helperConfig(t, "exits", "exit"),
			problem: []string{"the server exited with status 3 before completing the MCP handshake"},
			stderr:  []string{"helper exit starting", "fatal: missing configuration"}},
		{cfg: helperConfig(t, "traceback", "traceback"),
			problem: []string{"exited with status 1"},
			stderr: []string{"  frame 13", "  frame 14", "  frame 15", "  frame 16", "  frame 17", "  frame 18", "  frame 19",
				"ModuleNotFoundError: No module named 'mcp'[31m"}},
		{cfg: chatty,
			problem: []string{"timed out after 500ms waiting for the answer to initialize", `"timeout"`,
				`It wrote 1 line(s) to stdout that are not MCP messages`, `the last: "Listening on port 8080"`},
			stderr: []string{"helper chatty starting", "warning: no MCP transport configured"}},
		{cfg: &ServerConfig{Name: "missing", Command: "castor-no-such-server", Args: []string{"--stdio"}},
			target:  "castor-no-such-server --stdio",
			problem: []string{`command "castor-no-such-server" not found on PATH`}},
		{cfg: &ServerConfig{Name: "notexec", Command: notExec},
			target:  notExec,
			problem: []string{"permission denied"}},
		{cfg: badCwd, problem: []string{`its working directory (cwd) "` + badCwd.Cwd + `" does not exist`}},
		{cfg: &ServerConfig{Name: "refused", URL: refused},
			target:  refused,
			problem: []string{"connection refused"}},
		{cfg: &ServerConfig{Name: "locked", HTTPURL: unauthorized.URL},
			target:  unauthorized.URL,
			problem: []string{"HTTP 401 Unauthorized from " + unauthorized.URL + " (the server said: Unauthorized): the server requires authentication", `"headers"`}},
		{cfg: &ServerConfig{Name: "notfound", URL: notFound.URL + "/mcp"},
			target:  notFound.URL + "/mcp",
			problem: []string{"HTTP 404 Not Found from " + notFound.URL + "/mcp (the server said: no MCP[2J here): is the URL's path right?"}},
		{cfg: &ServerConfig{Name: "gateway", HTTPURL: htmlError.URL},
			target:  htmlError.URL,
			problem: []string{"the server answered HTTP 502 Bad Gateway from " + htmlError.URL}},
		{cfg: &ServerConfig{Name: "https", HTTPURL: httpsURL},
			target:  httpsURL,
			problem: []string{"the server speaks plain HTTP, not HTTPS: use an http:// URL"}},
	}
	var cfgs []*ServerConfig
	for _, tt := range tests {
		cfgs = append(cfgs, tt.cfg)
	}
	m, d := startManager(t, Options{Servers: cfgs})
	for _, tt := range tests {
		st, _ := m.Status(tt.cfg.Name)
		f := st.Failure
		if st.Status != StatusError || f == nil {
			t.Errorf("%s: status %s, failure %v, reason %q", tt.cfg.Name, st.Status, f, st.Reason)
			continue
		}
		if st.Reason != f.Error() || !strings.HasPrefix(f.Error(), "MCP server '"+tt.cfg.Name+"' (") {
			t.Errorf("%s: reason %q, failure %q", tt.cfg.Name, st.Reason, f.Error())
		}
		target := tt.target
		if target == "" {
			target = tt.cfg.Command
		}
		if f.Server != tt.cfg.Name || f.Target != target {
			t.Errorf("%s: server %q target %q, want target %q", tt.cfg.Name, f.Server, f.Target, target)
		}
		for _, p := range tt.problem {
			if !strings.Contains(f.Problem, p) {
				t.Errorf("%s: problem %q lacks %q", tt.cfg.Name, f.Problem, p)
			}
		}
		if strings.Join(f.Stderr, "\n") != strings.Join(tt.stderr, "\n") {
			t.Errorf("%s: stderr\n%q\nwant\n%q", tt.cfg.Name, f.Stderr, tt.stderr)
		}
		if len(tt.stderr) > 0 && !strings.HasSuffix(f.Details(), "\n  "+tt.stderr[len(tt.stderr)-1]) {
			t.Errorf("%s: details %q", tt.cfg.Name, f.Details())
		}
	}
	if t.Failed() {
		t.Log(d)
	}
}

// TestStrayStdoutSkipped checks that a server printing a banner on stdout
// still works: Gemini CLI's stdio transport skips lines that do not parse.
func TestStrayStdoutSkipped(t *testing.T) {
	// The message bound raised above the 17 MB result, which must come
	// through whole past the SDK's own line limit.
	m, d := startManager(t, Options{Servers: []*ServerConfig{helperConfig(t, "banner", "banner")}, MaxMessageBytes: 32 << 20})
	if st, _ := m.Status("banner"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	if r := run(t, m, "echo", map[string]any{"message": "hi"}); r.Error != nil || r.Display != "Echo: hi" {
		t.Fatalf("echo = %+v", r)
	}
	// A result longer than the SDK's line limit comes through whole.
	if r := run(t, m, "big", nil); r.Error != nil || len(r.LLMParts) != 1 || !strings.Contains(r.LLMParts[0].Text, strings.Repeat("x", 17<<20)) {
		t.Errorf("big: error %v, %d parts", r.Error, len(r.LLMParts))
	}
	if !d.contains("MCP server 'banner' wrote a line to stdout that is not an MCP message; skipped: Weather server ready on stdio") {
		t.Errorf("the skipped line is not in the debug log:\n%s", d)
	}
}

// TestProbeFailure checks that `mcp list`'s probe explains a failure too.
func TestProbeFailure(t *testing.T) {
	err := Probe(t.Context(), helperConfig(t, "exits", "exit"), Options{Debug: func(string) {}})
	f, ok := err.(*Failure)
	if !ok || !strings.Contains(f.Problem, "exited with status 3") || len(f.Stderr) == 0 {
		t.Fatalf("Probe = %v", err)
	}
}

func TestClip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[2Jwiped\r", "[2Jwiped"},
		{"tab\there", "tab here"},
		{"ab\xffc", "ab\uFFFDc"},
		{strings.Repeat("é", 10), strings.Repeat("é", 4) + "…"},
	}
	for _, tt := range tests {
		if got := clip(tt.in, 4+len(tt.in)*btoi(!strings.HasPrefix(tt.in, "é"))); got != tt.want {
			t.Errorf("clip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// filterAll runs the stdout filter over input and returns what reaches the
// session and the lines set aside.
func filterAll(input []byte) (passed []byte, strays []string) {
	out := newProcessOutput("fuzz")
	tr := &stdioTransport{out: out, debug: func(string) {}}
	r, w := io.Pipe()
	go tr.filter(io.NopCloser(bytes.NewReader(input)), w)
	passed, _ = io.ReadAll(r)
	strays, _ = out.strayTail()
	return passed, strays
}

func TestFilter(t *testing.T) {
	in := "Server ready\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\n  [{\"a\":1}]  \n{broken\n{\"level\":30,\"msg\":\"started\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}"
	passed, strays := filterAll([]byte(in))
	want := "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n[{\"a\":1}]\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"
	if string(passed) != want {
		t.Errorf("passed %q, want %q", passed, want)
	}
	if strings.Join(strays, "|") != `Server ready|{broken|{"level":30,"msg":"started"}` {
		t.Errorf("strays %q", strays)
	}
}

// FuzzFilter checks that whatever a server writes, only whole JSON values
// reach the session, one a line, and set-aside lines are printable.
func FuzzFilter(f *testing.F) {
	f.Add([]byte("hello\n{\"id\":1}\n"))
	f.Add([]byte("{\"id\":1}{\"id\":2}\n\x1b[31m\n[1,2]"))
	f.Add([]byte("\xff\xfe\n{}\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		passed, strays := filterAll(in)
		for line := range bytes.Lines(passed) {
			if !bytes.HasSuffix(line, []byte("\n")) || !json.Valid(line) {
				t.Fatalf("passed %q", line)
			}
		}
		for _, s := range strays {
			if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
				t.Fatalf("stray line %q", s)
			}
		}
	})
}

// TestReconnectFailure: a call to a server that died and cannot be
// restarted says so once, with what the new process said.
func TestReconnectFailure(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "broken")
	cfg := helperConfig(t, "flaky", "everything")
	// The first start serves; once the flag file exists, a start fails.
	cfg.Command = "sh"
	exe, _ := os.Executable()
	cfg.Args = []string{"-c", `if [ -e "` + flag + `" ]; then echo "config is corrupt" >&2; exit 4; fi; exec "` + exe + `"`}
	m, d := startManager(t, Options{Servers: []*ServerConfig{cfg}})
	if st, _ := m.Status("flaky"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, m, "crash", nil); r.Error == nil {
		t.Fatal("crash did not fail")
	}
	r := run(t, m, "echo", map[string]any{"message": "again"})
	if r.Error == nil {
		t.Fatal("echo after a failed restart succeeded")
	}
	for _, want := range []string{"MCP server 'flaky' (sh -c ", "): not connected, and reconnecting failed: the server exited with status 4 before completing the MCP handshake", "config is corrupt"} {
		if !strings.Contains(r.Display, want) {
			t.Errorf("display %q lacks %q", r.Display, want)
		}
	}
	if strings.Count(r.Display, "MCP server 'flaky'") != 1 {
		t.Errorf("display names the server more than once: %q", r.Display)
	}
}

// TestFailureHidesURLSecrets checks that a remote server's failure, which
// reaches logs, the terminal and (from a tool call) the model, does not
// quote the credentials some servers take in their URL.
func TestFailureHidesURLSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such endpoint", http.StatusNotFound)
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://user:pw-s3cret@", 1) + "/mcp?api_key=key-s3cret&mode=x"
	err := Probe(t.Context(), &ServerConfig{Name: "remote", HTTPURL: u}, Options{Debug: func(string) {}})
	if err == nil {
		t.Fatal("Probe succeeded against a 404")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the failure quotes a secret of the URL: %v", err)
	}
	if !strings.Contains(err.Error(), "/mcp?") || !strings.Contains(err.Error(), "404") {
		t.Errorf("the failure no longer says where and what: %v", err)
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestStatusRecorderBareResponse checks that an error answer from a
// transport that does not set Response.Request (an SDK user's own
// RoundTripper) is recorded rather than crashing the connection attempt.
func TestStatusRecorderBareResponse(t *testing.T) {
	base := roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 404, Status: "404 Not Found", Header: http.Header{},
			Body: io.NopCloser(strings.NewReader("gone"))}, nil
	})
	var rec httpAnswer
	req := httptest.NewRequest("POST", "http://127.0.0.1:1/mcp", nil)
	resp, err := (&statusRecorder{base: base, rec: &rec}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := io.ReadAll(resp.Body); string(body) != "gone" {
		t.Errorf("body = %q", body)
	}
	if got, code := rec.describe(errors.New("Not Found")); code != 404 || !strings.Contains(got, "http://127.0.0.1:1/mcp") {
		t.Errorf("describe = %q, %d", got, code)
	}
}

// TestIsAuthError: a 401 is found in what the server answered, never in
// the digits of a port or an address.
func TestIsAuthError(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{`sending "initialize": Unauthorized`, true},
		{"unexpected status code 401", true},
		{"HTTP 401: missing token", true},
		{"401", true},
		{`Post "http://127.0.0.1:40111/mcp": dial tcp 127.0.0.1:40111: connect: connection refused`, false},
		{`Post "https://127.0.0.1:54013/mcp": http: server gave HTTP response to HTTPS client`, false},
		{"dial tcp 10.0.401.7:80: no route to host", false},
		{"dial tcp 127.0.0.1:4010: connection refused", false},
	} {
		if got := isAuthError(errors.New(tt.msg)); got != tt.want {
			t.Errorf("isAuthError(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
