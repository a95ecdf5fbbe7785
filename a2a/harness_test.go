package a2a_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/pgstore"
	"github.com/castor-dev/castor/a2a/pgstore/pgtest"
	"github.com/castor-dev/castor/internal/a2asession"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/internal/rrproxy"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/model/gemini"
	"github.com/castor-dev/castor/policy"
)

// harness is a server over the fake model, on loopback.
type harness struct {
	t     testing.TB
	fake  *fakegemini.Server
	srv   *a2a.Server
	ts    *httptest.Server
	ws    string
	home  string
	store a2a.TaskStore
	token string
	// replicaDB, when set, makes the server three replicas on that
	// PostgreSQL database behind a round-robin proxy (targets); replicas
	// are the others, each with its store and loopback server.
	replicaDB string
	replicas  []replica
}

// replica is one of a replica set's servers besides h.srv.
type replica struct {
	srv   *a2a.Server
	ts    *httptest.Server
	store *pgstore.Store
}

// targets are the servers the interop tests run against: "one" server,
// and "replicas", three on one PostgreSQL database (CASTOR_TEST_POSTGRES;
// the subtest skips without it, and fails under CI=true) behind a
// loopback round-robin proxy, so that each request of a client reaches
// the next replica.
var targets = []string{"one", "replicas"}

// newTarget is newHarness for a target.
func newTarget(t *testing.T, target string, opts ...option) *harness {
	t.Helper()
	if target != "replicas" {
		return newHarness(t, opts...)
	}
	db := pgtest.Database(t)
	return newHarnessOn(t, db, opts...)
}

type option func(*a2a.Config)

func withStore(s a2a.TaskStore) option { return func(c *a2a.Config) { c.Store = s } }
func withYOLO() option                 { return func(c *a2a.Config) { c.YOLO = true } }
func withMaxApprovalMode(m policy.Mode) option {
	return func(c *a2a.Config) { c.MaxApprovalMode = m }
}
func withToken(tok string) option    { return func(c *a2a.Config) { c.AuthToken = tok } }
func withLimits(l a2a.Limits) option { return func(c *a2a.Config) { c.Limits = l } }
func withPrivatePush() option        { return func(c *a2a.Config) { c.AllowPrivatePush = true } }

func newHarness(t testing.TB, opts ...option) *harness {
	t.Helper()
	return newHarnessOn(t, "", opts...)
}

// newHarnessOn starts one server, or with replicaDB three replicas on
// that database.
func newHarnessOn(t testing.TB, replicaDB string, opts ...option) *harness {
	t.Helper()
	root := t.TempDir()
	h := &harness{t: t, fake: fakegemini.Start(t), ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), replicaDB: replicaDB}
	for _, d := range []string{h.ws, h.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.start(opts...)
	return h
}

