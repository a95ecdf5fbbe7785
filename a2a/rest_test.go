package a2a_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/policy"
)

func decode(t *testing.T, resp *http.Response) any {
	t.Helper()
	defer resp.Body.Close()
	var v any
	b, _ := io.ReadAll(resp.Body)
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return v
}

func TestRESTTasks(t *testing.T) {
	h := newHarness(t)
	resp := h.get("/tasks/metadata")
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("empty metadata list: HTTP %d", resp.StatusCode)
	}
	resp.Body.Close()
	resp = h.post("/tasks", map[string]any{"agentSettings": map[string]any{"kind": "agent-settings", "workspacePath": h.ws}, "contextId": "ctx-1"})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /tasks: HTTP %d", resp.StatusCode)
	}
	id, _ := decode(t, resp).(string)
	if id == "" {
		t.Fatal("POST /tasks did not return the id as a JSON string")
	}
	md := decode(t, h.get("/tasks/"+id+"/metadata"))
	if dig(md, "metadata", "contextId") != "ctx-1" || len(asSlice(dig(md, "metadata", "availableTools"))) == 0 {
		t.Errorf("metadata = %v", md)
	}
	if tools := asSlice(dig(md, "metadata", "availableTools")); dig(tools[0], "parameterSchema") == nil {
		t.Errorf("tool without schema: %v", tools[0])
	}
	if all, _ := decode(t, h.get("/tasks/metadata")).([]any); len(all) != 1 {
		t.Errorf("GET /tasks/metadata = %v", all)
	}
	resp = h.get("/tasks/nope/metadata")
	if resp.StatusCode != http.StatusNotFound || dig(decode(t, resp), "error") != "Task not found" {
		t.Errorf("unknown task metadata: HTTP %d", resp.StatusCode)
	}
	// Run a turn on the REST-created task through POST /tasks/{id}/execute.
	h.fake.Enqueue(fakegemini.Text("hello from execute"))
	resp = h.post("/tasks/"+id+"/execute", map[string]any{"message": "hi"})
	evs := readSSE(t, resp)
	resp.Body.Close()
	assertUniqueFinalIsLast(t, evs)
	if !strings.Contains(summary(evs), "hello from execute") {
		t.Errorf("execute stream:\n%s", summary(evs))
	}
	list := decode(t, h.get("/tasks"))
	if len(asSlice(dig(list, "tasks"))) != 1 {
		t.Errorf("GET /tasks = %v", list)
	}
	one := decode(t, h.get("/tasks/"+id))
	if dig(one, "state") != "input-required" || len(asSlice(dig(one, "history"))) != 2 {
		t.Errorf("GET /tasks/{id} = %v", one)
	}
	if resp := h.get("/tasks/nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET unknown task: HTTP %d", resp.StatusCode)
	}
	health := decode(t, h.get("/health"))
	if dig(health, "status") != "healthy" || dig(health, "totalTasks") != float64(1) {
		t.Errorf("health = %v", health)
	}
	// A workspace outside the allowed root is refused.
	resp = h.post("/tasks", map[string]any{"agentSettings": map[string]any{"workspacePath": "/"}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("outside root: HTTP %d", resp.StatusCode)
	}
	resp.Body.Close()
}

func TestRESTCommands(t *testing.T) {
	h := newHarness(t)
	lc := decode(t, h.get("/listCommands"))
	var names []string
	var memory any
	for _, c := range asSlice(dig(lc, "commands")) {
		names = append(names, dig(c, "name").(string))
		if dig(c, "name") == "memory" {
			memory = c
		}
	}
	if strings.Join(names, ",") != "extensions,init,memory,restore" {
		t.Errorf("commands = %v", names)
	}
	subs := asSlice(dig(memory, "subCommands"))
	if len(subs) != 4 || dig(subs[0], "name") != "memory show" {
		t.Errorf("memory sub-commands = %v", subs)
	}
	for _, tt := range []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"missing command", `{}`, 400, "Invalid"},
		{"command not string", `{"command":3}`, 400, "Invalid"},
		{"args not array", `{"command":"memory show","args":"x"}`, 400, `field must be an array.`},
		{"unknown", `{"command":"teleport"}`, 404, "Command not found: teleport"},
		{"extensions", `{"command":"extensions list"}`, 200, "No extensions installed."},
		{"memory add", `{"command":"memory add","args":["likes","Go"]}`, 200, "likes Go"},
		{"memory show", `{"command":"memory show"}`, 200, "likes Go"},
		{"memory list", `{"command":"memory list"}`, 200, "GEMINI.md"},
		{"memory default", `{"command":"memory"}`, 200, "Current memory content"},
		{"bad json", `{`, 400, "invalid JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.post("/executeCommand", tt.body)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var v any
			json.Unmarshal(b, &v)
			if resp.StatusCode != tt.status || !strings.Contains(toJSON(v), tt.want) && !strings.Contains(string(b), tt.want) {
				t.Errorf("HTTP %d %s, want %d containing %q", resp.StatusCode, b, tt.status, tt.want)
			}
		})
	}
}

