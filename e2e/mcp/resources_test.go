package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPResourceReferences: "@server:uri" in a prompt sends the MCP
// resource's content with the prompt, as Gemini CLI's @ command does
// (text as is, binary content described), beside the files @path names.
// Before, the reference was sent as typed and the model never saw the
// resource.
func TestMCPResourceReferences(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("hello.txt", "hello from the workspace\n")
	e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{
		"one": e2etest.HelperMCPServer(t, "one"),
		"two": e2etest.HelperMCPServer(t, "two"),
	}})
	var texts []string
	parts := func() string {
		c := e.Srv.LastRequest().LastContent()
		texts = texts[:0]
		for _, p := range c.Parts {
			texts = append(texts, p.Text)
		}
		b, _ := json.Marshal(texts)
		return string(b)
	}

	e.Srv.Enqueue(fakegemini.Text("ok"))
	if r := e.Run("-p", "compare @two:test://notes with @one:test://logo"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	got := parts()
	want := []string{
		"compare @two:test://notes with @one:test://logo",
		"\n--- Content from referenced files ---",
		"\nContent from @test://notes:\n", "notes of server two",
		"\nContent from @test://logo:\n", "[Binary resource content image/png, 10 bytes]",
		"\n--- End of content ---",
	}
	if !strings.HasSuffix(got, e2etest.MustJSON(want)[1:]) {
		t.Errorf("parts\n%s\nwant them to end with\n%s", got, e2etest.MustJSON(want))
	}

	// With a file: resources first, then the files, closed once.
	e.Srv.Enqueue(fakegemini.Text("ok"))
	if r := e.Run("-p", "read @hello.txt and @one:test://notes"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	got = parts()
	want = []string{
		"read @hello.txt and @one:test://notes",
		"\n--- Content from referenced files ---",
		"\nContent from @test://notes:\n", "notes of server one",
		"\nContent from @hello.txt:\n", "hello from the workspace",
		"\n--- End of content ---",
	}
	if !strings.HasSuffix(got, e2etest.MustJSON(want)[1:]) {
		t.Errorf("parts\n%s\nwant them to end with\n%s", got, e2etest.MustJSON(want))
	}

	// A reference to no listed resource stays text (a path, maybe).
	e.Srv.Enqueue(fakegemini.Text("ok"))
	if r := e.Run("-p", "what is @one:test://missing"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if got := parts(); strings.Contains(got, "Content from") {
		t.Errorf("parts %s", got)
	}
}
