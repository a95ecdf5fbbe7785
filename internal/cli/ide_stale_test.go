package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIDEStatusSkipsStaleFile: the companion of this IDE crashed and was
// restarted, leaving its old discovery file (same IDE process, a port
// nobody listens on) beside the new one. `castor ide status` connects to
// the live companion instead of declaring the stale file's refusal.
func TestIDEStatusSkipsStaleFile(t *testing.T) {
	tmp, ws := ideEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := filepath.Join(tmp, "gemini", "ide")
	os.MkdirAll(dir, 0o700)
	// Port 1 in the name: the stale file sorts before the live one.
	stale := filepath.Join(dir, "gemini-ide-server-5151-1.json")
	os.WriteFile(stale, []byte(fmt.Sprintf(`{"port":%d,"workspacePath":%q,"authToken":"old"}`, dead, ws)), 0o600)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := Run(context.Background(), []string{"ide", "serve", "--workspace", ws, "--pid", "5151", "--ide-name", "neovim", "--ide-display-name", "Neovim"},
			IO{Stdin: inR, Stdout: outW, Stderr: io.Discard})
		outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatal("no output from ide serve")
	}
	var ready struct{ Type, DiscoveryFile string }
	if err := json.Unmarshal(lines.Bytes(), &ready); err != nil || ready.Type != "ready" {
		t.Fatalf("first line %s", lines.Text())
	}
	go io.Copy(io.Discard, outR)
	defer func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop at the end of its input")
		}
	}()

	code, out, _ := runCLI(t, "ide", "status")
	if code != ExitOK || !strings.Contains(out, "Connected to Neovim") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, filepath.Base(stale)) && strings.Contains(line, "(selected)"):
			t.Errorf("the stale file is selected: %s", line)
		case strings.Contains(line, filepath.Base(ready.DiscoveryFile)) && !strings.Contains(line, "(selected)"):
			t.Errorf("the live file is not selected: %s", line)
		}
	}
}
