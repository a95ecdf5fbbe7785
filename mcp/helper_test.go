package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server: run with
// CASTOR_MCP_HELPER=<kind> it serves on stdin/stdout instead of testing.
const helperEnv = "CASTOR_MCP_HELPER"

func TestMain(m *testing.M) {
	if kind := os.Getenv(helperEnv); kind != "" {
		os.Exit(runHelper(kind))
	}
	os.Exit(m.Run())
}

// runHelper is the body of the helper server process.
func runHelper(kind string) int {
	fmt.Fprintf(os.Stderr, "helper %s starting\n", kind)
	switch kind {
	case "hang":
		// Read requests and never answer, as a server stuck at initialize.
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: missing configuration")
		return 3
	case "banner":
		// A server that greets on stdout before serving, as servers
		// written with print() do: Gemini CLI skips such lines.
		fmt.Println("Weather server ready on stdio")
		fmt.Println()
		s := newTestServer("banner")
		s.AddTool(&sdk.Tool{Name: "big", InputSchema: objectSchema(map[string]any{})},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				// Above the SDK's 16 MB line limit.
				return textResult(strings.Repeat("x", 17<<20)), nil
			})
		if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
		}
		return 0
	case "chatty":
		// Only text on stdout, never an answer.
		fmt.Println("Listening on port 8080")
		fmt.Fprintln(os.Stderr, "warning: no MCP transport configured")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "traceback":
		// Many stderr lines, then a crash: the report quotes the last ones.
		for i := range 20 {
			fmt.Fprintf(os.Stderr, "  frame %d\n", i)
		}
		fmt.Fprintln(os.Stderr, "ModuleNotFoundError: No module named 'mcp'\x1b[31m")
		return 1
	case "progress":
		// Reports progress on the call's token, if the client gave one,
		// and says whether it had one.
		s := sdk.NewServer(&sdk.Implementation{Name: "progress", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "work", InputSchema: objectSchema(map[string]any{})},
			func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				token := r.Params.GetProgressToken()
				if token == nil {
					return textResult("no progress token"), nil
				}
				for _, p := range []*sdk.ProgressNotificationParams{
					{ProgressToken: token, Progress: 1, Total: 4, Message: "warming up"},
					{ProgressToken: token, Progress: 2, Total: 4},
					{ProgressToken: "not-ours", Progress: 3, Total: 4},
					{ProgressToken: token, Progress: 7, Message: "no total"},
				} {
					if err := r.Session.NotifyProgress(ctx, p); err != nil {
						return nil, err
					}
				}
				// The answer could overtake the notifications in the
				// client: wait (within bounds) for the test to say it
				// has seen the last one, by creating this file.
				if seen := os.Getenv("PROGRESS_SEEN"); seen != "" {
					for range 1000 {
						if _, err := os.Stat(seen); err == nil {
							break
						}
						time.Sleep(10 * time.Millisecond)
					}
				}
				return textResult("worked"), nil
			})
		_ = s.Run(context.Background(), &sdk.StdioTransport{})
		return 0
	case "empty":
		s := sdk.NewServer(&sdk.Implementation{Name: "empty", Version: "1"}, nil)
		_ = s.Run(context.Background(), &sdk.StdioTransport{})
		return 0
	case "env":
		s := sdk.NewServer(&sdk.Implementation{Name: "env", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "getenv", InputSchema: objectSchema(map[string]any{"name": map[string]any{"type": "string"}})},
			func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				name, _ := argsOf(r)["name"].(string)
				wd, _ := os.Getwd()
				v, ok := os.LookupEnv(name)
				return textResult(fmt.Sprintf("%s=%q set=%v cwd=%s", name, v, ok, wd)), nil
			})
		_ = s.Run(context.Background(), &sdk.StdioTransport{})
		return 0
	}
	s := newTestServer(kind)
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
	}
	return 0
}

