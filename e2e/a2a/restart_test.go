package a2a_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a/pgstore/pgtest"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// a2aServer is a running `castor a2a-server` binary (Process, whose
// Stderr is the server's log), or a proxy in front of some (no Process).
type a2aServer struct {
	t *testing.T
	*e2etest.Process
	url string
}

// startA2A starts the built binary on a free loopback port with the file
// store in dir (or the postgres:// store dir names) and any more flags.
func startA2A(e *e2etest.Env, dir string, flags ...string) *a2aServer {
	e.T.Helper()
	store := []string{"--store-dir", dir}
	if strings.HasPrefix(dir, "postgres://") {
		store = []string{"--store", dir}
	}
	p := e.Start(e2etest.Options{}, append(append([]string{"a2a-server", "--port", "0", "--workspace", e.WS, "--allowed-root", filepath.Dir(e.WS)}, store...), flags...)...)
	return &a2aServer{t: e.T, Process: p, url: p.ListenURL()}
}

// post sends one JSON-RPC request; the caller closes the answer's body.
func (s *a2aServer) post(method string, params any) *http.Response {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(s.url, "application/json", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	return resp
}

// call posts one JSON-RPC request; streams are read to their end and
// returned as their events' results.
func (s *a2aServer) call(method string, params any) []map[string]any {
	s.t.Helper()
	resp := s.post(method, params)
	defer resp.Body.Close()
	var out []map[string]any
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			s.t.Fatal(err)
		}
		r, _ := m["result"].(map[string]any)
		if r == nil {
			s.t.Fatalf("%s: %v", method, m)
		}
		return []map[string]any{r}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			s.t.Fatal(err)
		}
		r, _ := m["result"].(map[string]any)
		if r == nil {
			s.t.Fatalf("%s: %v", method, m)
		}
		out = append(out, r)
	}
	return out
}

// stop ends the server with sig and waits for it to exit.
func (s *a2aServer) stop(sig syscall.Signal) {
	s.t.Helper()
	s.Signal(sig)
	_ = s.Wait()
}

func a2aMessage(taskID string, parts ...map[string]any) map[string]any {
	m := map[string]any{"kind": "message", "role": "user", "messageId": fmt.Sprint(time.Now().UnixNano()), "parts": parts}
	if taskID != "" {
		m["taskId"] = taskID
	}
	return map[string]any{"message": m}
}

// TestA2APendingConfirmationSurvivesRestart stops the server binary with
// a confirmation pending (kill -9, and SIGTERM), starts a new one over the
// same store, and approves: the file is written, the turn goes on and the
// history holds the whole conversation.
func TestA2APendingConfirmationSurvivesRestart(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			e := e2etest.New(t)
			store := filepath.Join(filepath.Dir(e.WS), "tasks")
			target := filepath.Join(e.WS, "kept.txt")
			e.Srv.Enqueue(fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "survived\n"}))
			srv := startA2A(e, store)
			// Agent settings: a Gemini CLI-format client that answers
			// confirmations (a plain one's calls are decided at once).
			msg := a2aMessage("", map[string]any{"kind": "text", "text": "write kept.txt"})
			msg["message"].(map[string]any)["metadata"] = map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": e.WS}}
			evs := srv.call("message/stream", msg)
			id, _ := evs[0]["id"].(string)
			var callID string
			for _, ev := range evs {
				if p := a2aParts(ev["status"]); len(p) == 1 && a2aDig(p[0], "data", "status") == "awaiting_approval" {
					callID, _ = a2aDig(p[0], "data", "request", "callId").(string)
				}
			}
			if id == "" || callID == "" {
				t.Fatalf("no pending confirmation in %v", evs)
			}
			srv.stop(sig)

			srv = startA2A(e, store)
			got := srv.call("tasks/get", map[string]any{"id": id})[0]
			p := a2aParts(got["status"])
			if a2aDig(got, "status", "state") != "input-required" || len(p) != 1 || a2aDig(p[0], "data", "request", "callId") != callID {
				t.Fatalf("after the restart tasks/get shows %v", got["status"])
			}
			e.Srv.Enqueue(fakegemini.Text("kept.txt is written."))
			evs = srv.call("message/stream", a2aMessage(id, map[string]any{"kind": "data", "data": map[string]any{"callId": callID, "outcome": "proceed_once"}}))
			if b, err := os.ReadFile(target); err != nil || string(b) != "survived\n" {
				t.Errorf("approved after the restart: file %q, %v", b, err)
			}
			last := evs[len(evs)-1]
			if last["final"] != true || a2aDig(last, "status", "state") != "input-required" {
				t.Errorf("last event %v", last)
			}
			got = srv.call("tasks/get", map[string]any{"id": id})[0]
			hist, _ := json.Marshal(got["history"])
			for _, w := range []string{"write kept.txt", "kept.txt is written."} {
				if !bytes.Contains(hist, []byte(w)) {
					t.Errorf("history lacks %q: %s", w, hist)
				}
			}
			body := string(e.Srv.LastRequest().Body)
			for _, w := range []string{"write kept.txt", "Successfully created and wrote"} {
				if !strings.Contains(body, w) {
					t.Errorf("the continued conversation lacks %q", w)
				}
			}
			srv.stop(syscall.SIGTERM)
		})
	}
}

func a2aParts(v any) []any {
	ps, _ := a2aDig(v, "message", "parts").([]any)
	return ps
}

func a2aDig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestA2AKilledMidAnswerKeepsText kills the server with -9 while an
// answer streams, once the client has read two of its chunks, and starts
// a new one over the same store (the file store, PostgreSQL): the task's
// history holds at least the text the client saw.
func TestA2AKilledMidAnswerKeepsText(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"file", "postgres"} {
		t.Run(store, func(t *testing.T) {
			e := e2etest.New(t)
			dir := filepath.Join(filepath.Dir(e.WS), "tasks")
			if store == "postgres" {
				dir = pgtest.Database(t)
			}
			srv := startA2A(e, dir, "--lease-ttl", "2s")
			e.Srv.Enqueue(fakegemini.Text("The first words, ", "then more words", " never sent").StallAfter(2))
			resp := srv.post("message/stream", a2aMessage("", text("long question")))
			defer resp.Body.Close()
			id, _ := streamUntil(t, resp, "then more words")
			srv.stop(syscall.SIGKILL)

			srv = startA2A(e, dir, "--lease-ttl", "2s")
			got := srv.call("tasks/get", map[string]any{"id": id})[0]
			joined := strings.Join(historyTexts(got), "\n")
			if !strings.Contains(joined, "user: long question\nagent: The first words, then more words") {
				t.Errorf("after kill -9 mid-answer, the history is\n%s", joined)
			}
			srv.stop(syscall.SIGTERM)
		})
	}
}
