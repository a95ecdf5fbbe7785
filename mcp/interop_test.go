package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/tool"
)

// The interop tests run the real npm servers pinned in
// internal/npmtest/testdata (npm ci --ignore-scripts there). Text
// output reaches the model fenced in <untrusted_context>, as for every
// server without wrapUntrusted: false.

func TestInteropServerEverything(t *testing.T) {
	node, entry := npmtest.Server(t, "server-everything")
	sse := npmtest.StartHTTP(t, node, entry, "sse")
	stream := npmtest.StartHTTP(t, node, entry, "streamableHttp")
	tests := []struct {
		name string
		cfg  *ServerConfig
		want Transport
	}{
		{"stdio", &ServerConfig{Name: "everything", Command: node, Args: []string{entry, "stdio"}}, TransportStdio},
		{"sse", &ServerConfig{Name: "everything", URL: fmt.Sprintf("http://127.0.0.1:%d/sse", sse), Type: "sse"}, TransportSSE},
		{"sse by fallback", &ServerConfig{Name: "everything", URL: fmt.Sprintf("http://127.0.0.1:%d/sse", sse)}, TransportSSE},
		{"streamable http", &ServerConfig{Name: "everything", HTTPURL: fmt.Sprintf("http://127.0.0.1:%d/mcp", stream)}, TransportHTTP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, d := startManager(t, Options{Servers: []*ServerConfig{tt.cfg}})
			st, _ := m.Status("everything")
			if st.Status != StatusConnected || st.Transport != tt.want {
				t.Fatalf("status = %s %q over %s\n%s", st.Status, st.Reason, st.Transport, d)
			}

			r := run(t, m, "echo", map[string]any{"message": "hello"})
			parts := tool.FunctionResponseParts("c1", "echo", r)
			if r.Error != nil || len(parts) != 2 || parts[1].Text != "<untrusted_context>\nEcho: hello\n</untrusted_context>" ||
				parts[0].FunctionResponse.Response["output"] != "Tool execution succeeded." {
				t.Errorf("echo: %+v", r)
			}

			r = run(t, m, "get-sum", map[string]any{"a": 2, "b": 3})
			if r.Error != nil || r.Display != "The sum of 2 and 3 is 5." {
				t.Errorf("get-sum: %+v", r)
			}

			r = run(t, m, "get-tiny-image", nil)
			if r.Error != nil || len(r.LLMParts) != 4 {
				t.Fatalf("get-tiny-image: %+v", r)
			}
			if got := r.LLMParts[1].Text; got != "[Tool 'get-tiny-image' provided the following image data with mime-type: image/png]" {
				t.Errorf("caption = %q", got)
			}
			img := r.LLMParts[2].InlineData
			if img == nil || img.MIMEType != "image/png" || !strings.HasPrefix(base64.StdEncoding.EncodeToString(img.Data), "iVBORw0KGgo") {
				t.Errorf("image part = %+v", img)
			}
			if r.Display != "Here's the image you requested:\n[Image: image/png]\nThe image above is the MCP logo." {
				t.Errorf("display = %q", r.Display)
			}

			if len(m.Prompts()) == 0 || len(m.Resources()) == 0 {
				t.Errorf("prompts %d, resources %d", len(m.Prompts()), len(m.Resources()))
			}
		})
	}
}

func TestInteropServerFilesystem(t *testing.T) {
	node, entry := npmtest.Server(t, "server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("castor was here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, d := startManager(t, Options{Servers: []*ServerConfig{{Name: "fs", Command: node, Args: []string{entry, dir}}}})
	if st, _ := m.Status("fs"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	r := run(t, m, "read_text_file", map[string]any{"path": filepath.Join(dir, "note.txt")})
	parts := tool.FunctionResponseParts("c1", "read_text_file", r)
	if r.Error != nil || len(parts) != 2 || parts[1].Text != "<untrusted_context>\ncastor was here\n\n</untrusted_context>" {
		t.Errorf("read_text_file: %+v", r)
	}
	r = run(t, m, "read_text_file", map[string]any{"path": "/etc/passwd"})
	if r.Error == nil || r.Error.Type != tool.ErrMCPToolError || !strings.Contains(r.Error.Message, "Access denied") {
		t.Errorf("outside the allowed directory: %+v", r.Error)
	}
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name())
	}
	if !strings.Contains(strings.Join(names, ","), "list_directory") {
		t.Errorf("tools = %v", names)
	}
}

// TestInteropElicitation answers server-everything's elicitation tools,
// which register only for a client that offers elicitation: its form has
// every kind of field (formats, ranges, single and multiple choices), and
// its URL tool asks the user to open a page.
func TestInteropElicitation(t *testing.T) {
	node, entry := npmtest.Server(t, "server-everything")
	var asked []ElicitRequest
	elicit := func(_ context.Context, req ElicitRequest) (ElicitResult, error) {
		asked = append(asked, req)
		if req.Mode == ElicitURL {
			return ElicitResult{Action: ElicitAccept}, nil
		}
		// A user who types a name, ticks the box, picks two instruments
		// and leaves the rest as it is.
		content := map[string]any{}
		typed := map[string]string{"name": "Ada", "check": "yes", "untitledMultipleSelectEnum": "Piano, drums"}
		for _, f := range ElicitFields(req.Schema) {
			v, err := f.ParseValue(typed[f.Name])
			if err != nil {
				return ElicitResult{}, err
			}
			if v != nil {
				content[f.Name] = v
			}
		}
		return ElicitResult{Action: ElicitAccept, Content: content}, nil
	}
	m, d := startManager(t, Options{Servers: []*ServerConfig{{Name: "everything", Command: node, Args: []string{entry, "stdio"}}}, Elicit: elicit})
	if st, _ := m.Status("everything"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	r := run(t, m, "trigger-elicitation-request", map[string]any{})
	got := resultText(r)
	for _, want := range []string{"User provided the requested information", "- Name: Ada", "- Agreed to terms: true", "- Favorite Integer: 42", "- Favorite Number: 3.14"} {
		if !strings.Contains(got, want) {
			t.Errorf("result lacks %q:\n%s\n%s", want, got, d)
		}
	}
	if len(asked) != 1 || len(ElicitFields(asked[0].Schema)) < 10 || asked[0].Server != "everything" {
		t.Fatalf("asked %+v", asked)
	}

	r = run(t, m, "trigger-url-elicitation", map[string]any{"url": "https://example.com/connect", "message": "Connect your account"})
	if r.Error != nil || len(asked) != 2 || asked[1].Mode != ElicitURL || asked[1].URL != "https://example.com/connect" {
		t.Errorf("url elicitation: %s; asked %+v\n%s", resultText(r), asked, d)
	}
	t.Logf("url tool answered: %s", resultText(r))
}
