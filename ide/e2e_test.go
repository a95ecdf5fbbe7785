package ide_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestBinaryWithIDEServe is the end-to-end run: the castor binary with
// `castor ide serve` as the editor. A context update written to serve's
// stdin shows up in the model request; the model's edit proposal becomes
// an openDiff on serve's stdout; accepting it with changed content writes
// that content.
func TestBinaryWithIDEServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the castor binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "castor")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/castor").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	help, _ := exec.Command(bin, "--help").CombinedOutput()
	if !bytes.Contains(help, []byte("--ide")) {
		t.Fatalf("castor --help lists no --ide flag:\n%s", help)
	}

	e := newEnv(t)
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	environ := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + e.tmp,
		"GEMINI_API_KEY=test-key",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"CASTOR_RETRY_BASE_DELAY=5ms",
		"GEMINI_CLI_IDE_PID=" + strconv.Itoa(os.Getpid()),
	}

	// The editor: castor ide serve, fed and read by this test.
	serve := exec.Command(bin, "ide", "serve", "--workspace", e.ws, "--pid", strconv.Itoa(os.Getpid()), "--ide-name", "testeditor")
	serve.Env = environ
	serve.Stderr = os.Stderr
	in, _ := serve.StdinPipe()
	outPipe, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); serve.Wait() })
	msgs := make(chan companion.Message, 16)
	go func() {
		sc := bufio.NewScanner(outPipe)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m companion.Message
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				msgs <- m
			}
		}
		close(msgs)
	}()
	next := func() companion.Message {
		t.Helper()
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatal("castor ide serve exited")
			}
			return m
		case <-time.After(guard):
			t.Fatal("no message from castor ide serve")
		}
		return companion.Message{}
	}
	if m := next(); m.Type != companion.MessageReady {
		t.Fatalf("first message %+v", m)
	}
	main := filepath.Join(e.ws, "main.go")
	fmt.Fprintf(in, `{"type":"focused","path":%q,"cursor":{"line":3,"character":14},"selectedText":"fmt.Println"}`+"\n", main)

	// Wait until serve has taken the event in, so that the context castor
	// receives when it connects holds the file.
	probe := e.options()
	probe.IDEPID = os.Getpid()
	c, err := ide.Connect(context.Background(), probe)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, "serve's context", func() bool { return activePath(c) == main })
	c.Close()

	target := filepath.Join(e.ws, "hello.txt")
	srv := fakegemini.Start(t,
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "hello\n"}),
		fakegemini.Text("done"),
	)
	run := exec.Command(bin, "--ide", "-p", "write hello.txt")
	run.Dir = e.ws
	run.Env = append(environ, "GOOGLE_GEMINI_BASE_URL="+srv.URL)
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()

	m := next()
	if m.Type != companion.MessageOpenDiff || m.Path != target || m.NewContent == nil || *m.NewContent != "hello\n" {
		t.Fatalf("message %+v (castor stderr: %s)", m, stderr.String())
	}
	fmt.Fprintf(in, `{"type":"diffAccepted","path":%q,"content":"hello from the editor\n"}`+"\n", target)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("castor: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
		}
	case <-time.After(guard):
		run.Process.Kill()
		t.Fatalf("castor did not finish\nstderr: %s", stderr.String())
	}

	data, _ := os.ReadFile(target)
	if string(data) != "hello from the editor\n" {
		t.Errorf("file = %q, want the content accepted in the editor", data)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	var first strings.Builder
	for _, c := range reqs[0].Contents {
		for _, p := range c.Parts {
			first.WriteString(p.Text)
		}
	}
	for _, want := range []string{"Here is the user's editor context as a JSON object.", main, `"selectedText": "fmt.Println"`} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("the model request lacks %q:\n%s", want, first.String())
		}
	}
}
