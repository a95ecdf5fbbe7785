package setup

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/model/fake"
)

// TestOnCommandsChanged: a prompts/list_changed that adds a prompt calls
// the listeners once, after the registry holds the new command; one that
// leaves the commands as they were (the same prompt registered again)
// calls nothing, so an ACP editor is not resent its list for nothing.
func TestOnCommandsChanged(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "live", Version: "1"}, nil)
	srv.AddPrompt(promptOf("alpha"))
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	a, err := New(context.Background(), Options{
		WorkDir: t.TempDir(), HomeDir: t.TempDir(), IgnoreSettings: true,
		Client:     fake.Script(),
		Env:        envOf(func(string) string { return "" }),
		MCPServers: map[string]any{"live": map[string]any{"httpUrl": hs.URL, "trust": true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var calls atomic.Int32
	var sawBeta atomic.Bool
	a.OnCommandsChanged(func() {
		c, _, _ := a.Commands.Lookup("beta")
		sawBeta.Store(c != nil)
		calls.Add(1)
	})
	a.OnCommandsChanged(nil) // ignored

	srv.AddPrompt(promptOf("beta"))
	waitFor(t, "the listener hears of beta", func() bool { return calls.Load() > 0 })
	if !sawBeta.Load() {
		t.Error("the listener ran before the registry held /beta")
	}
	// A refresh that finds the prompts as they were (a reconnect, a
	// list_changed that changed nothing) tells no one.
	a.expand.mcpCommands.refresh()
	if n := calls.Load(); n != 1 {
		t.Errorf("listener called %d times, want 1", n)
	}
}

// A session without MCP servers has nothing to follow.
func TestOnCommandsChangedWithoutMCP(t *testing.T) {
	var a *Agent
	a.OnCommandsChanged(func() { t.Error("called") })
	(&Agent{}).OnCommandsChanged(func() { t.Error("called") })
}

func TestSameCommands(t *testing.T) {
	cmd := func(name, desc string, args ...string) *command.Command {
		c := &command.Command{Name: name, Description: desc}
		for _, a := range args {
			c.Arguments = append(c.Arguments, command.Argument{Name: a})
		}
		return c
	}
	for _, tt := range []struct {
		name string
		a, b []*command.Command
		want bool
	}{
		{"both empty", nil, []*command.Command{}, true},
		{"same", []*command.Command{cmd("a", "A", "x")}, []*command.Command{cmd("a", "A", "x")}, true},
		{"added", []*command.Command{cmd("a", "A")}, []*command.Command{cmd("a", "A"), cmd("b", "B")}, false},
		{"renamed", []*command.Command{cmd("a", "A")}, []*command.Command{cmd("s.a", "A")}, false},
		{"redescribed", []*command.Command{cmd("a", "A")}, []*command.Command{cmd("a", "B")}, false},
		{"argument renamed", []*command.Command{cmd("a", "A", "x")}, []*command.Command{cmd("a", "A", "y")}, false},
	} {
		if got := sameCommands(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: sameCommands = %v, want %v", tt.name, got, tt.want)
		}
	}
}
