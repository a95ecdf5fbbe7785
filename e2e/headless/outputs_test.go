package headless_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestJSONStatsAs061: errorsByType is always written, a failed attempt
// that was retried is a request with an error of its own, and calls that
// ran without confirmation (--yolo) count as accepted.
func TestJSONStatsAs061(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("a.txt", "alpha\n")
	e.Srv.Enqueue(
		fakegemini.Error(503, "overloaded"),
		fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(e.WS, "a.txt")}),
		fakegemini.Text("done"))
	r := e.Run("-y", "-m", "gemini-2.5-pro", "-o", "json", "-p", "read a.txt")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var out struct {
		Stats struct {
			Models map[string]struct {
				API struct {
					TotalRequests int             `json:"totalRequests"`
					TotalErrors   int             `json:"totalErrors"`
					ErrorsByType  *map[string]int `json:"errorsByType"`
				} `json:"api"`
			} `json:"models"`
			Tools struct {
				TotalDecisions map[string]int `json:"totalDecisions"`
			} `json:"tools"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	ok := out.Stats.Models["gemini-fake"]
	if ok.API.TotalRequests != 2 || ok.API.TotalErrors != 0 || ok.API.ErrorsByType == nil || len(*ok.API.ErrorsByType) != 0 {
		t.Errorf("successful model entry: %s", r.Stdout)
	}
	failed := out.Stats.Models["gemini-2.5-pro"]
	if failed.API.TotalRequests != 1 || failed.API.TotalErrors != 1 || failed.API.ErrorsByType == nil || (*failed.API.ErrorsByType)["ApiError"] != 1 {
		t.Errorf("failed attempt entry: %s", r.Stdout)
	}
	if d := out.Stats.Tools.TotalDecisions; d["accept"] != 1 || d["auto_accept"] != 0 {
		t.Errorf("decisions %v", d)
	}
}

// TestStreamJSONToolOutput: tool_result.output is present as in Gemini CLI
// 0.61: absent for list_directory and grep_search, "" for read_file,
// the display text for glob, and present on errors.
func TestStreamJSONToolOutput(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("a.txt", "alpha\n")
	e.Srv.Enqueue(
		fakegemini.Parts(
			fakegemini.CallPart("list_directory", map[string]any{"dir_path": e.WS}),
			fakegemini.CallPart("grep_search", map[string]any{"pattern": "alpha"}),
			fakegemini.CallPart("read_file", map[string]any{"file_path": filepath.Join(e.WS, "a.txt")}),
			fakegemini.CallPart("glob", map[string]any{"pattern": "*.txt"}),
			fakegemini.CallPart("read_file", map[string]any{"file_path": filepath.Join(e.WS, "missing.txt")}),
		),
		fakegemini.Text("done"))
	r := e.Run("-y", "-o", "stream-json", "-p", "look")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var results []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var ev map[string]any
		json.Unmarshal([]byte(l), &ev)
		if ev["type"] == "tool_result" {
			results = append(results, ev)
		}
	}
	if len(results) != 5 {
		t.Fatalf("%d tool results:\n%s", len(results), r.Stdout)
	}
	byTool := map[string][]map[string]any{}
	for _, ev := range results {
		id := ev["tool_id"].(string)
		name := id[:strings.Index(id, "__")]
		byTool[name] = append(byTool[name], ev)
	}
	has := func(ev map[string]any) bool { _, ok := ev["output"]; return ok }
	if has(byTool["list_directory"][0]) || has(byTool["grep_search"][0]) {
		t.Errorf("list_directory/grep_search carry output: %v %v", byTool["list_directory"], byTool["grep_search"])
	}
	// Calls of one batch run in parallel: results come in the order they
	// finish, so the two reads are told apart by their status.
	reads := byTool["read_file"]
	if len(reads) != 2 {
		t.Fatalf("read_file results: %v", reads)
	}
	good, bad := reads[0], reads[1]
	if good["status"] == "error" {
		good, bad = bad, good
	}
	if good["status"] != "success" || good["output"] != "" {
		t.Errorf("read_file result: %v", good)
	}
	if g := byTool["glob"]; len(g) != 1 || !has(g[0]) || g[0]["output"] == "" {
		t.Errorf("glob result: %v", g)
	}
	if bad["status"] != "error" || !has(bad) {
		t.Errorf("failed read: %v", bad)
	}
}

// TestFailedCallStatsKey: a call that fails for good under "auto" is
// counted under the model it went to, not under the alias.
func TestFailedCallStatsKey(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Error(400, "bad request"))
	r := e.Run("-o", "json", "-p", "hi")
	if r.Code == 0 {
		t.Fatalf("exit 0: %s", r.Stdout)
	}
	var out struct {
		Error struct{ Message string } `json:"error"`
		Stats struct {
			Models map[string]struct {
				API struct {
					TotalErrors  int            `json:"totalErrors"`
					ErrorsByType map[string]int `json:"errorsByType"`
				} `json:"api"`
			} `json:"models"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	m, ok := out.Stats.Models["gemini-3.1-pro-preview-customtools"]
	if _, alias := out.Stats.Models["auto"]; alias || !ok || m.API.TotalErrors != 1 || m.API.ErrorsByType["ApiError"] != 1 {
		t.Errorf("stats %s", r.Stdout)
	}
	if !strings.Contains(out.Error.Message, "bad request") {
		t.Errorf("error %q", out.Error.Message)
	}
}
