package cli

import (
	"fmt"
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

	inW, discoveryFile, done := startIDEServe(t, ws)
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
		case strings.Contains(line, filepath.Base(discoveryFile)) && !strings.Contains(line, "(selected)"):
			t.Errorf("the live file is not selected: %s", line)
		}
	}
}
