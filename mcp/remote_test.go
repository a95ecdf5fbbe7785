package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRemoteServerGoneGivesUpSoon: a streamable HTTP server that goes
// away during a call is tried again twice, as Gemini CLI's transport
// does, before the call fails (the Go SDK's default is five tries, which
// kept the call waiting for 13 to 20 seconds).
func TestRemoteServerGoneGivesUpSoon(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "going", Version: "1"}, nil)
	started := make(chan struct{}, 1)
	srv.AddTool(&sdk.Tool{Name: "wait", InputSchema: objectSchema(map[string]any{})},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			return textResult("never"), nil
		})
	// An event store makes the server's streams resumable, as
	// server-everything's are: the client then tries to resume a broken
	// one instead of failing at once.
	opts := &sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, opts))
	t.Cleanup(hs.Close)
	m, d := startManager(t, Options{Servers: []*ServerConfig{{Name: "going", HTTPURL: hs.URL + "/mcp"}}})
	if st, _ := m.Status("going"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	go func() {
		<-started
		// Nothing listens there any more, and the call's stream breaks.
		hs.Listener.Close()
		hs.CloseClientConnections()
	}()
	r := run(t, m, "wait", nil)
	if r.Error == nil {
		t.Fatal("the call succeeded")
	}
	if st, _ := m.Status("going"); !strings.Contains(st.Reason, "after 2 attempts") {
		t.Errorf("status reason = %q", st.Reason)
	}
	// Said in plain words, with the server's URL for the user.
	want := "MCP server 'going' (" + hs.URL + "/mcp): the connection broke during the call, and reconnecting failed: connection refused: nothing is listening there (is the server running?)"
	if !strings.Contains(r.Display, want) {
		t.Errorf("display = %s\nwant it to hold %s", r.Display, want)
	}
}
