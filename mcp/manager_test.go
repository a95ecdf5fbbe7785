package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/tool"
)

// startManager starts a manager over servers and closes it at cleanup.
func startManager(t *testing.T, o Options) (*Manager, *debugLog) {
	t.Helper()
	d := &debugLog{}
	o.Debug = d.add
	o.FolderTrusted = true
	if o.Reserved == nil {
		o.Reserved = func(n string) bool { return n == "read_file" }
	}
	m := Start(context.Background(), o)
	t.Cleanup(func() { _ = m.Close() })
	return m, d
}

func findTool(t *testing.T, m *Manager, name string) tool.Tool {
	t.Helper()
	reg := tool.NewRegistry(m.Tools()...)
	tl, ok := reg.Get(name)
	if !ok {
		t.Fatalf("no tool %q among %v", name, reg.Names())
	}
	return tl
}

// run prepares and executes one call through a registry, as the
// scheduler does.
func run(t *testing.T, m *Manager, name string, args map[string]any) *tool.Result {
	t.Helper()
	reg := tool.NewRegistry(m.Tools()...)
	_, c, terr := reg.Prepare(name, args, nil)
	if terr != nil {
		t.Fatalf("Prepare(%s): %v", name, terr)
	}
	return c.Execute(context.Background(), nil)
}

func responseJSON(t *testing.T, name string, r *tool.Result) []byte {
	t.Helper()
	parts := tool.FunctionResponseParts("call-1", name, r)
	b, err := json.MarshalIndent(parts, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestTransports(t *testing.T) {
	f := startHTTP(t)
	tests := []struct {
		name string
		cfg  *ServerConfig
		want Transport
	}{
		{"stdio", helperConfig(t, "s", "everything"), TransportStdio},
		{"sse", &ServerConfig{Name: "s", URL: f.sseURL, Type: "sse"}, TransportSSE},
		{"http type", &ServerConfig{Name: "s", URL: f.streamURL, Type: "http"}, TransportHTTP},
		{"httpUrl", &ServerConfig{Name: "s", HTTPURL: f.streamURL}, TransportHTTP},
		{"url defaults to http", &ServerConfig{Name: "s", URL: f.streamURL}, TransportHTTP},
		{"url falls back to sse", &ServerConfig{Name: "s", URL: f.sseURL}, TransportSSE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, d := startManager(t, Options{Servers: []*ServerConfig{tt.cfg}})
			st, _ := m.Status("s")
			if st.Status != StatusConnected || st.Transport != tt.want {
				t.Fatalf("status = %+v, want connected over %s\n%s", st, tt.want, d)
			}
			if st.Instructions != "Use echo to test." {
				t.Errorf("instructions = %q", st.Instructions)
			}
			r := run(t, m, "echo", map[string]any{"message": "hi"})
			if r.Error != nil || r.Display != "Echo: hi" || len(r.LLMParts) != 1 || r.LLMParts[0].Text != "<untrusted_context>\nEcho: hi\n</untrusted_context>" {
				t.Errorf("echo = %+v", r)
			}
			// The session must outlive the connect deadline (the SSE
			// stream is tied to a context).
			r = run(t, m, "echo", map[string]any{"message": "again"})
			if r.Error != nil {
				t.Errorf("second echo: %v", r.Error)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	f := startHTTP(t)
	for _, cfg := range []*ServerConfig{
		{Name: "h", URL: f.streamURL, Type: "http", Headers: map[string]string{"X-Api-Key": "k1"}},
		{Name: "h", URL: f.sseURL, Type: "sse", Headers: map[string]string{"X-Api-Key": "k1"}},
	} {
		m, _ := startManager(t, Options{Servers: []*ServerConfig{cfg}})
		if r := run(t, m, "echo", map[string]any{"message": "x"}); r.Error != nil {
			t.Fatal(r.Error)
		}
	}
	if got := f.seen("X-Api-Key"); len(got) < 4 || slices.ContainsFunc(got, func(s string) bool { return s != "k1" }) {
		t.Errorf("X-Api-Key seen %q", got)
	}
}

func TestContentKinds(t *testing.T) {
	f := startHTTP(t)
	m, _ := startManager(t, Options{Servers: []*ServerConfig{{Name: "kinds", URL: f.streamURL, Type: "http"}}})
	for _, name := range []string{"echo", "image", "audio", "resource_text", "resource_blob", "link", "mixed", "empty", "fail"} {
		t.Run(name, func(t *testing.T) {
			args := map[string]any{}
			if name == "echo" {
				args["message"] = "<hello> & \"bye\""
			}
			r := run(t, m, name, args)
			out := struct {
				Parts   json.RawMessage `json:"functionResponseParts"`
				Display string          `json:"display"`
				Error   *tool.Error     `json:"error,omitempty"`
			}{responseJSON(t, name, r), r.Display, r.Error}
			b, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "results/"+name+".golden", append(b, '\n'))
		})
	}
}

// TestWrapUntrusted: text output is fenced by default, for trusted servers
// too (as in Gemini CLI), and only wrapUntrusted: false sends it as is.
func TestWrapUntrusted(t *testing.T) {
	f := startHTTP(t)
	no := false
	yes := true
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"default", ServerConfig{}, "<untrusted_context>\nembedded text\n</untrusted_context>"},
		{"trusted", ServerConfig{Trust: true}, "<untrusted_context>\nembedded text\n</untrusted_context>"},
		{"explicitly on", ServerConfig{WrapUntrusted: &yes}, "<untrusted_context>\nembedded text\n</untrusted_context>"},
		{"off", ServerConfig{Trust: true, WrapUntrusted: &no}, "embedded text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Name, cfg.URL, cfg.Type = "w", f.streamURL, "http"
			m, _ := startManager(t, Options{Servers: []*ServerConfig{&cfg}})
			r := run(t, m, "resource_text", nil)
			if len(r.LLMParts) != 1 || r.LLMParts[0].Text != tt.want {
				t.Errorf("parts = %+v, want one text part %q", r.LLMParts, tt.want)
			}
		})
	}
}

func TestNamesAndSchemas(t *testing.T) {
	f := startHTTP(t)
	m, d := startManager(t, Options{Servers: []*ServerConfig{
		{Name: "one", URL: f.streamURL, Type: "http", ExcludeTools: []string{"crash"}},
		{Name: "two", URL: f.streamURL, Type: "http", IncludeTools: []string{"echo", "link(with args)", "crash"}},
	}})
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name())
	}
	golden.Check(t, "names.golden", []byte(strings.Join(names, "\n")+"\n"))
	// Gemini CLI 0.61 declares a tool with untyped parameters as is.
	if !d.contains("Tool 'untyped' from MCP server 'one' has missing types in its parameter schema; declared as is.") || !slices.Contains(names, "untyped") {
		t.Errorf("untyped tool: names %v, debug:\n%s", names, d)
	}
	if !d.contains("Tool 'recursive' from MCP server 'one' has a cyclic parameter schema") {
		t.Errorf("no debug line for the cyclic schema:\n%s", d)
	}
	// Every spelling reaches the same tool.
	for _, alias := range []string{"one__echo", "mcp_one_echo", "two__echo"} {
		tl := findTool(t, m, alias)
		if tl.(*Tool).ServerToolName() != "echo" {
			t.Errorf("%s → %s", alias, tl.Name())
		}
	}
	r := run(t, m, "mcp_two_echo", map[string]any{"message": "via alias"})
	if r.Error != nil || r.Display != "Echo: via alias" {
		t.Errorf("alias call = %+v", r)
	}
	tl := findTool(t, m, "one__read_file").(*Tool)
	if tl.DisplayName() != "read_file (one MCP Server)" || tl.ServerName() != "one" || tl.Kind() != tool.KindOther {
		t.Errorf("tool = %s %s %s", tl.DisplayName(), tl.ServerName(), tl.Kind())
	}
}