// start (re)starts the server over the same workspace, home and fake.
func (h *harness) start(opts ...option) {
	t := h.t
	m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: h.fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	cfg := a2a.Config{
		Workspace:   h.ws,
		AllowedRoot: filepath.Dir(h.ws),
		HomeDir:     h.home,
		NewSession:  a2asession.Factory(setup.Options{Client: m, HomeDir: h.home, Env: noEnv}),
		Store:       h.store,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if h.replicaDB != "" {
		h.startReplicas(cfg)
		return
	}
	h.store = cfg.Store
	h.token = cfg.AuthToken
	srv, err := a2a.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	h.ts = httptest.NewServer(srv)
	t.Cleanup(h.stop)
}

// startReplicas starts three servers with cfg, each on its own store over
// h.replicaDB, and the round-robin proxy h.ts in front of them.
func (h *harness) startReplicas(cfg a2a.Config) {
	t := h.t
	var targets []*url.URL
	for i := range 3 {
		store, err := pgstore.Open(context.Background(), h.replicaDB, pgstore.Options{Holder: fmt.Sprint("replica-", i), LeaseTTL: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c := cfg
		c.Store = store
		srv, err := a2a.NewServer(c)
		if err != nil {
			t.Fatal(err)
		}
		r := replica{srv: srv, ts: httptest.NewServer(srv), store: store}
		u, _ := url.Parse(r.ts.URL)
		targets = append(targets, u)
		h.replicas = append(h.replicas, r)
	}
	h.srv, h.store, h.token = h.replicas[0].srv, h.replicas[0].store, cfg.AuthToken
	h.ts = httptest.NewServer(rrproxy.New(targets))
	t.Cleanup(h.stop)
}

func (h *harness) stop() {
	if h.ts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if len(h.replicas) > 0 {
		h.ts.Close()
		for _, r := range h.replicas {
			r.srv.Shutdown(ctx)
			r.ts.Close()
			r.store.Close()
		}
		h.replicas, h.ts = nil, nil
		return
	}
	h.srv.Shutdown(ctx)
	h.ts.Close()
	h.ts = nil
}

// rpc sends one JSON-RPC request and decodes the response.
func (h *harness) rpc(method string, params any, headers ...string) map[string]any {
	h.t.Helper()
	resp := h.post("/", map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers...)
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		h.t.Fatalf("%s: decoding response: %v", method, err)
	}
	return out
}

func (h *harness) post(path string, body any, headers ...string) *http.Response {
	h.t.Helper()
	var b []byte
	switch v := body.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		var err error
		if b, err = json.Marshal(body); err != nil {
			h.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(http.MethodPost, h.ts.URL+path, bytes.NewReader(b))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func (h *harness) get(path string) *http.Response {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.ts.URL+path, nil)
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// stream sends message/stream and returns every event's result.
func (h *harness) stream(params any, headers ...string) []map[string]any {
	h.t.Helper()
	resp := h.post("/", map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "message/stream", "params": params}, headers...)
	defer resp.Body.Close()
	return readSSE(h.t, resp)
}

// readSSE reads a whole event stream and checks its framing: each event
// one "data: " line holding a JSON-RPC response, blank-line separated.
func readSSE(t testing.TB, resp *http.Response) []map[string]any {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("not a stream: %s %s", ct, b)
	}
	evs, err := parseSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range evs {
		if ev["error"] != nil {
			t.Fatalf("error event: %v", ev["error"])
		}
		r, _ := ev["result"].(map[string]any)
		out = append(out, r)
	}
	return out
}

// parseSSE splits a stream into its JSON-RPC responses.
func parseSSE(r io.Reader) ([]map[string]any, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []map[string]any
	var data []string
	flush := func() error {
		if len(data) == 0 {
			return nil
		}
		if len(data) > 1 {
			return fmt.Errorf("event with %d data lines", len(data))
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data[0]), &m); err != nil {
			return fmt.Errorf("bad event %q: %v", data[0], err)
		}
		out = append(out, m)
		data = nil
		return nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "event: "):
		default:
			return nil, fmt.Errorf("unexpected line %q", line)
		}
	}
	if len(data) > 0 {
		return nil, fmt.Errorf("unterminated event")
	}
	return out, sc.Err()
}

// userMessage builds message/send params.
func userMessage(text string, meta map[string]any, taskID string, parts ...map[string]any) map[string]any {
	ps := []map[string]any{}
	if text != "" {
		ps = append(ps, map[string]any{"kind": "text", "text": text})
	}
	ps = append(ps, parts...)
	m := map[string]any{"kind": "message", "role": "user", "messageId": fmt.Sprintf("msg-%d", time.Now().UnixNano()), "parts": ps}
	if meta != nil {
		m["metadata"] = meta
	}
	if taskID != "" {
		m["taskId"] = taskID
	}
	return map[string]any{"message": m}
}

func geminiSettings(ws string) map[string]any {
	return map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": ws, "autoExecute": false}}
}

// summary is one line per event, the shape the golden files hold:
// kind, state, coderAgent or extension kind, tool status and final.
func summary(events []map[string]any) string {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString(describe(ev))
		b.WriteByte('\n')
	}
	return b.String()
}

