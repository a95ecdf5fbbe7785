package mcp

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStartThreeStdio measures a session's MCP start with three stdio
// servers configured: spawn, initialize and discovery of all three, which
// run concurrently.
func BenchmarkStartThreeStdio(b *testing.B) {
	cfgs := []*ServerConfig{helperConfig(b, "a", "everything"), helperConfig(b, "b", "everything"), helperConfig(b, "c", "everything")}
	for b.Loop() {
		m := Start(context.Background(), Options{Servers: cfgs, FolderTrusted: true, Debug: func(string) {}})
		b.StopTimer()
		for _, st := range m.Statuses() {
			if st.Status != StatusConnected {
				b.Fatalf("%s: %s %s", st.Name, st.Status, st.Reason)
			}
		}
		_ = m.Close()
		b.StartTimer()
	}
}

// BenchmarkCallStdio compares one echo call through Castor's bridge (name
// lookup, reconnect check, result conversion) with the same call made
// directly on the SDK session, over stdio; the difference is what Castor
// adds to the server's own time.
func BenchmarkCallStdio(b *testing.B) {
	m := Start(context.Background(), Options{Servers: []*ServerConfig{helperConfig(b, "s", "everything")}, FolderTrusted: true, Debug: func(string) {}})
	defer m.Close()
	var echo *Tool
	for _, tl := range m.Tools() {
		if tl.Name() == "echo" {
			echo = tl.(*Tool)
		}
	}
	if echo == nil {
		b.Fatal("no echo tool")
	}
	args := map[string]any{"message": "bench"}
	b.Run("castor", func(b *testing.B) {
		for b.Loop() {
			c, _ := echo.Build(args)
			if r := c.Execute(context.Background(), nil); r.Error != nil {
				b.Fatal(r.Error)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		cs, err := m.byName["s"].ensure(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
