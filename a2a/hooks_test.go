package a2a_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestNotificationHook: a call that waits for the approval of a client
// that can give it (Gemini CLI's agent settings sent) fires
// the Notification hook (ToolPermission) configured in the user's
// settings, and the session hooks run for the task's session.
func TestNotificationHook(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	log := filepath.Join(root, "hooks.log")
	hook := func(event string) string {
		return `"` + event + `": [{"hooks": [{"type": "command", "command": "cat >> '` + log + `'; echo >> '` + log + `'"}]}]`
	}
	settings := `{"hooks": {` + hook("Notification") + `, ` + hook("SessionStart") + `}}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := fakegemini.Start(t, fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}))
	t.Setenv("GEMINI_CLI_HOME", home)
	srv := startCLIServer(t, fake.URL, ws, root)
	url := srv.url
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": userMessage("write x", map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": ws}}, "")})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	evs := readSSE(t, resp)
	resp.Body.Close()
	if !strings.Contains(summary(evs), "input-required") {
		t.Errorf("stream:\n%s", summary(evs))
	}
	srv.stop()

	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("no hook ran: %v (stderr %s)", err, srv.stderr.String())
	}
	var events []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var in map[string]any
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			t.Fatalf("hook input %q: %v", l, err)
		}
		events = append(events, in["hook_event_name"].(string))
		if in["hook_event_name"] == "Notification" {
			details, _ := in["details"].(map[string]any)
			if in["notification_type"] != "ToolPermission" || details["tool_name"] != "write_file" || in["cwd"] != ws {
				t.Errorf("notification input %s", l)
			}
		}
	}
	if strings.Join(events, ",") != "SessionStart,Notification" {
		t.Errorf("hooks ran: %v\nstderr: %s", events, srv.stderr.String())
	}
}