func TestRESTInitStreams(t *testing.T) {
	h := newHarness(t, withMaxApprovalMode(policy.ModeAutoEdit))
	h.fake.Enqueue(fakegemini.Call("write_file", map[string]any{"file_path": filepath.Join(h.ws, "GEMINI.md"), "content": "# Project\n"}), fakegemini.Text("Wrote GEMINI.md."))
	resp := h.post("/executeCommand", `{"command":"init"}`)
	evs := readSSE(t, resp)
	resp.Body.Close()
	assertUniqueFinalIsLast(t, evs)
	if b, _ := os.ReadFile(filepath.Join(h.ws, "GEMINI.md")); string(b) != "# Project\n" {
		t.Fatalf("GEMINI.md = %q\n%s", b, summary(evs))
	}
	if req := h.fake.Requests()[0]; !strings.Contains(string(req.Body), "generate a comprehensive GEMINI.md") {
		t.Error("init prompt not sent")
	}
	// With GEMINI.md present, one final completed event.
	resp = h.post("/executeCommand", `{"command":"init"}`)
	evs = readSSE(t, resp)
	resp.Body.Close()
	checkGolden(t, "rest-init-exists", summary(evs))
}

// TestInitWithinCeiling: /init's auto_edit is bounded by the server's
// MaxApprovalMode like autoExecute: under the default ceiling a client
// running /init cannot have files written unasked.
func TestInitWithinCeiling(t *testing.T) {
	h := newHarness(t)
	target := filepath.Join(h.ws, "GEMINI.md")
	h.fake.Enqueue(fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "# Project\n"}), fakegemini.Text("Wrote GEMINI.md."))
	resp := h.post("/executeCommand", `{"command":"init"}`)
	evs := readSSE(t, resp)
	resp.Body.Close()
	if b, _ := os.ReadFile(target); string(b) == "# Project\n" {
		t.Fatalf("/init wrote GEMINI.md without approval under the default ceiling\n%s", summary(evs))
	}
}

func TestRESTWorkspaceRequired(t *testing.T) {
	h := newHarness(t, func(c *configT) { c.Workspace = "" })
	// Gemini CLI asks for a workspace on the top-level command only.
	resp := h.post("/executeCommand", `{"command":"memory"}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "requires a workspace") {
		t.Errorf("HTTP %d %s", resp.StatusCode, b)
	}
	if resp := h.post("/executeCommand", `{"command":"extensions"}`); resp.StatusCode != 200 {
		t.Errorf("extensions needs no workspace: HTTP %d", resp.StatusCode)
	}
}

// TestRESTUnreadableTask: a stored task the server cannot read is a
// server error naming the file on the REST routes, as on JSON-RPC, not a
// 404 telling the client the task does not exist.
func TestRESTUnreadableTask(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, withStore(openFileStore(t, dir)))
	resp := h.post("/tasks", map[string]any{"agentSettings": map[string]any{"kind": "agent-settings", "workspacePath": h.ws}})
	id, _ := decode(t, resp).(string)
	h.stop()
	if err := os.WriteFile(filepath.Join(dir, "tasks", id, "state.json"), []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.start(withStore(openFileStore(t, dir)))
	for _, path := range []string{"/tasks/" + id, "/tasks/" + id + "/metadata"} {
		resp := h.get(path)
		body, _ := decode(t, resp).(map[string]any)
		if msg, _ := body["error"].(string); resp.StatusCode != http.StatusInternalServerError || !strings.Contains(msg, "state.json") {
			t.Errorf("GET %s: HTTP %d %v, want 500 naming state.json", path, resp.StatusCode, body)
		}
	}
	resp = h.get("/tasks/no-such-task")
	if body := decode(t, resp); resp.StatusCode != http.StatusNotFound || body.(map[string]any)["error"] != "Task not found" {
		t.Errorf("unknown task: HTTP %d %v", resp.StatusCode, body)
	}
}