func describe(ev map[string]any) string {
	kind, _ := ev["kind"].(string)
	switch kind {
	case "task":
		st := dig(ev, "status", "state")
		return fmt.Sprintf("task %v history=%d", st, len(asSlice(ev["history"])))
	case "artifact-update":
		return fmt.Sprintf("artifact-update %v", dig(ev, "artifact", "artifactId"))
	}
	parts := []string{kind, fmt.Sprint(dig(ev, "status", "state"))}
	meta, _ := ev["metadata"].(map[string]any)
	if ca, ok := meta["coderAgent"].(map[string]any); ok {
		parts = append(parts, fmt.Sprint(ca["kind"]))
	}
	if ext, ok := meta[a2a.ExtensionURI].(map[string]any); ok {
		parts = append(parts, fmt.Sprint(ext["kind"]))
	}
	for _, p := range asSlice(dig(ev, "status", "message", "parts")) {
		pm, _ := p.(map[string]any)
		switch pm["kind"] {
		case "text":
			parts = append(parts, fmt.Sprintf("text=%q", pm["text"]))
		case "data":
			d, _ := pm["data"].(map[string]any)
			switch {
			case d["request"] != nil:
				s := fmt.Sprintf("tool=%v:%v", dig(d, "request", "name"), d["status"])
				if d["outcome"] != nil {
					s += fmt.Sprintf(" outcome=%v", d["outcome"])
				}
				parts = append(parts, s)
			case d["tool_call_id"] != nil:
				s := fmt.Sprintf("toolcall=%v:%v", d["tool_name"], d["status"])
				if d["confirmation_request"] != nil {
					s += " +confirmation"
				}
				if d["output"] != nil {
					keys := []string{}
					for k := range d["output"].(map[string]any) {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					s += " output=" + strings.Join(keys, ",")
				}
				parts = append(parts, s)
			case d["subject"] != nil:
				parts = append(parts, fmt.Sprintf("thought=%q", d["subject"]))
			}
		}
	}
	if f, _ := ev["final"].(bool); f {
		parts = append(parts, "FINAL")
	}
	return strings.Join(parts, " ")
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// checkGolden compares got with testdata/<name>.golden.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name+".golden", got)
}

// assertUniqueFinalIsLast is Gemini CLI's invariant: exactly one final
// event, the last one.
func assertUniqueFinalIsLast(t *testing.T, events []map[string]any) {
	t.Helper()
	finals := 0
	for i, ev := range events {
		if f, _ := ev["final"].(bool); f {
			finals++
			if i != len(events)-1 {
				t.Errorf("final event %d is not last (%d events)", i, len(events))
			}
		}
	}
	if finals != 1 {
		t.Errorf("%d final events, want 1", finals)
	}
}

func taskID(events []map[string]any) string {
	for _, ev := range events {
		if id, ok := ev["taskId"].(string); ok {
			return id
		}
		if ev["kind"] == "task" {
			return ev["id"].(string)
		}
	}
	return ""
}

// toolCallID returns the id of the first call seen in events.
func toolCallID(events []map[string]any) string {
	for _, ev := range events {
		for _, p := range asSlice(dig(ev, "status", "message", "parts")) {
			d, _ := dig(p, "data").(map[string]any)
			if id, ok := dig(d, "request", "callId").(string); ok {
				return id
			}
			if id, ok := d["tool_call_id"].(string); ok {
				return id
			}
		}
	}
	return ""
}

type limitsT = a2a.Limits

func limitsWith(f func(*a2a.Limits)) a2a.Limits {
	var l a2a.Limits
	f(&l)
	return l
}

// sseStream reads a stream event by event.
type sseStream struct {
	t    testing.TB
	resp *http.Response
	sc   *bufio.Scanner
}

func (h *harness) open(method string, params any, headers ...string) *sseStream {
	h.t.Helper()
	resp := h.post("/", map[string]any{"jsonrpc": "2.0", "id": "o1", "method": method, "params": params}, headers...)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h.t.Fatalf("not a stream: %s", b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	s := &sseStream{t: h.t, resp: resp, sc: sc}
	h.t.Cleanup(func() { resp.Body.Close() })
	return s
}

// next returns the next event's result, or nil at the end of the stream.
func (s *sseStream) next() map[string]any {
	s.t.Helper()
	for s.sc.Scan() {
		line := s.sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line[len("data: "):]), &m); err != nil {
			s.t.Fatal(err)
		}
		r, _ := m["result"].(map[string]any)
		if r == nil {
			s.t.Fatalf("error event: %v", m)
		}
		return r
	}
	return nil
}

// rest reads the events left.
func (s *sseStream) rest() []map[string]any {
	var out []map[string]any
	for ev := s.next(); ev != nil; ev = s.next() {
		out = append(out, ev)
	}
	return out
}

// waitModelCalls waits until the fake model has received n requests.
func (h *harness) waitModelCalls(n int) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(h.fake.Requests()) < n {
		if time.Now().After(deadline) {
			h.t.Fatalf("the model never received %d requests", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type configT = a2a.Config

// noEnv is an empty environment: tasks see no credentials or settings
// from the machine the tests run on.
func noEnv(string) (string, bool) { return "", false }
