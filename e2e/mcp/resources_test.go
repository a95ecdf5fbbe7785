package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPResourceReferences: "@server:uri" in a prompt sends the MCP
// resource's content with the prompt, as Gemini CLI's @ command does
// (text as is, binary content described), beside the files @path names.
// Before, the reference was sent as typed and the model never saw the
// resource.
func TestMCPResourceReferences(t *testing.T) {
	e := newEnv(t)
	e.write("hello.txt", "hello from the workspace\n")
	writeUserSettings(t, e, map[string]any{"mcpServers": map[string]any{
		"one": helperMCPServer(t, "one"),
		"two": helperMCPServer(t, "two"),
	}})
	var texts []string
	parts := func() string {
		c := e.srv.LastRequest().LastContent()
		texts = texts[:0]
		for _, p := range c.Parts {
			texts = append(texts, p.Text)
		}
		b, _ := json.Marshal(texts)
		return string(b)
	}

	e.srv.Enqueue(fakegemini.Text("ok"))
	if r := e.run("-p", "compare @two:test://notes with @one:test://logo"); r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	got := parts()
	want := []string{
		"compare @two:test://notes with @one:test://logo",
		"\n--- Content from referenced files ---",
		"\nContent from @test://notes:\n", "notes of server two",
		"\nContent from @test://logo:\n", "[Binary resource content image/png, 10 bytes]",
		"\n--- End of content ---",
	}
	if !strings.HasSuffix(got, mustJSON(want)[1:]) {
		t.Errorf("parts\n%s\nwant them to end with\n%s", got, mustJSON(want))
	}

	// With a file: resources first, then the files, closed once.
	e.srv.Enqueue(fakegemini.Text("ok"))
	if r := e.run("-p", "read @hello.txt and @one:test://notes"); r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	got = parts()
	want = []string{
		"read @hello.txt and @one:test://notes",
		"\n--- Content from referenced files ---",
		"\nContent from @test://notes:\n", "notes of server one",
		"\nContent from @hello.txt:\n", "hello from the workspace",
		"\n--- End of content ---",
	}
	if !strings.HasSuffix(got, mustJSON(want)[1:]) {
		t.Errorf("parts\n%s\nwant them to end with\n%s", got, mustJSON(want))
	}

	// A reference to no listed resource stays text (a path, maybe).
	e.srv.Enqueue(fakegemini.Text("ok"))
	if r := e.run("-p", "what is @one:test://missing"); r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if got := parts(); strings.Contains(got, "Content from") {
		t.Errorf("parts %s", got)
	}
}
