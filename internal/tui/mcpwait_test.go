package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/model/fake"
)

// waitingFor gives the test model a session whose MCP servers named
// names have not answered yet (never started), the last one excluded by
// mcp.excluded.
func waitingFor(t *testing.T, m *model, names ...string) {
	t.Helper()
	a := withSession(t, m)
	a.Commands = command.DefaultRegistry()
	var servers []*mcp.ServerConfig
	for _, n := range names {
		servers = append(servers, &mcp.ServerConfig{Name: n, URL: "http://127.0.0.1:1/mcp"})
	}
	a.MCP = mcp.New(mcp.Options{Servers: servers, FolderTrusted: true, Filter: mcp.Filter{Excluded: names[len(names)-1:]}, Debug: func(string) {}})
	m.mcpWaiting = true
}

// TestMCPStatusLine: the live area names the servers awaited as Gemini
// CLI's start-up display does, at most three, without the blocked one.
func TestMCPStatusLine(t *testing.T) {
	tests := []struct {
		servers []string
		queued  int
		want    string
	}{
		{[]string{"slow", "off"}, 0, "Connecting to MCP servers... (0/1) - Waiting for: slow"},
		{[]string{"a", "b", "c", "d", "e", "off"}, 0, "Connecting to MCP servers... (0/5) - Waiting for: a, b, c, +2 more"},
		{[]string{"slow", "off"}, 2, "Connecting to MCP servers... (0/1) - Waiting for: slow · 2 queued"},
	}
	for _, tt := range tests {
		m, _ := newTestModel(t)
		waitingFor(t, m, tt.servers...)
		m.queued = make([]string, tt.queued)
		got := ansi.Strip(m.mcpStatusLine())
		if !strings.HasSuffix(got, " "+tt.want) {
			t.Errorf("%v: %q, want it to end with %q", tt.servers, got, tt.want)
		}
		if w := ansi.StringWidth(got); w > m.width {
			t.Errorf("%v: %d columns wide", tt.servers, w)
		}
	}
}

// TestPromptHeldForMCP: while MCP servers connect, a prompt is held with
// Gemini CLI's notice, said once; slash commands still run.
func TestPromptHeldForMCP(t *testing.T) {
	m, log := newTestModel(t)
	waitingFor(t, m, "slow", "off")
	m.submit("first", false)
	m.submit("second", false)
	if m.running || len(m.queued) != 2 {
		t.Fatalf("running %v, queued %q", m.running, m.queued)
	}
	if n := strings.Count(printed(log), mcpWaitNotice); n != 1 {
		t.Errorf("the notice was said %d times:\n%s", n, printed(log))
	}
	m.submit("/about", false)
	if !strings.Contains(printed(log), "Castor") || len(m.queued) != 2 {
		t.Errorf("/about did not run while MCP servers connect:\n%s", printed(log))
	}
	m.submit("/no_such_prompt", false)
	if !strings.Contains(printed(log), "MCP servers are still connecting") {
		t.Errorf("an unknown command does not say the servers' prompts are not in yet:\n%s", printed(log))
	}
	view := ansi.Strip(m.View().Content)
	if !strings.Contains(view, "Waiting for: slow · 2 queued") {
		t.Errorf("live area:\n%s", view)
	}
	// The spinner keeps turning while the servers connect.
	if _, cmd := m.Update(m.spin.Tick()); cmd == nil {
		t.Error("the spinner stopped while MCP servers connect")
	}
	m.running = true // the held prompts must not start under a running turn
	m.Update(mcpReadyMsg{})
	if m.mcpWaiting || len(m.queued) != 2 {
		t.Errorf("after the servers: waiting %v, queued %d", m.mcpWaiting, len(m.queued))
	}
	if strings.Contains(ansi.Strip(m.View().Content), "Connecting to MCP") {
		t.Error("the MCP status stayed in the live area")
	}
}

// TestHeldPromptsJoined: the prompts held for the MCP servers go to the
// model as one prompt once the servers are in, in the order typed and
// separated by a blank line, as Gemini CLI's message queue sends them,
// not one turn each.
func TestHeldPromptsJoined(t *testing.T) {
	m, _ := newTestModel(t)
	waitingFor(t, m, "slow", "off")
	answer := []*genai.GenerateContentResponse{{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText("ok", genai.RoleModel), FinishReason: genai.FinishReasonStop}}}}
	m.agent.Session = agent.New(agent.Config{ModelName: "gemini-2.5-pro", Model: fake.New([]fake.Entry{{Method: fake.MethodGenerateContentStream, Stream: answer}}, false)})
	done := make(chan struct{})
	m.send = func(msg tea.Msg) {
		if _, ok := msg.(turnDoneMsg); ok {
			close(done)
		}
	}
	m.submit("first", false)
	m.submit("  second\n", false)
	m.submit("third", false)
	m.Update(mcpReadyMsg{})
	if !m.running || m.turnGen != 1 || len(m.queued) != 0 {
		t.Errorf("after the servers: running %v, turns %d, still queued %q", m.running, m.turnGen, m.queued)
	}
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang, not a timing assertion
		t.Fatal("the turn did not end")
	}
	var sent []string
	for _, c := range m.agent.Session.History() {
		if c.Role == genai.RoleUser {
			for _, p := range c.Parts {
				sent = append(sent, p.Text)
			}
		}
	}
	if want := "first\n\nsecond\n\nthird"; !slices.Contains(sent, want) {
		t.Errorf("the model was sent %q, want one prompt %q", sent, want)
	}
}

func TestJoinQueued(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"one"}, "one"},
		{[]string{"first", "  second\n", "third"}, "first\n\nsecond\n\nthird"},
		{[]string{"a\nb", " ", "c"}, "a\nb\n\nc"},
	}
	for _, tt := range tests {
		if got := joinQueued(tt.in); got != tt.want {
			t.Errorf("joinQueued(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