func TestConfirmation(t *testing.T) {
	f := startHTTP(t)
	m, _ := startManager(t, Options{Servers: []*ServerConfig{
		{Name: "plain", URL: f.streamURL, Type: "http", IncludeTools: []string{"echo"}},
		{Name: "trusted", URL: f.streamURL, Type: "http", IncludeTools: []string{"link"}, Trust: true},
	}})
	c, err := findTool(t, m, "echo").Build(map[string]any{"message": "m"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Confirmation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := &tool.ConfirmationDetails{Type: tool.ConfirmMCP, Title: "Confirm MCP Tool Execution", ServerName: "plain",
		ToolName: "echo", ToolDisplayName: "echo (plain MCP Server)", ToolArgs: map[string]any{"message": "m"}}
	if g, w := marshalJS(got), marshalJS(want); g != w {
		t.Errorf("confirmation = %s, want %s", g, w)
	}
	if c.Describe() != `{"message":"m"}` {
		t.Errorf("Describe = %q", c.Describe())
	}
	tl := findTool(t, m, "link").(*Tool)
	if !tl.Trusted() {
		t.Error("trusted server's tool is not Trusted")
	}
	c, _ = tl.Build(nil)
	if got, _ := c.Confirmation(context.Background()); got != nil {
		t.Errorf("trusted server asks for confirmation: %+v", got)
	}
}

func TestUntrustedFolderAndFilter(t *testing.T) {
	f := startHTTP(t)
	servers := []*ServerConfig{
		{Name: "a", URL: f.streamURL, Type: "http", Trust: true},
		{Name: "b", Command: "true"},
		{Name: "c", URL: f.streamURL, Type: "http"},
	}
	m := Start(context.Background(), Options{Servers: servers, Debug: func(string) {}})
	defer m.Close()
	for _, st := range m.Statuses() {
		if st.Status != StatusDisabled || st.Reason == "" {
			t.Errorf("untrusted folder: %s = %s %q", st.Name, st.Status, st.Reason)
		}
	}
	if len(m.Tools()) != 0 {
		t.Errorf("tools in an untrusted folder: %d", len(m.Tools()))
	}
	if _, err := m.GetPrompt(context.Background(), "a", "greet", nil); err == nil {
		t.Error("a disabled server was started for a prompt")
	}

	tests := []struct {
		filter  Filter
		blocked []string
	}{
		{Filter{Allowed: []string{"a"}}, []string{"b", "c"}},
		{Filter{Excluded: []string{"c"}}, []string{"c"}},
		{Filter{Allowed: []string{"a", "c"}, Excluded: []string{"c"}}, []string{"b", "c"}},
		{Filter{Allowed: []string{"a"}, Excluded: []string{"c"}, AllowedNames: []string{"c"}}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		var blocked []string
		for _, s := range servers {
			if ok, why := tt.filter.Blocked(s.Name); ok {
				if why == "" {
					t.Errorf("%+v: no reason for %s", tt.filter, s.Name)
				}
				blocked = append(blocked, s.Name)
			}
		}
		if !slices.Equal(blocked, tt.blocked) {
			t.Errorf("%+v blocks %v, want %v", tt.filter, blocked, tt.blocked)
		}
	}
}

func TestFailingServers(t *testing.T) {
	f := startHTTP(t)
	hang := helperConfig(t, "hang", "hang")
	hang.Timeout = 300 * time.Millisecond
	m, d := startManager(t, Options{Servers: []*ServerConfig{
		hang,
		helperConfig(t, "exits", "exit"),
		helperConfig(t, "empty", "empty"),
		{Name: "missing", Command: filepath.Join(t.TempDir(), "no-such-server")},
		{Name: "refused", URL: "http://127.0.0.1:1/mcp", Type: "http"},
		{Name: "badconfig"},
		{Name: "good", URL: f.streamURL, Type: "http", IncludeTools: []string{"echo"}},
	}})
	want := map[string]string{
		"hang":      "timed out",
		"exits":     "",
		"empty":     "No prompts, tools, or resources found on the server.",
		"missing":   "no-such-server",
		"refused":   "",
		"badconfig": "missing httpUrl",
	}
	for _, st := range m.Statuses() {
		if st.Name == "good" {
			if st.Status != StatusConnected {
				t.Errorf("good = %+v", st)
			}
			continue
		}
		if st.Status != StatusError || !strings.Contains(st.Reason, want[st.Name]) || st.Reason == "" {
			t.Errorf("%s = %s %q, want error containing %q", st.Name, st.Status, st.Reason, want[st.Name])
		}
	}
	if !d.contains("[MCP STDERR (exits)]: fatal: missing configuration") {
		t.Errorf("stderr of the failing server is not in the debug log:\n%s", d)
	}
	if r := run(t, m, "echo", map[string]any{"message": "still here"}); r.Error != nil {
		t.Errorf("the good server suffered: %v", r.Error)
	}
}

func TestCrashMidCallRestarts(t *testing.T) {
	m, d := startManager(t, Options{Servers: []*ServerConfig{helperConfig(t, "crashy", "everything")}})
	if st, _ := m.Status("crashy"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	r := run(t, m, "crash", nil)
	if r.Error == nil || r.Error.Type != tool.ErrMCPToolError ||
		!strings.HasPrefix(r.Error.Message, `MCP tool 'crash' reported tool error for function call: {"name":"crash","args":{}} with response: [{"functionResponse":{"name":"crash","response":{"error":{"message":`) {
		t.Fatalf("crash result = %+v", r.Error)
	}
	if !strings.HasPrefix(r.Display, "Error: MCP tool 'crash' reported an error: MCP server 'crashy'") || !strings.Contains(r.Display, "exited with status 2 during the call") || !strings.Contains(r.Display, "crashing on purpose") {
		t.Errorf("display = %q", r.Display)
	}
	// The model is told the problem, not the command line or the
	// server's stderr, which may hold secrets.
	if !strings.Contains(r.LLMText, "exited with status 2 during the call") || strings.Contains(r.LLMText, "crashing on purpose") {
		t.Errorf("model's text = %q", r.LLMText)
	}
	// The server is restarted on next use.
	r = run(t, m, "echo", map[string]any{"message": "back"})
	if r.Error != nil || r.Display != "Echo: back" {
		t.Fatalf("after crash: %+v\n%s", r, d)
	}
	if st, _ := m.Status("crashy"); st.Status != StatusConnected {
		t.Errorf("status after restart = %+v", st)
	}
	if !d.contains("[MCP STDERR (crashy)]: crashing on purpose") {
		t.Errorf("stderr missing from debug log:\n%s", d)
	}
}

func TestStdioEnvironment(t *testing.T) {
	dir := t.TempDir()
	cfg := helperConfig(t, "env", "env")
	cfg.Cwd = dir
	cfg.Env["FROM_CONFIG"] = "configured"
	m, d := startManager(t, Options{
		Servers: []*ServerConfig{cfg},
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/x", "MY_API_KEY=secret", "PLAIN=1", "GH=ghp_" + strings.Repeat("a", 36)},
	})
	tests := map[string]string{
		"GEMINI_CLI":  `GEMINI_CLI="1" set=true`,
		"FROM_CONFIG": `FROM_CONFIG="configured" set=true`,
		"PLAIN":       `PLAIN="1" set=true`,
		"MY_API_KEY":  `MY_API_KEY="" set=false`,
		"GH":          `GH="" set=false`,
	}
	for name, want := range tests {
		r := run(t, m, "getenv", map[string]any{"name": name})
		if r.Error != nil || !strings.HasPrefix(r.Display, want) {
			t.Errorf("%s: %q, want prefix %q\n%s", name, r.Display, want, d)
		}
		if real, _ := filepath.EvalSymlinks(dir); !strings.HasSuffix(r.Display, "cwd="+real) && !strings.HasSuffix(r.Display, "cwd="+dir) {
			t.Errorf("cwd: %q, want %s", r.Display, dir)
		}
	}
}

func TestPromptsAndResources(t *testing.T) {
	f := startHTTP(t)
	m, _ := startManager(t, Options{Servers: []*ServerConfig{{Name: "p", URL: f.streamURL, Type: "http"}}})
	ps := m.Prompts()
	b, _ := json.MarshalIndent(ps, "", "  ")
	golden.Check(t, "prompts.golden", append(b, '\n'))

	args, err := ParsePromptArgs(`Ada Lovelace`, ps[0].Arguments)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.GetPrompt(context.Background(), "p", "greet", args)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := PromptSubmission(res); err != nil || got != `"Say hello to Ada Lovelace."` {
		t.Errorf("submission = %s, %v", got, err)
	}
	res, err = m.GetPrompt(context.Background(), "p", "no args", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PromptSubmission(res); err != ErrInvalidPromptResponse {
		t.Errorf("image prompt: %v", err)
	}

	var out []string
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{ListResourcesToolName, nil},
		{ListResourcesToolName, map[string]any{"serverName": "p"}},
		{ListResourcesToolName, map[string]any{"serverName": "nope"}},
		{ReadResourceToolName, map[string]any{"uri": "test://readme"}},
		{ReadResourceToolName, map[string]any{"uri": "p:test://logo"}},
		{ReadResourceToolName, map[string]any{"uri": "test://missing"}},
	} {
		r := run(t, m, c.name, c.args)
		et := ""
		if r.Error != nil {
			et = string(r.Error.Type)
		}
		out = append(out, c.name+" "+marshalJS(c.args), "  llm: "+r.ResponseText(), "  display: "+r.Display, "  error: "+et)
	}
	golden.Check(t, "resources.golden", []byte(strings.Join(out, "\n")+"\n"))
}

func TestToolsChangedCallback(t *testing.T) {
	f := startHTTP(t)
	changed := make(chan []tool.Tool, 4)
	m, _ := startManager(t, Options{
		Servers:        []*ServerConfig{{Name: "c", URL: f.streamURL, Type: "http", IncludeTools: []string{"echo"}}},
		OnToolsChanged: func(ts []tool.Tool) { changed <- ts },
	})
	before := len(m.Tools())
	// Simulate a list_changed refresh: the set is the same, so no call.
	m.byName["c"].refresh("tools")
	if len(m.Tools()) != before {
		t.Errorf("tools changed from %d to %d", before, len(m.Tools()))
	}
	select {
	case ts := <-changed:
		t.Errorf("callback with an unchanged set: %d tools", len(ts))
	default:
	}
}
