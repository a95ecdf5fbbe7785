package headless_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// mainModels are the models of the main-loop calls, in order.
func mainModels(srv *fakegemini.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.Model+":"+r.RPC)
	}
	return out
}

// TestModelRouting pins the model names on the wire for the default
// ("auto", routed per prompt by a classifier call) and each alias.
func TestModelRouting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		route  *fakegemini.Reply // nil: the server's default (score 100)
		routes int
		want   string
	}{
		{name: "default routes to pro", routes: 1, want: "gemini-3.1-pro-preview-customtools"},
		{name: "simple prompt routes to flash", route: ptr(fakegemini.Text(`{"complexity_reasoning":"one read","complexity_score":5}`)), routes: 1, want: "gemini-3.8-flash"},
		{name: "router error falls back to pro", route: ptr(fakegemini.Error(400, "no classifier here")), routes: 1, want: "gemini-3.1-pro-preview"},
		{name: "router nonsense falls back to pro", route: ptr(fakegemini.Text(`{"complexity_score":500}`)), routes: 1, want: "gemini-3.1-pro-preview"},
		{name: "explicit auto", args: []string{"-m", "auto"}, routes: 1, want: "gemini-3.1-pro-preview-customtools"},
		{name: "pro", args: []string{"-m", "pro"}, want: "gemini-3.1-pro-preview-customtools"},
		{name: "flash", args: []string{"-m", "flash"}, want: "gemini-3.8-flash"},
		{name: "flash-lite", args: []string{"-m", "flash-lite"}, want: "gemini-3.5-flash-lite"},
		{name: "full name", args: []string{"-m", "gemini-2.5-pro"}, want: "gemini-2.5-pro"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			e.Write("a.txt", "alpha\n")
			e.Srv.Enqueue(fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(e.WS, "a.txt")}), fakegemini.Text("done"))
			if tt.route != nil {
				e.Srv.EnqueueRoute(*tt.route)
			}
			r := e.Run(append(tt.args, "-o", "stream-json", "-p", "read a.txt")...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
			}
			got := mainModels(e.Srv)
			want := []string{tt.want + ":streamGenerateContent", tt.want + ":streamGenerateContent"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("main calls = %v, want %v (one prompt keeps its route)", got, want)
			}
			routes := e.Srv.RouteRequests()
			if len(routes) != tt.routes {
				t.Fatalf("%d routing calls, want %d", len(routes), tt.routes)
			}
			// stream-json's init.model is the name as given.
			var init struct{ Model string }
			json.Unmarshal([]byte(strings.SplitN(r.Stdout, "\n", 2)[0]), &init)
			given := "auto"
			if len(tt.args) == 2 {
				given = tt.args[1]
			}
			if init.Model != given {
				t.Errorf("init.model = %q, want %q", init.Model, given)
			}
			if tt.routes == 0 {
				return
			}
			rt := routes[0]
			if rt.Model != "gemini-3.5-flash-lite" || len(rt.Tools) != 0 || rt.SystemInstruction == nil ||
				rt.GenerationConfig.ResponseMIMEType != "application/json" {
				t.Errorf("routing call %s with tools %d, config %s", rt.Model, len(rt.Tools), e2etest.MustJSON(rt.GenerationConfig))
			}
			// The session context and the prompt, as two user contents.
			if n := len(rt.Contents); n != 2 || !strings.HasPrefix(rt.Contents[0].Parts[0].Text, "<session_context>") || rt.Contents[1].Parts[0].Text != "read a.txt" {
				t.Errorf("routing contents = %s", e2etest.MustJSON(rt.Contents))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestModelPrecedence: GEMINI_MODEL beats model.name from settings, as in
// Gemini CLI 0.61, and -m beats both.
func TestModelPrecedence(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(`{"model":{"name":"gemini-settings"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Srv.Enqueue(fakegemini.Text("one"), fakegemini.Text("two"), fakegemini.Text("three"))
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, nil, "gemini-settings"},
		{[]string{"GEMINI_MODEL=flash"}, nil, "gemini-3.8-flash"},
		{[]string{"GEMINI_MODEL=flash"}, []string{"-m", "gemini-option"}, "gemini-option"},
	} {
		r := e.RunExtraEnv(c.env, append(c.args, "-p", "hi")...)
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		if got := e.Srv.LastRequest().Model; got != c.want {
			t.Errorf("env %v args %v: model %q, want %q", c.env, c.args, got, c.want)
		}
	}
}

// TestRouterStats: the classifier's call is counted in -o json stats under
// the role utility_router.
func TestRouterStats(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.EnqueueRoute(fakegemini.Text(`{"complexity_reasoning":"x","complexity_score":90}`).WithModelVersion("router-version"))
	e.Srv.Enqueue(fakegemini.Text("hello"))
	r := e.Run("-o", "json", "-p", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var out struct {
		Stats struct {
			Models map[string]struct {
				API struct {
					TotalRequests int            `json:"totalRequests"`
					ErrorsByType  map[string]int `json:"errorsByType"`
				} `json:"api"`
				Roles map[string]json.RawMessage `json:"roles"`
			} `json:"models"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	router, ok := out.Stats.Models["router-version"]
	if !ok || router.API.TotalRequests != 1 || router.Roles["utility_router"] == nil {
		t.Errorf("router stats missing: %s", r.Stdout)
	}
	if main := out.Stats.Models["gemini-fake"]; main.Roles["main"] == nil || main.API.TotalRequests != 1 {
		t.Errorf("main stats: %s", r.Stdout)
	}
}

// TestFakeResponsesKeepAlias: with --fake-responses there is no routing
// call, and stream-json's init.model is still the alias as given.
func TestFakeResponsesKeepAlias(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	script := filepath.Join(e.WS, "script.jsonl")
	os.WriteFile(script, []byte(`{"method": "generateContentStream", "response": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "replayed"}]}, "index": 0, "finishReason": "STOP"}]}]}`+"\n"), 0o644)
	r := e.Run("--fake-responses", script, "-o", "stream-json", "-p", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var init struct{ Model string }
	json.Unmarshal([]byte(strings.SplitN(r.Stdout, "\n", 2)[0]), &init)
	if init.Model != "auto" || !strings.Contains(r.Stdout, "replayed") {
		t.Errorf("init.model %q, output %s", init.Model, r.Stdout)
	}
	if n := len(e.Srv.RouteRequests()) + len(e.Srv.Requests()); n != 0 {
		t.Errorf("%d calls reached the server", n)
	}
}