func objectSchema(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

func argsOf(r *sdk.CallToolRequest) map[string]any {
	m := normalizeSchema(r.Params.Arguments)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// Fixed bytes for binary content, so golden files are stable.
var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\nfake-image")
	wavBytes  = []byte("RIFF....WAVEfake-audio")
	blobBytes = []byte{0, 1, 2, 3, 254, 255}
)

// newTestServer builds the in-process server every transport test talks
// to. name prefixes nothing; it only appears in serverInfo.
func newTestServer(name string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: name, Version: "1.0.0"}, &sdk.ServerOptions{Instructions: "Use echo to test."})
	add := func(t *sdk.Tool, h func(map[string]any) (*sdk.CallToolResult, error)) {
		if t.InputSchema == nil {
			t.InputSchema = objectSchema(map[string]any{})
		}
		s.AddTool(t, func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return h(argsOf(r))
		})
	}
	add(&sdk.Tool{Name: "echo", Description: "Echoes a message.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []any{"message"}}},
		func(a map[string]any) (*sdk.CallToolResult, error) {
			return textResult(fmt.Sprintf("Echo: %v", a["message"])), nil
		})
	add(&sdk.Tool{Name: "image", Description: "Returns an image."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: pngBytes}}}, nil
	})
	add(&sdk.Tool{Name: "audio", Description: "Returns audio."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: wavBytes}}}, nil
	})
	add(&sdk.Tool{Name: "resource_text", Description: "Returns an embedded text resource."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://doc", MIMEType: "text/plain", Text: "embedded text"}}}}, nil
	})
	add(&sdk.Tool{Name: "resource_blob", Description: "Returns an embedded binary resource."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://bin", MIMEType: "application/x-test", Blob: blobBytes}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://raw", Blob: blobBytes}},
		}}, nil
	})
	add(&sdk.Tool{Name: "link", Description: "Returns resource links."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.ResourceLink{URI: "test://a", Name: "a-name", Title: "A Title"},
			&sdk.ResourceLink{URI: "test://b", Name: "b-name"},
		}}, nil
	})
	add(&sdk.Tool{Name: "mixed", Description: "Returns every kind of content."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "first"},
			&sdk.ImageContent{MIMEType: "image/png", Data: pngBytes},
			&sdk.TextContent{Text: "<b>second</b>"},
			&sdk.ResourceLink{URI: "test://c", Name: "c"},
		}}, nil
	})
	add(&sdk.Tool{Name: "empty", Description: "Returns no content."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{}}, nil
	})
	add(&sdk.Tool{Name: "fail", Description: "Reports a tool error."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "something broke"}}}, nil
	})
	add(&sdk.Tool{Name: "crash", Description: "Kills the server process (stdio only)."}, func(map[string]any) (*sdk.CallToolResult, error) {
		if os.Getenv(helperEnv) != "" {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(2)
		}
		return textResult("not a subprocess; not crashing"), nil
	})
	add(&sdk.Tool{Name: "untyped", Description: "Has a property without a type.",
		InputSchema: objectSchema(map[string]any{"param1": map[string]any{"description": "a param with no type"}})},
		func(map[string]any) (*sdk.CallToolResult, error) { return textResult("never"), nil })
	add(&sdk.Tool{Name: "recursive", Description: "Has a recursive schema.",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"node": map[string]any{"$ref": "#/$defs/node"}},
			"$defs": map[string]any{"node": map[string]any{
				"type": "object", "properties": map[string]any{
					"value":    map[string]any{"type": "string"},
					"children": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/node"}},
				},
			}},
		}},
		func(map[string]any) (*sdk.CallToolResult, error) { return textResult("ok"), nil })
	add(&sdk.Tool{Name: "weird name/with:chars"}, func(map[string]any) (*sdk.CallToolResult, error) {
		return textResult("weird"), nil
	})
	add(&sdk.Tool{Name: strings.Repeat("a", 30) + "_middle_" + strings.Repeat("z", 40)}, func(map[string]any) (*sdk.CallToolResult, error) {
		return textResult("long"), nil
	})
	add(&sdk.Tool{Name: "read_file", Description: "Clashes with a built-in."}, func(map[string]any) (*sdk.CallToolResult, error) {
		return textResult("mcp read_file"), nil
	})

	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, r *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + r.Params.Arguments["name"] + "."}}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "no args"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.ImageContent{MIMEType: "image/png", Data: pngBytes}}}}, nil
	})
	s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", Description: "The readme.", MIMEType: "text/plain"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://readme", MIMEType: "text/plain", Text: "Read me first."}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://logo", Name: "logo", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://logo", MIMEType: "image/png", Blob: pngBytes}}}, nil
		})
	return s
}

// httpServers starts the test server over streamable HTTP and SSE on
// loopback and returns their URLs. requests counts what reached them, by
// header, so tests can check configured headers.
type httpFixture struct {
	streamURL, sseURL string
	mu                sync.Mutex
	headers           []http.Header
}

func (f *httpFixture) seen(key string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, h := range f.headers {
		if v := h.Get(key); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func startHTTP(t *testing.T) *httpFixture {
	t.Helper()
	f := &httpFixture{}
	srv := newTestServer("http-test")
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.headers = append(f.headers, r.Header.Clone())
			f.mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	stream := httptest.NewServer(record(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	sse := httptest.NewServer(record(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	t.Cleanup(stream.Close)
	t.Cleanup(sse.Close)
	f.streamURL, f.sseURL = stream.URL+"/mcp", sse.URL+"/sse"
	return f
}

// helperConfig is a stdio server config running this test binary as the
// helper of the given kind.
func helperConfig(t testing.TB, name, kind string) *ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &ServerConfig{Name: name, Command: exe, Env: map[string]string{helperEnv: kind}}
}

// debugLog collects debug lines.
type debugLog struct {
	mu    sync.Mutex
	lines []string
}

func (d *debugLog) add(s string) {
	d.mu.Lock()
	d.lines = append(d.lines, s)
	d.mu.Unlock()
}

func (d *debugLog) contains(sub string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

func (d *debugLog) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.lines, "\n")
}

// startHTTPHandler is the test server's streamable HTTP handler, for tests
// that put something in front of it.
func startHTTPHandler() http.Handler {
	srv := newTestServer("http-test")
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
}
