// Package mcptest serves MCP servers that misbehave in ways tests of
// Castor's limits need: one whose tool result is far larger than memory
// should hold.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HugeBlockWire is one block of the huge result as sent (JSON string
// content, escapes included); HugeBlockText is the same block decoded, as
// the model's text and the saved file hold it.
const (
	HugeBlockWire = `line with \"quotes\", \u00e9 and \ud83d\ude00 and a tab\t.\n`
	HugeBlockText = "line with \"quotes\", é and 😀 and a tab\t.\n"
)

// HugeBlocks is how many blocks make a result of about mib MiB on the
// wire (a multiple of 1024).
func HugeBlocks(mib int) int { return (mib << 20) / len(HugeBlockWire) / 1024 * 1024 }

// HugeResult is a streamable HTTP MCP server with one tool, "huge": the
// SDK answers everything but tools/call, which gets a result whose one
// text is blocks blocks long, written as it goes (never held whole), as
// an SSE event or (sse false) a JSON body.
func HugeResult(blocks int, sse bool) http.Handler {
	srv := sdk.NewServer(&sdk.Implementation{Name: "big", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "huge", Description: "Returns a lot.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "small"}}}, nil
		})
	inner := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: !sse})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			inner.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method != "tools/call" {
			r.Body = io.NopCloser(bytes.NewReader(body))
			inner.ServeHTTP(w, r)
			return
		}
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\ndata: ")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, msg.ID)
		chunk := []byte(strings.Repeat(HugeBlockWire, 1024))
		for i := 0; i < blocks; i += 1024 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"}],"isError":false}}`)
		if sse {
			fmt.Fprint(w, "\n\n")
		}
	})
}
